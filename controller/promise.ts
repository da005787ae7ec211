// The Promise reconciler: install the resource API's CRD (server-side apply, owned by the Promise so
// it goes with it), start the reconciler of its resources once the API is served, and say in the
// Promise's status whether it is available and how many of its resources are configured.
import type * as k8s from '@kubernetes/client-node';
import type { PromiseObject, PromiseStatus, ResourceObject } from '../src/api/types.js';
import { API_VERSION, GROUP, VERSION } from '../src/api/crds.js';
import { statusCode, statusMessage } from '../src/kube/client.js';
import type { ResilientInformer } from '../src/kube/informer.js';
import { serverSideApply } from '../src/kube/raw.js';
import { deepEqual } from '../src/helpers.js';
import { formatFieldError } from '../src/fielderror.js';
import { installableCrd, resourceApi, resourceApiErrors, type ResourceApi } from '../src/promise/api.js';
import { workflowHash } from '../src/promise/pipeline.js';
import type { EventRecorder } from './events.js';
import { withoutTimes } from './workflowrun.js';

/** On an installed CRD: the generation of the Promise it was applied from. */
const ANNOTATION_GENERATION = 'kruntimes.io/promise-generation';

export interface Crd {
  metadata: k8s.V1ObjectMeta;
  status?: { conditions?: { type: string; status: string; message?: string }[] };
}

export interface PromiseDeps {
  kc: k8s.KubeConfig;
  promises: ResilientInformer<PromiseObject>;
  crds: ResilientInformer<Crd>;
  custom: k8s.CustomObjectsApi;
  events: EventRecorder;
  /** Starts (or keeps) the reconciler of the Promise's resources; returns their cache. */
  serve: (promise: string, api: ResourceApi) => Promise<ResilientInformer<ResourceObject>>;
  /** Whether the Promise's resources are served already (at this API). */
  isServed: (promise: string, api: ResourceApi) => boolean;
  /** The verbs on the API (and its status) the controller lacks, from SelfSubjectAccessReviews. */
  missingRights: (api: ResourceApi) => Promise<string[]>;
  /** Stops the reconciler of a Promise that is gone. */
  unserve: (promise: string) => Promise<void>;
  writes?: { inc(labels: { verb: string; resource: string }): void };
}

export async function reconcilePromise(key: string, deps: PromiseDeps): Promise<void> {
  const name = key.split('/')[1] ?? '';
  const promise = deps.promises.get('', name);
  if (!promise || promise.metadata.deletionTimestamp) return deps.unserve(name);
  const now = new Date().toISOString();
  const api = resourceApi(promise);
  let status: PromiseStatus;
  if (!api) {
    const why = resourceApiErrors(promise.spec.api).map(formatFieldError).join('; ');
    status = promiseStatus(promise, 'False', 'InvalidAPI', why, now);
  } else {
    status = await install(promise, api, deps, now);
  }
  if (deepEqual(withoutTimes(promise.status ?? {}), withoutTimes(status))) return;
  deps.writes?.inc({ verb: 'update', resource: 'promises/status' });
  await deps.custom.replaceClusterCustomObjectStatus({
    group: GROUP,
    version: VERSION,
    plural: 'promises',
    name,
    body: { ...promise, status },
  });
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
  const ours = current?.metadata.ownerReferences?.some((o) => o.uid === promise.metadata.uid);
  if (!ours || current?.metadata.annotations?.[ANNOTATION_GENERATION] !== generation) {
    const refused = await applyCrd(promise, crd, crdName, generation, deps);
    if (refused) return promiseStatus(promise, 'False', 'APIRefused', refused, now, api);
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

/** Server-side apply of the CRD, owned by the Promise; a refusal's message, or undefined. */
async function applyCrd(
  promise: PromiseObject,
  crd: Record<string, unknown>,
  crdName: string,
  generation: string,
  deps: PromiseDeps,
): Promise<string | undefined> {
  try {
    deps.writes?.inc({ verb: 'apply', resource: 'customresourcedefinitions' });
    await serverSideApply(deps.kc, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName}`, {
      ...crd,
      metadata: {
        ...(crd.metadata as object),
        annotations: { [ANNOTATION_GENERATION]: generation },
        ownerReferences: [
          {
            apiVersion: API_VERSION,
            kind: 'Promise',
            name: promise.metadata.name ?? '',
            uid: promise.metadata.uid ?? '',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
    });
    return undefined;
  } catch (e) {
    const code = statusCode(e);
    if (code === undefined || code === 429 || code >= 500) throw e;
    return `the API server refused the CRD "${crdName}": ${statusMessage(e)}`;
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
  const cond = (type: string) => {
    const old = promise.status?.conditions?.find((c) => c.type === type);
    return {
      type,
      status: value,
      reason,
      message,
      ...(gen !== undefined ? { observedGeneration: gen } : {}),
      lastTransitionTime:
        old?.status === value && old.reason === reason ? (old.lastTransitionTime ?? now) : now,
    };
  };
  return {
    ...(gen !== undefined ? { observedGeneration: gen } : {}),
    conditions: [cond('Available'), cond('Ready')],
    ...(api ? { api: { group: api.group, version: api.version, kind: api.kind, plural: api.plural } } : {}),
    message,
  };
}
