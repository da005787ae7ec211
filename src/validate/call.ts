// A call job against the Workflow it calls: `with` gives only declared inputs, and every required
// input without a default is given. Shared by the webhook (when the callee exists), the controller
// (when the call becomes runnable) and `krt workflow trigger` (for --input).
import type { JobSpec, Workflow } from '../api/types.js';
import { fieldError, type FieldError } from '../fielderror.js';

export function callInputErrors(
  job: Pick<JobSpec, 'uses' | 'with'>,
  field: string,
  callee: Workflow,
): FieldError[] {
  return inputErrors(Object.keys(job.with ?? {}), callee, `${field}.with`, 'workflow');
}

/** Given input names against a template's declared inputs. */
export function inputErrors(
  given: string[],
  template: Workflow,
  field: string,
  noun = 'workflow',
): FieldError[] {
  const declared = template.spec?.inputs ?? {};
  const name = template.metadata?.name ?? '';
  const errors: FieldError[] = [];
  for (const k of [...given].sort()) {
    if (!(k in declared))
      errors.push(fieldError(`${field}.${k}`, `input "${k}" is not declared by ${noun} "${name}"`));
  }
  for (const [k, spec] of Object.entries(declared).sort(([a], [b]) => a.localeCompare(b))) {
    if (spec.required && spec.default === undefined && !given.includes(k))
      errors.push(fieldError(field, `required input "${k}" of ${noun} "${name}" is not given`));
  }
  return errors;
}

/** Whether a string value fits an input type; inputs travel as strings. */
export function valueMatchesType(value: string, type: string | undefined): boolean {
  switch (type ?? 'string') {
    case 'number':
      return value.trim() !== '' && Number.isFinite(Number(value));
    case 'boolean':
      return value === 'true' || value === 'false';
    default:
      return true;
  }
}
