// Deterministic names of generated objects (docs/design.md §2 "Decided where the specification is open"), so a
// create after a crash finds the object it made before instead of making a second one.
import { createHash } from 'node:crypto';
import { MAX_OBJECT_NAME_LENGTH } from './limits.js';

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

const SUFFIX_LENGTH = 1 + 8; // "-" and 8 hex digits

/**
 * Makes `wanted` a valid DNS-1123 subdomain of at most `limit` characters. A name that is already
 * valid and short enough is returned unchanged. Otherwise it is lowered, characters outside
 * [a-z0-9-] become "-", it is cut, and it ends in `-<8 hex of sha256 of the full wanted name>`,
 * so two different wanted names never share a result (job names may differ only in case or "_").
 */
export function boundedName(wanted: string, limit = MAX_OBJECT_NAME_LENGTH): string {
  if (wanted.length <= limit && isDns1123Subdomain(wanted)) return wanted;
  const suffix = '-' + sha256Hex(wanted).slice(0, 8);
  const cleaned = wanted
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .slice(0, limit - SUFFIX_LENGTH)
    .replace(/[^a-z0-9]+$/, '')
    .replace(/^[^a-z0-9]+/, '');
  return (cleaned + suffix).replace(/^-/, '');
}

export function isDns1123Subdomain(name: string): boolean {
  return (
    name.length > 0 &&
    name.length <= MAX_OBJECT_NAME_LENGTH &&
    /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(name)
  );
}

/** The child WorkflowRun of a call job: `<parent>-call-<job>` (`release-call-deploy`, docs/specifications.md W4). */
export function childWorkflowRunName(parent: string, job: string): string {
  return boundedName(`${parent}-call-${job}`);
}

/** The Run of one step: `<workflowrun>-<job>-<step>`, plus `-a<N>` for re-executed attempt N > 1. */
export function runName(workflowRun: string, job: string, step: string, attempt = 1): string {
  const base = `${workflowRun}-${job}-${step}`;
  return boundedName(attempt > 1 ? `${base}-a${attempt}` : base);
}

/** The snapshot ControllerRevision: `<workflowrun>-snapshot-<first 8 hex of sha256(uid)>`. */
export function snapshotName(workflowRun: string, uid: string): string {
  return boundedName(`${workflowRun}-snapshot-${sha256Hex(uid).slice(0, 8)}`);
}

/**
 * The WorkflowRun of a Promise pipeline: `<resource>-<pipeline>-<5 hex of the resource uid and
 * round>` (and delete attempt, for the delete workflow), so a restart finds the run it made.
 */
export function pipelineRunName(
  resource: string,
  uid: string,
  pipeline: string,
  round: number,
  deleteAttempt?: number,
  /** A configure pipeline's attempt in its round; the first keeps the round's name. */
  configureAttempt = 1,
): string {
  const seed =
    deleteAttempt !== undefined
      ? `delete/${round}/${deleteAttempt}`
      : configureAttempt > 1
        ? `${round}/a${configureAttempt}`
        : `${round}`;
  return boundedName(`${resource}-${pipeline}-${sha256Hex(`${uid}/${seed}`).slice(0, 5)}`);
}

/** The Work of one pipeline of a resource: `<resource>-<pipeline>`, rewritten by each run of it. */
export function workName(resource: string, pipeline: string): string {
  return boundedName(`${resource}-${pipeline}`);
}

/** A service account as the API server names its user. */
export const serviceAccountUser = (namespace: string, name: string) =>
  `system:serviceaccount:${namespace}:${name}`;

/** The service account a Promise's Works act as (docs/promises.md, RBAC); its author grants its rights. */
export const promiseServiceAccount = (promise: string) => boundedName(`kruntimes-promise-${promise}`);
