// Validation of a Run, and who may create one: only the controller and admins, so that a user
// cannot inject a Run into another WorkflowRun (issue "Admission webhook").
import { CONTAINER_RUNTIME } from '../api/patterns.js';
import { serviceAccountUser } from '../names.js';
import type { Run } from '../api/types.js';
import { fieldError, type FieldError } from '../fielderror.js';
import { isObject } from '../helpers.js';
import type { ValidationResult } from './result.js';
import { objectSizeError } from './size.js';
import { structural } from './structural.js';

export interface UserInfo {
  username?: string;
  groups?: string[];
}

export interface RunCreators {
  users: string[];
  groups: string[];
}

/** Admins (system:masters) and the controller's service account of an install's namespace. */
export function runCreatorsIn(namespace: string): RunCreators {
  return { users: [serviceAccountUser(namespace, 'kruntimes-controller')], groups: ['system:masters'] };
}

/** Unless configured otherwise: the install in kruntimes-system. */
export const DEFAULT_RUN_CREATORS: RunCreators = runCreatorsIn('kruntimes-system');

export function mayCreateRun(
  user: UserInfo | undefined,
  creators: RunCreators = DEFAULT_RUN_CREATORS,
): boolean {
  if (!user) return false;
  if (user.username && creators.users.includes(user.username)) return true;
  return (user.groups ?? []).some((g) => creators.groups.includes(g));
}

export function validateRun(run: Run, old?: Run): ValidationResult {
  const errors: FieldError[] = [];
  if (!isObject(run.spec)) return { errors: [fieldError('spec', 'required value')], warnings: [] };
  const size = objectSizeError('Run', run);
  if (size) return { errors: [size], warnings: [] };
  errors.push(...structural.runSpec(run.spec));
  (Array.isArray(run.spec.env) ? run.spec.env : []).forEach((e, i) => {
    if (!isObject(e) || e.valueFrom === undefined) return;
    if (e.value !== undefined)
      errors.push(fieldError(`spec.env[${i}].valueFrom`, 'may not be set together with value'));
    if (!isObject(e.valueFrom) || e.valueFrom.secretKeyRef === undefined)
      errors.push(fieldError(`spec.env[${i}].valueFrom.secretKeyRef`, 'required value'));
  });
  if (run.spec.runtime === CONTAINER_RUNTIME) {
    if (run.spec.container === undefined)
      errors.push(fieldError('spec.container', `required for runtime ${CONTAINER_RUNTIME}`));
  } else {
    if (run.spec.container !== undefined)
      errors.push(fieldError('spec.container', `only for runtime ${CONTAINER_RUNTIME}`));
    if (run.spec.script === undefined) errors.push(fieldError('spec.script', 'required value'));
  }
  if (old?.spec) {
    if (old.spec.script !== run.spec.script)
      errors.push(fieldError('spec.script', 'field is immutable after creation'));
    if (JSON.stringify(old.spec.container) !== JSON.stringify(run.spec.container))
      errors.push(fieldError('spec.container', 'field is immutable after creation'));
    if (old.spec.cancelRequested === true && run.spec.cancelRequested !== true)
      errors.push(fieldError('spec.cancelRequested', 'cannot go back to false'));
  }
  return { errors, warnings: [] };
}
