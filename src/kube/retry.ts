// Retrying a write whose failure is the network's or the API server's (no answer, 429, 5xx), with
// growing pauses until a deadline. Answers about the object itself (404, 409, 422) are final.
import { apiStatus, statusCode, statusMessage } from './rest.js';

export interface RetryOptions {
  deadlineMs: number;
  minDelayMs?: number;
  maxDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /** Which failures are worth another try (default: isTransient). */
  retryable?: (e: unknown) => boolean;
  /** Told of each failure that will be tried again, and after how long. */
  onRetry?: (e: unknown, delayMs: number) => void;
  /** Gives up before the deadline when it says so (the work was cancelled). */
  abandoned?: () => boolean;
}

export function isTransient(e: unknown): boolean {
  const code = statusCode(e);
  return code === undefined || code === 429 || code >= 500;
}

/**
 * A ResourceQuota of the namespace is full (`exceeded quota: ...`, 403): the same request succeeds
 * once something else ends, so it is waited for, not a failure. The API server's Status says only
 * Forbidden here, as for RBAC and admission denials, with no cause: its message is all that tells
 * them apart (here and in isAuthorizationDenial).
 */
export function isQuotaExceeded(e: unknown): boolean {
  return statusCode(e) === 403 && /\bexceeded quota\b/.test(statusMessage(e));
}

/** A namespace that is being deleted refuses new objects with 403: nothing to create any more. */
export function isNamespaceTerminating(e: unknown): boolean {
  if (statusCode(e) !== 403) return false;
  // The API server names the cause in the Status (NamespaceTerminating).
  return (apiStatus(e)?.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating');
}

/** A create in a namespace that no longer exists: 404 about the namespace, not the object. */
export function isNamespaceGone(e: unknown): boolean {
  return statusCode(e) === 404 && apiStatus(e)?.details?.kind === 'namespaces';
}

/**
 * RBAC said no (`User "x" cannot create resource "runs"`). Not an answer about the object: an API
 * server that has just started answers so until its authorizer's caches fill (seen under `make
 * chaos`), and a missing grant is mended by an operator; either way the write is retried, as
 * Kubernetes' own controllers do.
 */
export function isAuthorizationDenial(e: unknown): boolean {
  return statusCode(e) === 403 && /\bcannot [a-z]+ resource\b/.test(statusMessage(e));
}

/**
 * A refusal that the same request will meet again: admission denied it (a webhook or a policy), the
 * object is invalid or too large. Retrying it would only repeat the answer.
 */
export function isDeterministicRefusal(e: unknown): boolean {
  const code = statusCode(e);
  if (code === 403) return !isNamespaceTerminating(e) && !isAuthorizationDenial(e);
  return code === 400 || code === 413 || code === 422;
}

export async function retryTransient<T>(fn: () => Promise<T>, o: RetryOptions): Promise<T> {
  const now = o.now ?? Date.now;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const until = now() + o.deadlineMs;
  let delay = o.minDelayMs ?? 200;
  for (;;) {
    try {
      return await fn();
    } catch (e) {
      if (!(o.retryable ?? isTransient)(e) || now() + delay > until || o.abandoned?.()) throw e;
      o.onRetry?.(e, delay);
      await sleep(delay);
      delay = Math.min(delay * 2, o.maxDelayMs ?? 5000);
    }
  }
}
