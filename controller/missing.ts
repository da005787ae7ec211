// A job or pipeline fails for good on a missing Workflow, so a cache miss is not taken as the
// answer: a Workflow created just before what calls it may not have reached the cache yet.
import type * as k8s from '@kubernetes/client-node';
import { crd, statusCode } from '../src/kube/client.js';

/** How soon to plan again when the API server has a Workflow the cache does not. */
export const CACHE_LAG_RETRY_MS = 500;

/** The first of `refs` the API server has, if any; errors other than 404 are thrown (retried). */
export async function existingWorkflow(
  custom: k8s.CustomObjectsApi,
  refs: { namespace: string; name: string }[],
): Promise<{ namespace: string; name: string } | undefined> {
  for (const ref of refs) {
    try {
      await custom.getNamespacedCustomObject({ ...crd('workflows', ref.namespace), name: ref.name });
      return ref;
    } catch (e) {
      if (statusCode(e) !== 404) throw e;
    }
  }
  return undefined;
}
