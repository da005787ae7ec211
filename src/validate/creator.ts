// Who created a WorkflowRun, recorded at admission, and what of the namespace its Runs reach in that
// person's name (docs/security.md, "Secrets and service accounts"): the Secrets a step reads and
// the service account its Pod runs as. Whoever may create a WorkflowRun must not read a Secret or act
// as a service account that RBAC does not give them: the controller asks the API server, with a
// SubjectAccessReview for the creator, before it creates each Run.
import type { Run, WorkflowRun } from '../api/types.js';
import { fieldError, type FieldError } from '../fielderror.js';
import { isObject } from '../helpers.js';

/** On a WorkflowRun: its creator as admission saw them, `{"username":...,"groups":[...]}`. */
export const ANNOTATION_CREATOR = 'kruntimes.io/created-by';

export interface Creator {
  username: string;
  groups: string[];
}

export interface AccessNeed {
  verb: 'get' | 'impersonate';
  resource: 'secrets' | 'serviceaccounts';
  name: string;
  /** Which field of the step asks for it. */
  by: string;
}

/** The annotation's value for a user (the API server's userInfo). */
export function creatorAnnotation(user: { username?: string; groups?: string[] } | undefined): string {
  return JSON.stringify({ username: user?.username ?? '', groups: user?.groups ?? [] });
}

/**
 * The creator a WorkflowRun carries: undefined when it has none (a pipeline run the controller made
 * for a Promise has none, and neither has a run created where the mutating webhook did not run,
 * which then acts in nobody's name: see the controller's check).
 */
export function creatorOf(run: Pick<WorkflowRun, 'metadata'>): Creator | undefined {
  const text = run.metadata.annotations?.[ANNOTATION_CREATOR];
  if (text === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(text);
    if (isObject(v) && typeof v.username === 'string' && Array.isArray(v.groups))
      return { username: v.username, groups: v.groups.filter((g): g is string => typeof g === 'string') };
  } catch {
    // unreadable: nobody may be assumed
  }
  return { username: '', groups: [] };
}

/** What a Run reaches in its creator's name: each Secret it reads and the service account it runs as. */
export function accessNeeds(run: Run): AccessNeed[] {
  const needs: AccessNeed[] = [];
  const add = (n: AccessNeed) => {
    if (!needs.some((x) => x.verb === n.verb && x.resource === n.resource && x.name === n.name))
      needs.push(n);
  };
  for (const e of run.spec.env ?? []) {
    const ref = e.valueFrom?.secretKeyRef;
    if (ref?.name) add({ verb: 'get', resource: 'secrets', name: ref.name, by: `secretEnv ${e.name}` });
  }
  const c = run.spec.container;
  for (const e of c?.envFrom ?? [])
    if (e.secretRef?.name) add({ verb: 'get', resource: 'secrets', name: e.secretRef.name, by: 'envFrom' });
  for (const v of c?.volumes ?? [])
    if (v.secret?.secretName)
      add({ verb: 'get', resource: 'secrets', name: v.secret.secretName, by: `volume ${v.name}` });
  if (c?.serviceAccountName)
    add({
      verb: 'impersonate',
      resource: 'serviceaccounts',
      name: c.serviceAccountName,
      by: 'serviceAccountName',
    });
  return needs;
}

/** The refusal of a Run whose creator may not have what it needs. */
export function accessDenied(creator: Creator, need: AccessNeed, namespace: string, runName: string): string {
  const what =
    need.resource === 'secrets' ? `get Secret "${need.name}"` : `impersonate ServiceAccount "${need.name}"`;
  return `the run's creator, user "${creator.username}", may not ${what} in namespace "${namespace}" (the step's ${need.by}): Run "${runName}" is not created`;
}

/**
 * Why a WorkflowRun's creator annotation is not what admission recorded: on a create, it must be
 * the requester's; after that it never changes.
 */
export function creatorAnnotationErrors(
  object: Pick<WorkflowRun, 'metadata'>,
  old: Pick<WorkflowRun, 'metadata'> | undefined,
  user: { username?: string; groups?: string[] } | undefined,
): FieldError[] {
  const now = object.metadata.annotations?.[ANNOTATION_CREATOR];
  const field = `metadata.annotations[${ANNOTATION_CREATOR}]`;
  if (old) {
    return now === old.metadata.annotations?.[ANNOTATION_CREATOR]
      ? []
      : [fieldError(field, 'recorded at creation by admission: it may not change')];
  }
  // Missing, it is added by the mutating webhook; without it the run acts in nobody's name.
  return now === undefined || now === creatorAnnotation(user)
    ? []
    : [fieldError(field, 'recorded by admission: it names who creates the run')];
}
