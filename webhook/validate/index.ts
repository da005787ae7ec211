// The validating processor: AdmissionRequest in, AdmissionReview out. Pure apart from reading the
// Workflow index; the express layer only decodes and encodes.
import type { PromiseObject, Run, Workflow, WorkflowRun } from '../../src/api/types.js';
import { GROUP } from '../../src/api/crds.js';
import { formatFieldError, type FieldError } from '../../src/fielderror.js';
import { directCallers } from '../../src/graph/through.js';
import {
  DEFAULT_RUN_CREATORS,
  mayCreateRun,
  validateRun,
  validateWorkflow,
  validateWorkflowRun,
  validatePromise,
  type RunCreators,
  type ValidationResult,
} from '../../src/validate/index.js';
import { DEFAULT_RUNTIMED_USERS, runStatusWriteError } from '../../src/validate/run-status.js';
import {
  runControllerFieldErrors,
  workflowRunControllerFieldErrors,
} from '../../src/validate/controller-fields.js';
import { DEFAULT_RUN_STALE_MS } from '../../src/runtime/lifecycle.js';
import { allow, deny, type AdmissionRequest, type AdmissionReview } from '../review.js';
import type { WorkflowIndex } from '../workflows.js';
import { isObject } from '../../src/helpers.js';
import type { CrdMeta } from '../../src/promise/ownership.js';

export interface ValidateDeps {
  workflows?: WorkflowIndex;
  /** Whether a live runtimed serves a runtime in a namespace; omitted until the Leases are read. */
  serves?: (runtime: string, namespace: string) => boolean;
  runCreators?: RunCreators;
  /** Who runtimed is, and its stale period: an agent writes the status of the Runs it holds only. */
  runStatusWriters?: { runtimedUsers: string[]; staleMs: number };
  now?: () => Date;
  /** CRDs by name (their owners only), for the warning about a Promise naming another's API. */
  crds?: (name: string) => CrdMeta | undefined;
}

export function validateRequest(req: AdmissionRequest, deps: ValidateDeps = {}): AdmissionReview {
  const { uid, kind, operation } = req;
  if (kind.group !== GROUP || !['Workflow', 'WorkflowRun', 'Run', 'Promise', 'Work'].includes(kind.kind))
    return deny(uid, 400, 'BadRequest', `this webhook does not validate ${kind.kind}.${kind.group}`);
  if (operation === 'DELETE') return kind.kind === 'Workflow' ? workflowDelete(req, deps) : allow(uid);
  if (operation !== 'CREATE' && operation !== 'UPDATE') return allow(uid);
  if (!isObject(req.object) || !isObject(req.object.metadata))
    return deny(uid, 400, 'BadRequest', 'request.object is missing or has no metadata');
  const name = String(req.object.metadata.name ?? req.name ?? '');
  const old = isObject(req.oldObject) && operation === 'UPDATE' ? req.oldObject : undefined;
  const refused = controllerOnly(req, name, old, deps);
  if (refused) return refused;
  if (kind.kind === 'Work') return allow(uid);
  const result = validateKind(req, name, old, deps);
  if ('response' in result) return result;
  if (result.errors.length > 0)
    return deny(uid, 422, 'Invalid', invalidMessage(kind.kind, name, result.errors), result.warnings);
  return allow(uid, result.warnings);
}

/** The object checked by the rules of its kind; a Run's writer checked first (an AdmissionReview). */
function validateKind(
  req: AdmissionRequest,
  name: string,
  old: Record<string, unknown> | undefined,
  deps: ValidateDeps,
): ValidationResult | AdmissionReview {
  const namespace = req.namespace ?? '';
  const index = deps.workflows;
  const serves = deps.serves;
  const servesIn = serves ? (runtime: string) => serves(runtime, namespace) : undefined;
  switch (req.kind.kind) {
    case 'Workflow':
      return validateWorkflow(req.object as unknown as Workflow, {
        ...(index ? { others: index.inNamespace(namespace) } : {}),
        serves: servesIn,
      });
    case 'WorkflowRun':
      return validateWorkflowRun(req.object as unknown as WorkflowRun, {
        old: old as unknown as WorkflowRun | undefined,
        lookup: index ? (n) => index.get(namespace, n) : undefined,
        serves: servesIn,
      });
    case 'Promise':
      return validatePromise(
        req.object as unknown as PromiseObject,
        old as unknown as PromiseObject | undefined,
        index ? (ns, n) => index.get(ns, n) : undefined,
        deps.crds,
      );
    default:
      return (
        runWriterRefusal(req, name, old, deps) ??
        validateRun(req.object as unknown as Run, old as unknown as Run | undefined)
      );
  }
}

/** Who may write a Run: only the controller creates one, only its agent writes its status. */
function runWriterRefusal(
  req: AdmissionRequest,
  name: string,
  old: Record<string, unknown> | undefined,
  deps: ValidateDeps,
): AdmissionReview | undefined {
  const { uid } = req;
  if (req.operation === 'CREATE' && !mayCreateRun(req.userInfo, deps.runCreators ?? DEFAULT_RUN_CREATORS))
    return deny(
      uid,
      403,
      'Forbidden',
      `Runs are created by the kruntimes controller: user "${req.userInfo?.username ?? ''}" may not create Run "${name}"`,
    );
  if (req.subResource !== 'status' || !old) return undefined;
  const writers = deps.runStatusWriters ?? {
    runtimedUsers: DEFAULT_RUNTIMED_USERS,
    staleMs: DEFAULT_RUN_STALE_MS,
  };
  const e = runStatusWriteError(old as unknown as Run, req.object as unknown as Run, req.userInfo ?? {}, {
    ...writers,
    now: deps.now?.() ?? new Date(),
  });
  return e ? deny(uid, 403, 'Forbidden', `Run "${name}": ${formatFieldError(e)}`) : undefined;
}

/**
 * What only the controller may write (src/validate/controller-fields.ts): Works, a Run's spec, the
 * controller's labels and the runs it made. Its own writes, and admins', pass.
 */
function controllerOnly(
  req: AdmissionRequest,
  name: string,
  old: Record<string, unknown> | undefined,
  deps: ValidateDeps,
): AdmissionReview | undefined {
  const { kind, uid } = req;
  if (req.subResource || mayCreateRun(req.userInfo, deps.runCreators ?? DEFAULT_RUN_CREATORS))
    return undefined;
  const who = `user "${req.userInfo?.username ?? ''}"`;
  if (kind.kind === 'Work')
    return deny(
      uid,
      403,
      'Forbidden',
      `Works are written by the kruntimes controller: ${who} may not write Work "${name}"`,
    );
  const object = req.object as Record<string, unknown>;
  const errors =
    kind.kind === 'WorkflowRun'
      ? workflowRunControllerFieldErrors(object, old, req.userInfo)
      : kind.kind === 'Run' && old
        ? runControllerFieldErrors(object, old)
        : [];
  if (errors.length === 0) return undefined;
  return deny(
    uid,
    403,
    'Forbidden',
    `${who} may not write ${kind.kind} "${name}": ${errors.map(formatFieldError).join('; ')}`,
  );
}

/** `WorkflowRun "release" is invalid: spec.jobs.deploy: a call job cannot have steps; ...` */
export function invalidMessage(kind: string, name: string, errors: FieldError[]): string {
  return `${kind} "${name}" is invalid: ${errors.map(formatFieldError).join('; ')}`;
}

/** Deleting a Workflow is allowed (runs keep their snapshot); the callers left behind are named. */
function workflowDelete(req: AdmissionRequest, deps: ValidateDeps): AdmissionReview {
  const name = req.name ?? '';
  const index = deps.workflows;
  if (!index) return allow(req.uid);
  const all = index.inNamespace(req.namespace ?? '');
  const callers = directCallers(name, all).filter((c) => c !== name);
  if (callers.length === 0) return allow(req.uid);
  return allow(req.uid, [
    `workflow "${name}" is still called by ${callers.map((c) => `"${c}"`).join(', ')}: their call jobs will fail until it exists again`,
  ]);
}
