// The Promise reconciler: install the resource API's CRD (server-side apply, owned by the Promise so
// it goes with it), start the reconciler of its resources once the API is served, and say in the
// Promise's status whether it is available and how many of its resources are configured.
import type { ObjectMeta, PromiseObject, PromiseStatus, ResourceObject } from '../src/api/types.js';
import { GROUP, VERSION } from '../src/api/crds.js';
import { condition, controllerReference } from '../src/api/objects.js';
import type { Result } from '../src/kube/controller/controller.js';
import { writeStatusIfChanged } from '../src/kube/controller/planned.js';
import { isTransient } from '../src/kube/retry.js';
import { statusCode, statusMessage, type KubeClient } from '../src/kube/rest.js';
import type { ResilientInformer } from '../src/kube/informer.js';
import {
  FINALIZER_PROMISE_RESOURCES,
  LABEL_MANUAL_RECONCILIATION,
  LABEL_RECONCILE_RESOURCES,
} from '../src/labels.js';
import { formatFieldError } from '../src/fielderror.js';
import { installableCrd, resourceApi, resourceApiErrors, type ResourceApi } from '../src/promise/api.js';
import { workflowHash } from '../src/promise/pipeline.js';
import { crdConflict, crdOwnedBy, type CrdMeta } from '../src/promise/ownership.js';
import type { EventRecorder } from './events.js';
import {
  reconcilePromiseWorkflow,
  type PromiseWorkflowDeps,
  type PromiseWorkflowOutcome,
} from './promise-workflow.js';
import { deleteResource, patchResource } from './resource-client.js';

const PROMISES = { group: GROUP, version: VERSION, plural: 'promises' };
const CRDS = { group: 'apiextensions.k8s.io', version: 'v1', plural: 'customresourcedefinitions' };

/** On an installed CRD: the generation of the Promise it was applied from. */
const ANNOTATION_GENERATION = 'kruntimes.io/promise-generation';

export interface Crd extends CrdMeta {
  metadata: ObjectMeta & CrdMeta['metadata'];
  status?: { conditions?: { type: string; status: string; message?: string }[] };
}

export interface PromiseDeps extends PromiseWorkflowDeps {
  promises: ResilientInformer<PromiseObject>;
  crds: ResilientInformer<Crd>;
  kube: KubeClient;
  events: EventRecorder;
  /** Starts (or keeps) the reconciler of the Promise's resources; returns their cache. */
  serve: (promise: string, api: ResourceApi) => Promise<ResilientInformer<ResourceObject>>;
  /** Whether the Promise's resources are served already (at this API). */
  isServed: (promise: string, api: ResourceApi) => boolean;
  /** The verbs on the API (and its status) the controller lacks, from SelfSubjectAccessReviews. */
  missingRights: (api: ResourceApi) => Promise<string[]>;
  /** Stops the reconciler of a Promise that is gone. */
  unserve: (promise: string) => Promise<void>;
}

export async function reconcilePromise(key: string, deps: PromiseDeps): Promise<Result | void> {
  const name = key.split('/')[1] ?? '';
  const promise = deps.promises.get('', name);
  if (!promise) return deps.unserve(name);
  const clock = new Date();
  const now = clock.toISOString();
  const api = resourceApi(promise);
  const finalizers = promise.metadata.finalizers ?? [];
  if (promise.metadata.deletionTimestamp) {
    if (!finalizers.includes(FINALIZER_PROMISE_RESOURCES)) return deps.unserve(name);
    const progress = await teardown(promise, api, deps, now);
    if (progress) return writeStatus(promise, progress, deps);
    // Its resources are gone: now its own delete workflow, then its Works.
    const own = await reconcilePromiseWorkflow(promise, deps, clock);
    if (own?.lag) return { requeueAfter: own.requeueAfter ?? 0 };
    if (own?.patched) return afterOwn(own); // the update comes back through the cache
    if (own?.holding) {
      const message = own.message ?? 'running the delete workflow of the Promise';
      await writeStatus(
        promise,
        withOwn(promiseStatus(promise, 'False', 'Deleting', message, now, api), own),
        deps,
      );
      return afterOwn(own);
    }
    if (own?.transient !== undefined) throw own.transient;
    await setFinalizers(
      promise,
      finalizers.filter((f) => f !== FINALIZER_PROMISE_RESOURCES),
      deps,
    );
    return deps.unserve(name);
  }
  // On before anything is installed: a Promise never goes without taking its resources along.
  if (!finalizers.includes(FINALIZER_PROMISE_RESOURCES)) {
    await setFinalizers(promise, [...finalizers, FINALIZER_PROMISE_RESOURCES], deps);
    return undefined; // the update comes back through the cache
  }
  let status: PromiseStatus;
  const own = api ? await reconcilePromiseWorkflow(promise, deps, clock) : undefined;
  if (own?.lag) return { requeueAfter: own.requeueAfter ?? 0 };
  if (own?.patched) return afterOwn(own); // the update comes back through the cache
  if (!api) {
    const why = resourceApiErrors(promise.spec.api).map(formatFieldError).join('; ');
    status = promiseStatus(promise, 'False', 'InvalidAPI', why, now);
  } else if (own && !own.succeeded && !installedBefore(promise, api, deps)) {
    // The API is served once the Promise's own configure workflow first succeeded (docs/promises.md).
    const failed = own.kruntimes?.workflows?.phase === 'Failed';
    status = promiseStatus(
      promise,
      'False',
      failed ? 'PromiseWorkflowFailed' : 'PromiseWorkflowPending',
      own.message ?? 'waiting for the configure workflow of the Promise',
      now,
      api,
    );
  } else {
    status = await install(promise, api, deps, now);
  }
  await writeStatus(promise, withOwn(status, own), deps);
  return own ? afterOwn(own) : undefined;
}

/** After the status is written: the own workflow's transient failure (retried with backoff), or its requeue. */
function afterOwn(own: PromiseWorkflowOutcome): Result | undefined {
  if (own.transient !== undefined) throw own.transient;
  return own.requeueAfter !== undefined ? { requeueAfter: own.requeueAfter } : undefined;
}

/** The Promise's status with its own workflows' record and conditions, when it has them. */
function withOwn(status: PromiseStatus, own: PromiseWorkflowOutcome | undefined): PromiseStatus {
  if (!own) return status;
  return {
    ...status,
    ...(own.kruntimes ? { kruntimes: own.kruntimes } : {}),
    conditions: [...(status.conditions ?? []), ...own.conditions],
  };
}

/** Whether this Promise's API was installed already: a later round of its workflow keeps it served. */
function installedBefore(promise: PromiseObject, api: ResourceApi, deps: PromiseDeps): boolean {
  const current = deps.crds.get('', `${api.plural}.${api.group}`);
  return current !== undefined && crdOwnedBy(current, promise);
}

async function writeStatus(promise: PromiseObject, status: PromiseStatus, deps: PromiseDeps): Promise<void> {
  const name = promise.metadata.name ?? '';
  const written = await writeStatusIfChanged(promise.status, status, () =>
    deps.kube.replaceStatus({ ...PROMISES, name }, { ...promise, status }),
  );
  if (!written) return;
  const was = promise.status?.conditions?.find((c) => c.type === 'Available');
  const is = status.conditions?.find((c) => c.type === 'Available');
  if (is && (was?.status !== is.status || was.reason !== is.reason))
    deps.events.record(
      promise,
      is.status === 'True' ? 'Normal' : 'Warning',
      is.reason ?? '',
      is.message ?? '',
    );
}

/**
 * A deleted Promise: every resource of its API is deleted (each through its own delete pipeline),
 * then the CRD. Returns the status to show while that goes on, or undefined once all is gone.
 */
async function teardown(
  promise: PromiseObject,
  api: ResourceApi | undefined,
  deps: PromiseDeps,
  now: string,
): Promise<PromiseStatus | undefined> {
  const crdName = api ? `${api.plural}.${api.group}` : undefined;
  const crd = crdName ? deps.crds.get('', crdName) : undefined;
  // A CRD this Promise did not create is another's API: neither it nor its objects are touched.
  if (!api || !crd || !crdOwnedBy(crd, promise)) return undefined;
  const established = crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
  // Resources are listed where the controller may; otherwise deleting the CRD takes them along.
  const servable =
    established &&
    !crd.metadata.deletionTimestamp &&
    (deps.isServed(promise.metadata.name ?? '', api) || (await deps.missingRights(api)).length === 0);
  if (servable) {
    const resources = (await deps.serve(promise.metadata.name ?? '', api)).list();
    for (const r of resources) {
      if (r.metadata.deletionTimestamp) continue;
      await deleteResource(deps.kube, api, r).catch((e: unknown) => {
        if (statusCode(e) !== 404) throw e;
      });
    }
    if (resources.length > 0)
      return {
        ...promiseStatus(
          promise,
          'False',
          'Deleting',
          `deleting: ${resources.length} resource(s) left`,
          now,
          api,
        ),
        resources: resources.length,
        summary: `deleting, ${resources.length} left`,
      };
  }
  if (!crd.metadata.deletionTimestamp) {
    // The uid precondition: a CRD replaced since the cache saw it is not deleted.
    await deps.kube
      .delete({ ...CRDS, name: crdName ?? '' }, { uid: crd.metadata.uid })
      .catch((e: unknown) => {
        if (statusCode(e) !== 404 && statusCode(e) !== 409) throw e;
      });
  }
  return promiseStatus(promise, 'False', 'Deleting', `deleting the API ${crdName}`, now, api);
}

/**
 * The Promise's reconcile-resources label: every resource of its API gets the manual-reconciliation
 * label (its configure workflow runs again, as a user's label would make it), then the Promise's
 * label goes. A crash in between labels again, which loses nothing. The label is read from the API
 * server first: the cache can still show it after it went, and by then a resource may have used its
 * own label already, so labelling again would run its workflow twice.
 */
export async function reconcileAll(
  promise: PromiseObject,
  api: ResourceApi,
  resources: ResourceObject[],
  deps: PromiseDeps,
): Promise<void> {
  const live = await deps.kube
    .get<PromiseObject>({ ...PROMISES, name: promise.metadata.name ?? '' })
    .catch((e: unknown) => {
      if (statusCode(e) === 404) return undefined;
      throw e;
    });
  if (live?.metadata.labels?.[LABEL_RECONCILE_RESOURCES] !== 'true') return;
  for (const r of resources) {
    if (r.metadata.deletionTimestamp || r.metadata.labels?.[LABEL_MANUAL_RECONCILIATION] === 'true') continue;
    await patchResource(deps.kube, api, r, {
      metadata: { labels: { [LABEL_MANUAL_RECONCILIATION]: 'true' } },
    }).catch((e: unknown) => {
      if (statusCode(e) !== 404) throw e;
    });
  }
  await patchMetadata(promise, { labels: { [LABEL_RECONCILE_RESOURCES]: null } }, deps);
  deps.events.record(
    promise,
    'Normal',
    'ResourcesReconciling',
    `the configure workflow of ${resources.length} resource(s) runs again (label ${LABEL_RECONCILE_RESOURCES})`,
  );
}

function setFinalizers(promise: PromiseObject, finalizers: string[], deps: PromiseDeps): Promise<void> {
  return patchMetadata(promise, { finalizers, resourceVersion: promise.metadata.resourceVersion }, deps);
}

/** A merge patch of the Promise's metadata (its labels, its finalizers). */
async function patchMetadata(promise: PromiseObject, metadata: object, deps: PromiseDeps): Promise<void> {
  await deps.kube.patch({ ...PROMISES, name: promise.metadata.name ?? '' }, { metadata });
}

async function install(
  promise: PromiseObject,
  api: ResourceApi,
  deps: PromiseDeps,
  now: string,
): Promise<PromiseStatus> {
  const crd = installableCrd(promise);
  const crdName = (crd.metadata as { name: string }).name;
  const generation = String(promise.metadata.generation ?? '');
  // Applied for this generation already (its annotation says so): counting resources writes nothing.
  const current = deps.crds.get('', crdName);
  if (current && !crdOwnedBy(current, promise))
    return promiseStatus(promise, 'False', 'APIConflict', crdConflict(crdName, current), now, api);
  if (current?.metadata.annotations?.[ANNOTATION_GENERATION] !== generation) {
    const refused = await applyCrd(promise, crd, crdName, generation, current, deps);
    if (refused) return promiseStatus(promise, 'False', refused.reason, refused.message, now, api);
  }
  const established = deps.crds.get('', crdName)?.status?.conditions?.find((c) => c.type === 'Established');
  if (established?.status !== 'True')
    return promiseStatus(
      promise,
      'False',
      'APIPending',
      `waiting for the API server to serve ${api.plural}.${api.group}`,
      now,
      api,
    );
  // Without these rights the resources cannot be listed, and their reconciler would wait for ever.
  const missing = deps.isServed(promise.metadata.name ?? '', api) ? [] : await deps.missingRights(api);
  if (missing.length > 0)
    return promiseStatus(
      promise,
      'False',
      'Forbidden',
      `the controller may not ${missing.join(', ')} ${api.plural}.${api.group}: grant it with a ClusterRole labelled kruntimes.io/aggregate-to-promises: "true"`,
      now,
      api,
    );
  const resources = (await deps.serve(promise.metadata.name ?? '', api)).list();
  if (promise.metadata.labels?.[LABEL_RECONCILE_RESOURCES] === 'true')
    await reconcileAll(promise, api, resources, deps);
  const configured = resources.filter((r) => {
    const w = r.status?.kruntimes?.workflows;
    return w?.phase === 'Succeeded' && w.hash === workflowHash(r, promise);
  }).length;
  return {
    ...promiseStatus(
      promise,
      'True',
      'APIAvailable',
      `${api.kind} (${api.group}/${api.version}) is served`,
      now,
      api,
    ),
    resources: resources.length,
    configured,
    summary: `${configured}/${resources.length}`,
  };
}

type Refusal = { reason: 'APIRefused' | 'APIConflict'; message: string };

/**
 * The CRD made for the Promise: created when there is none (a CRD that appeared meanwhile is not
 * taken over), else applied with the uid of the one the cache holds as a precondition. A refusal,
 * or undefined.
 */
async function applyCrd(
  promise: PromiseObject,
  crd: Record<string, unknown>,
  crdName: string,
  generation: string,
  current: Crd | undefined,
  deps: PromiseDeps,
): Promise<Refusal | undefined> {
  const metadata = {
    ...(crd.metadata as object),
    annotations: { [ANNOTATION_GENERATION]: generation },
    ownerReferences: [controllerReference(promise)],
  };
  try {
    if (current) {
      await deps.kube.apply(
        { ...CRDS, name: crdName },
        { ...crd, metadata: { ...metadata, uid: current.metadata.uid } },
      );
    } else {
      await deps.kube.create(CRDS, { ...crd, metadata }, 'kruntimes');
    }
    return undefined;
  } catch (e) {
    if (isTransient(e)) throw e;
    if (statusCode(e) === 409) {
      const found = await deps.kube.get<Crd>({ ...CRDS, name: crdName }).catch(() => undefined);
      // Ours after all (the cache was behind): the next pass applies it.
      if (found && crdOwnedBy(found, promise)) throw e;
      return { reason: 'APIConflict', message: crdConflict(crdName, found ?? { metadata: {} }) };
    }
    return {
      reason: 'APIRefused',
      message: `the API server refused the CRD "${crdName}": ${statusMessage(e)}`,
    };
  }
}

function promiseStatus(
  promise: PromiseObject,
  value: 'True' | 'False',
  reason: string,
  message: string,
  now: string,
  api?: ResourceApi,
): PromiseStatus {
  const gen = promise.metadata.generation;
  const cond = (type: string) =>
    condition(promise.status?.conditions, { type, status: value, reason, message }, gen, now);
  return {
    ...(gen !== undefined ? { observedGeneration: gen } : {}),
    conditions: [cond('Available'), cond('Ready')],
    ...(api ? { api: { group: api.group, version: api.version, kind: api.kind, plural: api.plural } } : {}),
    message,
  };
}
