// The step Pod's two writes, each riding out what passes: a busy API server (429, 5xx, a Pod
// webhook timing out) up to --pod-stuck-seconds and, for the create, a full ResourceQuota for as
// long as it is full; only a refusal that would repeat fails the step at once.
import { isQuotaExceeded, isTransient, retryTransient } from '../src/kube/retry.js';
import { core, statusCode, statusMessage, type Coordinates, type KubeClient } from '../src/kube/rest.js';
import { log } from '../src/telemetry/log.js';

export const podPath = (ns: string, name = '') => `/api/v1/namespaces/${ns}/pods${name ? `/${name}` : ''}`;
/** The Pods of a namespace, for KubeClient. */
export const pods = (namespace: string): Coordinates => core('pods', namespace);

export async function createStepPod(
  kube: KubeClient,
  ns: string,
  body: object,
  o: {
    stuckMs: number;
    /** The step was stopped meanwhile: no more tries. */
    abandoned: () => boolean;
    /** Why it waits, for the Run's message. */
    waiting: (why: string) => void;
  },
): Promise<unknown> {
  // A full quota is waited for as long as it lasts, as a Job's Pods wait for it (the Run says so,
  // and can be cancelled); a busy API server only up to the bound.
  for (;;) {
    try {
      return await retryTransient(() => kube.create(pods(ns), body), {
        deadlineMs: o.stuckMs,
        minDelayMs: 1000,
        // Often enough that a quota freed is used within seconds; one request per step each time.
        maxDelayMs: 5000,
        retryable: (e) => isTransient(e) || isQuotaExceeded(e),
        abandoned: o.abandoned,
        onRetry: (e, delayMs) => {
          const kind = isQuotaExceeded(e) ? 'QuotaExceeded' : 'APIServerBusy';
          o.waiting(`${kind}: waiting to create the step Pod: ${statusMessage(e)}`);
          log.info(
            { namespace: ns, err: statusMessage(e), delayMs },
            'step Pod not created yet; trying again',
          );
        },
      });
    } catch (e) {
      if (!isQuotaExceeded(e) || o.abandoned()) throw e;
    }
  }
}

/**
 * Deletes the Pod of this uid (none: whatever has the name); gone already is fine. False when it
 * could not be deleted (logged): the caller decides whether the Run may end all the same.
 */
export async function deleteStepPod(
  kube: KubeClient,
  ns: string,
  name: string,
  uid: string | undefined,
  graceMs: number,
): Promise<boolean> {
  const gracePeriodSeconds = Math.ceil(graceMs / 1000);
  try {
    await retryTransient(() => kube.delete({ ...pods(ns), name }, { uid, gracePeriodSeconds }), {
      deadlineMs: 60_000,
      minDelayMs: 500,
    });
    return true;
  } catch (e) {
    if (statusCode(e) === 404 || statusCode(e) === 409) return true;
    log.error({ run: `${ns}/${name}`, err: String(e) }, 'could not delete the step Pod');
    return false;
  }
}
