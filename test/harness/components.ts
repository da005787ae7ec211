// The shared local components (webhook, controller, runtimed) say on krt_informer_watching whether
// each of their caches has a watch open. A suite that restarts the API server leaves them backing
// off (up to 30 s, and a component killed by a suite is restarted by its supervisor), and a cache
// that has not reconnected misses what the next suite writes. So every suite starts only once all
// of them watch again: waiting on their state, not on the clock.
import { readFileSync } from 'node:fs';
import { get } from 'node:https';
import { join } from 'node:path';
import { WATCHING_METRIC } from '../../src/kube/informer-metrics.js';
import { eventually } from './eventually.js';
import { stateDir } from './paths.js';
import { localPort } from './processes.js';

/** How long a suite waits for the components to watch again: their longest backoff and then some. */
export const RECONNECT_WAIT_MS = 90_000;

/** A component that hangs (stopped, say) must not hang the wait: each request gets 2 s. */
const ASK_MS = 2000;

const ENDPOINTS = {
  webhook: () => `https://127.0.0.1:${localPort('WEBHOOK_PORT')}/metrics`,
  controller: () => `http://127.0.0.1:${localPort('CONTROLLER_PORT')}/metrics`,
  runtimed: () => `https://127.0.0.1:${localPort('RUNTIMED_PORT')}/metrics`,
};
export type Component = keyof typeof ENDPOINTS;

/** A local component's /metrics text ('' when it answers with an error status). */
export function metricsOf(component: Component): Promise<string> {
  const url = ENDPOINTS[component]();
  if (url.startsWith('http:'))
    return fetch(url, { signal: AbortSignal.timeout(ASK_MS) }).then((r) => (r.ok ? r.text() : ''));
  const ca = readFileSync(join(stateDir, 'pki', 'ca.crt'));
  return new Promise((resolve, reject) => {
    const req = get(url, { ca, timeout: ASK_MS }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve(res.statusCode === 200 ? text : ''));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer in ${ASK_MS} ms`)));
    req.on('error', reject);
  });
}

/** Per component: "watching", or what is not (its informers at 0, or that it does not answer). */
export async function componentWatches(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const component of Object.keys(ENDPOINTS) as Component[]) {
    const text = await metricsOf(component).catch((e: Error) => `error: ${e.message}`);
    const samples = [...text.matchAll(new RegExp(`^${WATCHING_METRIC}\\{([^}]*)\\} (\\d+)`, 'gm'))];
    const idle = samples.filter((m) => m[2] !== '1').map((m) => m[1]);
    out[component] =
      samples.length === 0
        ? `no ${WATCHING_METRIC} (${text.startsWith('error') ? text : 'not answering yet'})`
        : idle.length === 0
          ? 'watching'
          : `not watching: ${idle.join('; ')}`;
  }
  return out;
}

/** Resolves once every shared component has all its watches open. */
export async function componentsWatching(timeoutMs = RECONNECT_WAIT_MS): Promise<void> {
  let last: Record<string, string> = {};
  let first: Record<string, string> | undefined;
  const started = Date.now();
  await eventually(
    async () => {
      last = await componentWatches();
      first ??= last;
      return Object.values(last).every((s) => s === 'watching');
    },
    timeoutMs,
    () => `the local components to watch again: ${JSON.stringify(last)}`,
  );
  // Said in the run's output, so a suite's slow start is explained.
  if (Date.now() - started > 1000)
    process.stderr.write(
      `components watched again after ${Date.now() - started} ms (at first: ${JSON.stringify(first)})\n`,
    );
}
