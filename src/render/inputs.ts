// A call job against the Workflow it calls: `with` gives only declared inputs, and every required
// input without a default is given. Shared by the webhook (when the callee exists), the controller
// (when the call becomes runnable) and `krt workflow trigger` (for --input).
import type { JobSpec, Workflow } from '../api/types.js';
import { hasExpressions } from '../expr/index.js';
import { fieldError, type FieldError } from '../fielderror.js';
import { MAX_VALUE_LENGTH } from '../limits.js';
import { isScalar, type Scalar } from '../helpers.js';

export function callInputErrors(
  job: Pick<JobSpec, 'uses' | 'with'>,
  field: string,
  callee: Workflow,
): FieldError[] {
  // A string with expressions is known only when the call runs; the controller checks it then.
  const literal = Object.fromEntries(
    Object.entries(job.with ?? {}).filter(
      (e): e is [string, Scalar] => isScalar(e[1]) && !(typeof e[1] === 'string' && hasExpressions(e[1])),
    ),
  );
  return [
    ...inputErrors(Object.keys(job.with ?? {}), callee, `${field}.with`, 'workflow'),
    ...inputTypeErrors(literal, callee, `${field}.with`),
  ];
}

/** Given values against the declared input types (undeclared names are inputErrors' to report). */
export function inputTypeErrors(
  given: Record<string, Scalar>,
  template: Workflow,
  field: string,
): FieldError[] {
  const declared = template.spec?.inputs ?? {};
  const errors: FieldError[] = [];
  for (const [k, v] of Object.entries(given).sort(([a], [b]) => a.localeCompare(b))) {
    const type = declared[k]?.type ?? 'string';
    if (declared[k] && !valueMatchesType(String(v), type))
      errors.push(
        fieldError(
          `${field}.${k}`,
          `${typeof v === 'string' ? `"${v}"` : String(v)} is not a ${type} (input "${k}" of workflow "${template.metadata?.name ?? ''}")`,
        ),
      );
  }
  return errors;
}

/** The shape of one `with` value: a string (bounded), a number or a boolean. */
export function withValueErrors(value: unknown, field: string): FieldError[] {
  if (!isScalar(value))
    return [
      fieldError(
        field,
        `must be a string, number or boolean, not ${value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : typeof value} (an input value is one scalar)`,
      ),
    ];
  if (typeof value === 'string' && value.length > MAX_VALUE_LENGTH)
    return [fieldError(field, `must be at most ${MAX_VALUE_LENGTH} characters`)];
  return [];
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
