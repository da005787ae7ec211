// Calls on a Promise's resources, which are namespaced or cluster-scoped as its API says: the custom
// objects client names the two kinds of path with different methods.
import * as k8s from '@kubernetes/client-node';
import type { ResourceObject } from '../src/api/types.js';
import type { ResourceApi } from '../src/promise/api.js';

type Target = Pick<ResourceObject, 'metadata'>;

const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

function path(api: ResourceApi, r: Target) {
  return { group: api.group, version: api.version, plural: api.plural, name: r.metadata.name ?? '' };
}

/** A merge patch of the resource; returns it as patched. */
export async function patchResource(
  custom: k8s.CustomObjectsApi,
  api: ResourceApi,
  r: Target,
  body: object,
): Promise<ResourceObject> {
  const namespace = r.metadata.namespace;
  return (await (namespace
    ? custom.patchNamespacedCustomObject({ ...path(api, r), namespace, body }, merge)
    : custom.patchClusterCustomObject({ ...path(api, r), body }, merge))) as ResourceObject;
}

export async function replaceResourceStatus(
  custom: k8s.CustomObjectsApi,
  api: ResourceApi,
  r: Target,
  body: object,
): Promise<unknown> {
  const namespace = r.metadata.namespace;
  return namespace
    ? custom.replaceNamespacedCustomObjectStatus({ ...path(api, r), namespace, body })
    : custom.replaceClusterCustomObjectStatus({ ...path(api, r), body });
}

export async function deleteResource(
  custom: k8s.CustomObjectsApi,
  api: ResourceApi,
  r: Target,
): Promise<unknown> {
  const namespace = r.metadata.namespace;
  const propagationPolicy = 'Background';
  return namespace
    ? custom.deleteNamespacedCustomObject({ ...path(api, r), namespace, propagationPolicy })
    : custom.deleteClusterCustomObject({ ...path(api, r), propagationPolicy });
}
