// Whether each cache is live, for operators (a component whose informer backs off after an API
// server outage serves what it had until its next try, up to the 30 s backoff later) and for tests
// that must not start while a component still waits to reconnect.
import { Gauge, type Registry } from 'prom-client';
import type { ResilientInformer } from './informer.js';

/** What the gauge reads of an informer, of whatever kind of object. */
type Watched = Pick<ResilientInformer<never>, 'source' | 'watchOpen'>;

export const WATCHING_METRIC = 'krt_informer_watching';

/** Registers krt_informer_watching{path,selector}: 1 while the informer's watch is open, else 0. */
export function informerMetrics(registry: Registry, informers: () => Iterable<Watched>): void {
  new Gauge({
    name: WATCHING_METRIC,
    help: '1 while the informer has a watch open on the API server; 0 while it lists, or waits to try again after a failure.',
    labelNames: ['path', 'selector'],
    registers: [registry],
    collect() {
      this.reset();
      for (const i of informers())
        this.set({ path: i.source.path, selector: i.source.labelSelector }, i.watchOpen ? 1 : 0);
    },
  });
}
