// One watch request: a GET with watch=true whose body is one JSON event per line, read as it comes.
// The informer (src/kube/informer.ts) decides what to do when it ends; this only reports how.
import { rawStream } from './raw.js';
import type { KubeAccess } from './access.js';

export type WatchParams = Record<string, string | number | boolean | undefined>;

/** An error named so the informer reopens the watch at once (src/kube/informer.ts `endsCleanly`). */
function quiet(ms: number): Error {
  const e = new Error(`watch received nothing for ${ms} ms`);
  e.name = 'TimeoutError';
  return e;
}

/**
 * Opens a watch of `path`; resolves once the API server answered 2xx (rejects with its HttpError
 * otherwise). `onEvent` gets each event's type and object, `onDone` is called once: with nothing
 * when the server ended the watch, with the error when it broke or was aborted. A watch that
 * receives nothing for `quietMs` (no event, no bookmark) is ended, so a connection that died
 * without a word is not waited on forever.
 */
export async function watch<T>(
  kc: KubeAccess,
  path: string,
  params: WatchParams,
  onEvent: (type: string, obj: T) => void,
  onDone: (err: unknown) => void,
  quietMs = (Number(params.timeoutSeconds ?? 300) + 30) * 1000,
): Promise<{ abort(): void }> {
  const q = new URLSearchParams({ watch: 'true' });
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const controller = new AbortController();
  const res = await rawStream(kc, `${path}?${q.toString()}`, controller.signal);
  let done = false;
  let timer: NodeJS.Timeout | undefined;
  const finish = (err: unknown) => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    res.destroy();
    onDone(err);
  };
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => finish(quiet(quietMs)), quietMs);
    timer.unref();
  };
  arm();
  let pending = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    arm();
    pending += chunk;
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl).trim();
      pending = pending.slice(nl + 1);
      if (!line) continue;
      let event: { type?: string; object?: T };
      try {
        event = JSON.parse(line) as typeof event;
      } catch (e) {
        return finish(new Error(`watch ${path}: an event that is not JSON: ${String(e)}`));
      }
      if (event.type && event.object) onEvent(event.type, event.object);
    }
  });
  res.on('end', () => finish(null));
  res.on('error', (e) => finish(e));
  res.on('close', () => finish(controller.signal.aborted ? abortError() : null));
  return { abort: () => controller.abort() };
}

function abortError(): Error {
  const e = new Error('watch aborted');
  e.name = 'AbortError';
  return e;
}
