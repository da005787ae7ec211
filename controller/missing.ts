// A job or pipeline fails for good on a missing Workflow, so a cache miss is not taken as the
// answer: a Workflow created just before what calls it may not have reached the cache yet.
import { crd, statusCode, type KubeClient } from '../src/kube/rest.js';
import { log } from '../src/telemetry/log.js';

/** How soon to plan again when the API server has a Workflow the cache does not. */
export const CACHE_LAG_RETRY_MS = 500;

type Ref = { namespace: string; name: string };

/** The first of `refs` the API server has, if any; errors other than 404 are thrown (retried). */
async function existingWorkflow(kube: KubeClient, refs: Ref[]): Promise<Ref | undefined> {
  for (const ref of refs) {
    try {
      await kube.get({ ...crd('workflows', ref.namespace), name: ref.name });
      return ref;
    } catch (e) {
      if (statusCode(e) !== 404) throw e;
    }
  }
  return undefined;
}

/**
 * When the API server has one of the Workflows a plan missed: how soon to plan again, and nothing
 * is written meanwhile. Undefined when they are really missing and the plan stands. Asked only
 * when a plan names some, never per reconcile.
 */
export async function retryForCacheLag(
  kube: KubeClient,
  missed: Ref[],
  of: Record<string, string>,
): Promise<number | undefined> {
  const lagging = await existingWorkflow(kube, missed);
  if (!lagging) return undefined;
  log.debug(
    { ...of, workflow: `${lagging.namespace}/${lagging.name}` },
    'a Workflow exists but is not cached yet',
  );
  return CACHE_LAG_RETRY_MS;
}
