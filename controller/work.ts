// The Work reconciler: the plan of src/plan/work.ts through the planned loop. Each object of a Work
// server-side applied (field manager kruntimes), the objects a newer Work dropped deleted, the
// result in the Work's status. Each Work acts as its Promise's service account (work-objects.ts),
// never with the controller's own rights: what a Promise may create is what its author granted
// that account (docs/promises.md, RBAC).
import type { Result } from '../src/kube/controller/controller.js';
import { reconcilePlanned } from '../src/kube/controller/planned.js';
import type { Work, WorkStatus } from '../src/api/types.js';
import type { KubeAccess } from '../src/kube/access.js';
import { crd, statusMessage, type KubeClient } from '../src/kube/rest.js';
import type { Discovery, ResourceInfo } from '../src/kube/discovery.js';
import type { ResilientInformer } from '../src/kube/informer.js';
import { isTransient } from '../src/kube/retry.js';
import { manifestKey, type Manifest } from '../src/promise/documents.js';
import {
  describeObject,
  planWork,
  workActionId,
  workDone,
  type WorkAction,
  type WorkDone,
  type WorkPlan,
} from '../src/plan/work.js';
import { log } from '../src/telemetry/log.js';
import { LABEL_PROMISE } from '../src/labels.js';
import { applyObject, deleteObject, NotTheWorks } from './work-objects.js';
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
  const kinds = await kindsOf(work, deps.discovery);
  const done = workDone();
  const promise = work.metadata.labels?.[LABEL_PROMISE];
  const as = promise ? deps.kube.as(deps.actAs(promise)) : deps.kube;
  const coordinates = { ...crd('works', namespace), name };
  return reconcilePlanned<Work, WorkStatus, WorkAction<ResourceInfo>, WorkPlan<ResourceInfo>>({
    object: work,
    statusOf: (w) => w.status,
    plan: (now) => planWork({ work, kindOf: (v, k) => kinds.get(kindKey(v, k)), done, now }),
    ends: (a) => a.type === 'addFinalizer', // the update comes back through the cache
    replanAfter: (a) => a.type === 'apply' || a.type === 'delete',
    id: workActionId,
    apply: (a) => applyWorkAction(a, work, { kube: deps.kube, as, done, key }),
    failed: (a, e) => {
      if (a.type === 'apply' && (e instanceof NotTheWorks || !isTransient(e))) {
        done.refused.set(manifestKey(a.id), statusMessage(e));
        return 'replan';
      }
      if (a.type === 'delete' && a.why === 'prune') {
        done.pruneFailed.set(manifestKey(a.object), statusMessage(e));
        return 'replan';
      }
      // A transient failure is retried with backoff, before a status that would not be true.
      return 'fatal';
    },
    gone: (plan) => plan.gone === true,
    writeStatus: (target, status) => deps.kube.replaceStatus(coordinates, { ...target, status }),
    announce: (_before, after) => {
      if (after.conditions?.some((c) => c.type === 'Applied' && c.status === 'False'))
        deps.events.record(work, 'Warning', 'ApplyFailed', after.message ?? '');
    },
    clock: deps.clock,
  });
}

async function applyWorkAction(
  a: WorkAction<ResourceInfo>,
  work: Work,
  c: { kube: KubeClient; as: KubeClient; done: WorkDone; key: string },
): Promise<void> {
  switch (a.type) {
    case 'addFinalizer':
    case 'removeFinalizer':
      await c.kube.patch(
        { ...crd('works', work.metadata.namespace ?? ''), name: work.metadata.name ?? '' },
        { metadata: { finalizers: a.finalizers, resourceVersion: work.metadata.resourceVersion } },
      );
      if (a.type === 'removeFinalizer') log.info({ work: c.key }, 'applied objects removed');
      return;
    case 'apply':
      await applyObject(c.as, work, a.kind, a.object);
      c.done.applied.add(manifestKey(a.id));
      return;
    case 'delete': {
      const k = manifestKey(a.object);
      c.done.deleted.add(k);
      const there = await deleteObject(c.as, work, a.kind, a.object);
      if (there) c.done.stillThere.add(k);
      if (there && a.why === 'prune') log.info({ work: c.key, object: describeObject(a.object) }, 'pruned');
      return;
    }
  }
}

const kindKey = (apiVersion: string, kind: string) => `${apiVersion}\u0000${kind}`;

/** Discovery's answer for every kind the Work names or applied, asked before it is planned. */
async function kindsOf(work: Work, discovery: Discovery): Promise<Map<string, ResourceInfo | undefined>> {
  const kinds = new Map<string, ResourceInfo | undefined>();
  const named = [...((work.spec.objects ?? []) as Manifest[]), ...(work.status?.applied ?? [])];
  for (const o of named) {
    const k = kindKey(o.apiVersion ?? '', o.kind ?? '');
    if (!kinds.has(k)) kinds.set(k, await discovery.resource(o.apiVersion ?? '', o.kind ?? ''));
  }
  return kinds;
}
