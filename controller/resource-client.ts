// Calls on a Promise's resources, which are namespaced or cluster-scoped as its API says.
import type { ResourceObject } from '../src/api/types.js';
import type { KubeClient, ObjectCoordinates } from '../src/kube/rest.js';
import type { ResourceApi } from '../src/promise/api.js';

type Target = Pick<ResourceObject, 'metadata'>;

/** The resource's coordinates: with its namespace, or none when its API is cluster-scoped. */
function at(api: ResourceApi, r: Target): ObjectCoordinates {
  return {
    group: api.group,
    version: api.version,
    plural: api.plural,
    name: r.metadata.name ?? '',
    ...(r.metadata.namespace ? { namespace: r.metadata.namespace } : {}),
  };
}

/** A merge patch of the resource; returns it as patched. */
export function patchResource(
  kube: KubeClient,
  api: ResourceApi,
  r: Target,
  body: object,
): Promise<ResourceObject> {
  return kube.patch<ResourceObject>(at(api, r), body);
}

export function replaceResourceStatus(
  kube: KubeClient,
  api: ResourceApi,
  r: Target,
  body: object,
): Promise<unknown> {
  return kube.replaceStatus(at(api, r), body);
}

export function deleteResource(kube: KubeClient, api: ResourceApi, r: Target): Promise<void> {
  return kube.delete(at(api, r), { propagationPolicy: 'Background' });
}
