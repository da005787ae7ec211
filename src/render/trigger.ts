// `krt workflow trigger`: a template and --input values become an inline WorkflowRun (docs/specifications.md
// W2): inputs validated and rendered, the frozen output contract kept
// as annotations, the template named by a label.
import { API_VERSION } from '../api/crds.js';
import type { Workflow, WorkflowRun } from '../api/types.js';
import type { FieldError } from '../fielderror.js';
import { fieldError } from '../fielderror.js';
import { LABEL_WORKFLOW } from '../labels.js';
import { ExprError, materialize, resolveInputs } from './materialize.js';

/** `--input k=v` flags as a map; a flag without `=` is an error. */
export function parseInputFlags(
  flags: string[],
): { values: Record<string, string> } | { errors: FieldError[] } {
  const values: Record<string, string> = {};
  const errors: FieldError[] = [];
  for (const f of flags) {
    const eq = f.indexOf('=');
    if (eq <= 0) errors.push(fieldError('--input', `"${f}" is not key=value`));
    else values[f.slice(0, eq)] = f.slice(eq + 1);
  }
  return errors.length ? { errors } : { values };
}

export function triggeredRun(
  template: Workflow,
  given: Record<string, string>,
): { run: WorkflowRun } | { errors: FieldError[] } {
  const inputs = resolveInputs(template, given, '--input');
  if ('errors' in inputs) return inputs;
  try {
    const { jobs, annotations } = materialize(template, inputs.values);
    const name = template.metadata.name ?? '';
    return {
      run: {
        apiVersion: API_VERSION,
        kind: 'WorkflowRun',
        metadata: {
          generateName: `${name}-`,
          labels: { [LABEL_WORKFLOW]: name },
          ...(Object.keys(annotations).length ? { annotations } : {}),
        },
        spec: { jobs },
      },
    };
  } catch (e) {
    if (e instanceof ExprError)
      return { errors: [fieldError(`workflow "${template.metadata.name}"`, e.message)] };
    throw e;
  }
}
