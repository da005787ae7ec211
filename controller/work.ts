// The Work reconciler: each object of a Work server-side applied (field manager kruntimes), the
// objects a newer Work dropped deleted, the result in the Work's status. Each Work acts as its
// Promise's service account (work-objects.ts), never with the controller's own rights: what a
// Promise may create is what its author granted that account (docs/promises.md, RBAC).
import { requeueAfter, type Result } from '../src/kube/controller/controller.js';
import { writeStatusIfChanged } from '../src/kube/controller/planned.js';
import type { AppliedObject, Work } from '../src/api/types.js';
import type { KubeAccess } from '../src/kube/access.js';
import { crd, statusCode, statusMessage, type KubeClient } from '../src/kube/rest.js';
import { Discovery } from '../src/kube/discovery.js';
import type { ResilientInformer } from '../src/kube/informer.js';
import { isTransient } from '../src/kube/retry.js';
import { manifestKey, type Manifest } from '../src/promise/documents.js';
import { identity, placed, toPrune, workRetryAfter, workStatus } from '../src/promise/works.js';
import { log } from '../src/telemetry/log.js';
import { FINALIZER_APPLIED_OBJECTS, LABEL_PROMISE } from '../src/labels.js';
import { applyObject, deleteObject, describeObject, NotTheWorks } from './work-objects.js';
import type { EventRecorder } from './events.js';

export interface WorkDeps {
  /** The identity a Promise's Works act as. */
  actAs: (promise: string) => KubeAccess;
  works: ResilientInformer<Work>;
  kube: KubeClient;
  discovery: Discovery;
  events: EventRecorder;
  /** The time of the status written (tests inject one). */
  clock?: () => Date;
}

export async function reconcileWork(key: string, deps: WorkDeps): Promise<Result | undefined> {
  const [namespace, name] = key.split('/') as [string, string];
  const work = deps.works.get(namespace, name);
  if (!work) return undefined;
  if (work.metadata.deletionTimestamp) return requeueAfter(await removeApplied(work, deps));
  // The finalizer goes on before anything is applied, so a deleted Work never orphans an object.
  if (!work.metadata.finalizers?.includes(FINALIZER_APPLIED_OBJECTS)) {
    await setFinalizers(work, [...(work.metadata.finalizers ?? []), FINALIZER_APPLIED_OBJECTS], deps);
    return undefined; // the update comes back through the cache
  }
  const promise = work.metadata.labels?.[LABEL_PROMISE];
  if (!promise)
    return writeWorkStatus(work, [], [`the Work has no ${LABEL_PROMISE} label: nothing is applied`], deps);
  const as = deps.kube.as(deps.actAs(promise));
  const applied: AppliedObject[] = [];
  const failures: string[] = [];
  for (const raw of (work.spec.objects ?? []) as Manifest[]) {
    const info = await deps.discovery.resource(raw.apiVersion, raw.kind);
    if (!info) {
      failures.push(
        `${raw.kind} ${raw.metadata.name}: the API server serves no kind ${raw.kind} in ${raw.apiVersion}`,
      );
      continue;
    }
    const obj = placed(raw, info.namespaced, namespace);
    const id = identity(obj);
    try {
      await applyObject(as, work, info, obj);
      applied.push(id);
    } catch (e) {
      // A transient failure is retried with backoff; a refusal is the Work's result.
      if (!(e instanceof NotTheWorks) && isTransient(e)) throw e;
      failures.push(`${describeObject(id)}: ${statusMessage(e)}`);
    }
  }
  // Pruned only when every object applied: a half-applied Work keeps what it had.
  const stale = failures.length === 0 ? toPrune(work.status?.applied ?? [], applied) : [];
  for (const o of stale) {
    const info = await deps.discovery.resource(o.apiVersion ?? '', o.kind ?? '');
    if (!info) continue;
    try {
      if (await deleteObject(as, work, info, o)) log.info({ work: key, object: describeObject(o) }, 'pruned');
    } catch (e) {
      if (statusCode(e) !== 404) failures.push(`pruning ${describeObject(o)}: ${statusMessage(e)}`);
    }
  }
  return writeWorkStatus(work, applied, failures, deps);
}

/** The Work's result in its status; while it fails, when to try again. */
async function writeWorkStatus(
  work: Work,
  applied: AppliedObject[],
  failures: string[],
  deps: WorkDeps,
): Promise<Result | undefined> {
  const kept = failures.length === 0 ? applied : mergeApplied(work.status?.applied ?? [], applied);
  const now = deps.clock?.() ?? new Date();
  const status = workStatus(work.metadata.generation, kept, failures, work.status, now.toISOString());
  const retry = requeueAfter(workRetryAfter(status, now));
  const coordinates = { ...crd('works', work.metadata.namespace ?? ''), name: work.metadata.name ?? '' };
  const written = await writeStatusIfChanged(work.status, status, () =>
    deps.kube.replaceStatus(coordinates, { ...work, status }),
  );
  if (written && failures.length > 0)
    deps.events.record(work, 'Warning', 'ApplyFailed', status.message ?? '');
  return retry;
}

/**
 * A deleted Work: every object it applied is deleted, and once they are all gone its finalizer
 * comes off. Returns when to look again while some are still going.
 */
async function removeApplied(work: Work, deps: WorkDeps): Promise<number | undefined> {
  if (!work.metadata.finalizers?.includes(FINALIZER_APPLIED_OBJECTS)) return undefined;
  const promise = work.metadata.labels?.[LABEL_PROMISE];
  let left = 0;
  for (const o of promise ? (work.status?.applied ?? []) : []) {
    const info = await deps.discovery.resource(o.apiVersion ?? '', o.kind ?? '');
    if (!info) continue; // its API is gone, and the object with it
    if (await deleteObject(deps.kube.as(deps.actAs(promise ?? '')), work, info, o)) left++;
  }
  if (left > 0) return 1000;
  await setFinalizers(
    work,
    (work.metadata.finalizers ?? []).filter((f) => f !== FINALIZER_APPLIED_OBJECTS),
    deps,
  );
  log.info({ work: `${work.metadata.namespace}/${work.metadata.name}` }, 'applied objects removed');
  return undefined;
}

async function setFinalizers(work: Work, finalizers: string[], deps: WorkDeps): Promise<void> {
  await deps.kube.patch(
    { ...crd('works', work.metadata.namespace ?? ''), name: work.metadata.name ?? '' },
    { metadata: { finalizers, resourceVersion: work.metadata.resourceVersion } },
  );
}

/** After a partial failure, what was applied before is still recorded, so a later pass can prune it. */
function mergeApplied(before: AppliedObject[], now: AppliedObject[]): AppliedObject[] {
  const out = new Map(before.map((o) => [manifestKey(o), o]));
  for (const o of now) out.set(manifestKey(o), o);
  return [...out.values()];
}
