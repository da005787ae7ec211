// Rendering a reusable Workflow into inline jobs (docs/specifications.md W2, W4, W6): inputs validated and defaulted, `inputs.*` rendered into every string of the jobs,
// the frozen output contract rendered the same way. Used by `krt workflow trigger` and by the
// controller when a call job becomes runnable.
import type { JobSpec, Workflow } from '../api/types.js';
import { ExprError } from '../expr/index.js';
import type { FieldError } from '../fielderror.js';
import { inputErrors, inputTypeErrors } from './inputs.js';
import { frozenOutputContract } from '../limits.js';
import { renderJobs, renderStrings } from './jobs.js';

export interface Materialized {
  jobs: Record<string, JobSpec>;
  /** `kruntimes.io/workflow-output.<name>` -> expression over the run's own jobs. */
  annotations: Record<string, string>;
}

/** Given inputs checked against the template and completed with defaults. */
export function resolveInputs(
  template: Workflow,
  given: Record<string, string>,
  field: string,
): { values: Record<string, string> } | { errors: FieldError[] } {
  const errors = [
    ...inputErrors(Object.keys(given), template, field),
    ...inputTypeErrors(given, template, field),
  ];
  const declared = template.spec.inputs ?? {};
  if (errors.length > 0) return { errors };
  const values: Record<string, string> = {};
  for (const [k, spec] of Object.entries(declared)) {
    // An optional input given no value and no default reads as empty, as in GitHub Actions.
    values[k] = given[k] ?? spec.default ?? '';
  }
  return { values };
}

/**
 * Renders the template with resolved inputs. Throws ExprError when an input reference cannot render,
 * ShellValueError when a value cannot be placed in a script.
 */
export function materialize(template: Workflow, inputs: Record<string, string>): Materialized {
  return {
    jobs: renderJobs(template.spec.jobs, { inputs }, ['inputs']),
    annotations: renderStrings(frozenOutputContract(template), { inputs }, ['inputs']),
  };
}

export { ExprError };
