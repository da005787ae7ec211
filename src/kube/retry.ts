// Retrying a write whose failure is the network's or the API server's (no answer, 429, 5xx), with
// growing pauses until a deadline. Answers about the object itself (404, 409, 422) are final.
import { statusCode } from './client.js';

export interface RetryOptions {
  deadlineMs: number;
  minDelayMs?: number;
  maxDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export function isTransient(e: unknown): boolean {
  const code = statusCode(e);
  return code === undefined || code === 429 || code >= 500;
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
      if (!isTransient(e) || now() + delay > until) throw e;
      await sleep(delay);
      delay = Math.min(delay * 2, o.maxDelayMs ?? 5000);
    }
  }
}
