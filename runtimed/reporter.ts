// Reporting an end: the result goes to disk first and is reported until the API server takes it, so
// no outage, however long, and no restart turns a known result into a second execution.
import type { Run } from '../src/api/types.js';
import { statusCode, statusMessage } from '../src/kube/rest.js';
import { log } from '../src/telemetry/log.js';
import type { AgentMetrics } from './agent-metrics.js';
import { keyOf, type AgentState } from './agent-state.js';
import type { ResultStore, PendingResult } from './results.js';
import type { RunWrites } from './run-writes.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Reporter {
  constructor(
    private readonly state: AgentState,
    private readonly writes: RunWrites,
    private readonly results: ResultStore,
    private readonly metrics: AgentMetrics,
    private readonly staleMs: number,
  ) {}

  /** Results an earlier life of this agent kept: reported, never executed again. */
  async resumeKept(): Promise<void> {
    for (const p of await this.results.list()) {
      this.state.reporting.add(keyOf(p.namespace, p.name));
      log.info({ run: keyOf(p.namespace, p.name), attempt: p.attempts }, 'reporting a result kept on disk');
      void this.report(p);
    }
  }

  /** Keeps the result on disk, then reports it; true once the API server took it. */
  async keepAndReport(p: PendingResult): Promise<boolean> {
    const k = keyOf(p.namespace, p.name);
    this.state.reporting.add(k);
    // A disk that refuses it (full, read-only) loses the restart guarantee, not the report.
    await this.results
      .save(p)
      .catch((e: unknown) => log.warn({ run: k, err: String(e) }, 'could not keep the result on disk'));
    return this.report(p);
  }

  /**
   * Reports a kept result until the API server takes it (true) or says the Run is not this
   * execution's any more (false: deleted, or re-queued by someone else); an agent stopping leaves it
   * on disk for its next start.
   */
  private async report(p: PendingResult): Promise<boolean> {
    const k = keyOf(p.namespace, p.name);
    const target = { metadata: { namespace: p.namespace, name: p.name } } as Run;
    const most = Math.max(200, Math.min(2000, this.staleMs / 4));
    try {
      for (let wait = 100; ; wait = Math.min(most, wait * 2)) {
        try {
          await this.writes.owned(target, p.attempts, [{ op: 'replace', path: '/status', value: p.status }]);
          await this.results.remove(p);
          this.metrics.ended.inc({ phase: p.status.phase ?? '' });
          return true;
        } catch (e) {
          const code = statusCode(e);
          if (code === 404 || code === 409 || code === 422) {
            log.warn(
              { run: k, err: statusMessage(e) },
              'the Run is no longer this execution; its result is dropped',
            );
            await this.results.remove(p);
            return false;
          }
          if (this.state.stopping) {
            log.warn({ run: k }, 'stopping with a result not yet reported; it is kept for the next start');
            return false;
          }
          if (wait >= most)
            log.warn({ run: k, err: statusMessage(e) }, 'cannot report the end yet; retrying');
          await sleep(wait);
        }
      }
    } finally {
      this.state.reporting.delete(k);
    }
  }
}
