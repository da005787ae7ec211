// The plan of one Work (what applying a Work means is in src/promise/works.ts): its finalizer first;
// then each object applied, and, once every one applied, what a newer Work dropped pruned; or, once
// the Work is deleted, every object it applied deleted and then its finalizer taken off. Pure: what
// the actions of this reconcile came to so far (`done`) is observed like the caches, and the
// planned loop plans again after each step that changes what comes next.
import type { AppliedObject, Work, WorkStatus } from '../api/types.js';
import { FINALIZER_APPLIED_OBJECTS, LABEL_PROMISE } from '../labels.js';
import { manifestKey, type Manifest } from '../promise/documents.js';
import { identity, placed, toPrune, workRetryAfter, workStatus } from '../promise/works.js';

/** What the API server serves of a kind: enough to place an object, and whatever applying it needs. */
export type Kind = { namespaced: boolean };

/** What this reconcile's actions came to, by object (manifestKey). */
export interface WorkDone {
  applied: Set<string>;
  /** Objects the API server or the Work's rule refused, with why. */
  refused: Map<string, string>;
  /** Objects a delete was sent for (pruned or removed). */
  deleted: Set<string>;
  /** Of those, the ones still there (being deleted). */
  stillThere: Set<string>;
  /** Prunes that failed, with why. */
  pruneFailed: Map<string, string>;
}

export const workDone = (): WorkDone => ({
  applied: new Set(),
  refused: new Map(),
  deleted: new Set(),
  stillThere: new Set(),
  pruneFailed: new Map(),
});

export interface WorkObserved<K extends Kind> {
  work: Work;
  /** The kind as discovery serves it, or undefined when the API server serves no such kind. */
  kindOf(apiVersion: string, kind: string): K | undefined;
  done: WorkDone;
  now: Date;
}

export type WorkAction<K extends Kind> =
  | { type: 'addFinalizer'; finalizers: string[] }
  | { type: 'removeFinalizer'; finalizers: string[] }
  | { type: 'apply'; object: Manifest; id: AppliedObject; kind: K; promise: string }
  | { type: 'delete'; object: AppliedObject; kind: K; promise: string; why: 'prune' | 'remove' };

export interface WorkPlan<K extends Kind> {
  status: WorkStatus;
  actions: WorkAction<K>[];
  requeueAfter?: number;
  /** Its finalizer comes off: the Work goes, and no status is written. */
  gone?: boolean;
}

/** Names an action, so the planned loop applies it once in a reconcile. */
export function workActionId(a: WorkAction<Kind>): string {
  switch (a.type) {
    case 'addFinalizer':
    case 'removeFinalizer':
      return `${a.type}/${a.finalizers.join(',')}`;
    case 'apply':
      return `apply/${manifestKey(a.id)}`;
    case 'delete':
      return `delete/${manifestKey(a.object)}`;
  }
}

export const describeObject = (o: AppliedObject) =>
  `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;

export function planWork<K extends Kind>(o: WorkObserved<K>): WorkPlan<K> {
  const { work } = o;
  const finalizers = work.metadata.finalizers ?? [];
  const status = work.status ?? {};
  if (work.metadata.deletionTimestamp) {
    if (!finalizers.includes(FINALIZER_APPLIED_OBJECTS)) return { status, actions: [], gone: true };
    return planRemoval(
      o,
      finalizers.filter((f) => f !== FINALIZER_APPLIED_OBJECTS),
    );
  }
  // The finalizer goes on before anything is applied, so a deleted Work never orphans an object.
  if (!finalizers.includes(FINALIZER_APPLIED_OBJECTS))
    return {
      status,
      actions: [{ type: 'addFinalizer', finalizers: [...finalizers, FINALIZER_APPLIED_OBJECTS] }],
    };
  const promise = work.metadata.labels?.[LABEL_PROMISE];
  if (!promise) return result(o, [], [`the Work has no ${LABEL_PROMISE} label: nothing is applied`], []);
  return planApply(o, promise);
}

/** Every object applied; pruned what the Work dropped once all of them applied. */
function planApply<K extends Kind>(o: WorkObserved<K>, promise: string): WorkPlan<K> {
  const { work, done } = o;
  const actions: WorkAction<K>[] = [];
  const applied: AppliedObject[] = [];
  const failures: string[] = [];
  let waiting = false;
  for (const raw of (work.spec.objects ?? []) as Manifest[]) {
    const kind = o.kindOf(raw.apiVersion, raw.kind);
    if (!kind) {
      failures.push(
        `${raw.kind} ${raw.metadata.name}: the API server serves no kind ${raw.kind} in ${raw.apiVersion}`,
      );
      continue;
    }
    const object = placed(raw, kind.namespaced, work.metadata.namespace ?? '');
    const id = identity(object);
    const key = manifestKey(id);
    const refused = done.refused.get(key);
    if (refused !== undefined) failures.push(`${describeObject(id)}: ${refused}`);
    else if (done.applied.has(key)) applied.push(id);
    else {
      waiting = true;
      actions.push({ type: 'apply', object, id, kind, promise });
    }
  }
  // Pruned only when every object applied: a half-applied Work keeps what it had.
  if (!waiting && failures.length === 0)
    for (const stale of toPrune(work.status?.applied ?? [], applied)) {
      const kind = o.kindOf(stale.apiVersion ?? '', stale.kind ?? '');
      if (!kind) continue;
      const failed = done.pruneFailed.get(manifestKey(stale));
      if (failed !== undefined) failures.push(`pruning ${describeObject(stale)}: ${failed}`);
      else if (!done.deleted.has(manifestKey(stale)))
        actions.push({ type: 'delete', object: stale, kind, promise, why: 'prune' });
    }
  return result(o, applied, failures, actions);
}

/** The Work's result in its status; while it fails, when to try again. */
function result<K extends Kind>(
  o: WorkObserved<K>,
  applied: AppliedObject[],
  failures: string[],
  actions: WorkAction<K>[],
): WorkPlan<K> {
  const { work, now } = o;
  const kept = failures.length === 0 ? applied : mergeApplied(work.status?.applied ?? [], applied);
  const status = workStatus(work.metadata.generation, kept, failures, work.status, now.toISOString());
  const retry = workRetryAfter(status, now);
  return { status, actions, ...(retry !== undefined ? { requeueAfter: retry } : {}) };
}

/** A deleted Work: every object it applied deleted, and once they are all gone its finalizer off. */
function planRemoval<K extends Kind>(o: WorkObserved<K>, without: string[]): WorkPlan<K> {
  const { work, done } = o;
  const status = work.status ?? {};
  const promise = work.metadata.labels?.[LABEL_PROMISE];
  const actions: WorkAction<K>[] = [];
  for (const object of promise ? (work.status?.applied ?? []) : []) {
    const kind = o.kindOf(object.apiVersion ?? '', object.kind ?? '');
    if (!kind) continue; // its API is gone, and the object with it
    if (!done.deleted.has(manifestKey(object)))
      actions.push({ type: 'delete', object, kind, promise: promise ?? '', why: 'remove' });
  }
  if (actions.length > 0) return { status, actions };
  if (done.stillThere.size > 0) return { status, actions, requeueAfter: 1000 };
  return { status, actions: [{ type: 'removeFinalizer', finalizers: without }], gone: true };
}

/** After a partial failure, what was applied before is still recorded, so a later pass can prune it. */
function mergeApplied(before: AppliedObject[], now: AppliedObject[]): AppliedObject[] {
  const out = new Map(before.map((o) => [manifestKey(o), o]));
  for (const o of now) out.set(manifestKey(o), o);
  return [...out.values()];
}
