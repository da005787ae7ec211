// Liveness of claimed Runs: this agent's heartbeats for the steps it runs, and the sweep that puts
// back Runs whose agent went silent (judged on this agent's own clock, from when it last saw them).
import type { Run } from '../src/api/types.js';
import { statusCode, statusMessage } from '../src/kube/rest.js';
import type { ResilientInformer } from '../src/kube/informer.js';
import { fenceMs, mayRequeue, type LivenessPeriods } from '../src/runtime/lifecycle.js';
import { log } from '../src/telemetry/log.js';
import { key, type AgentState } from './agent-state.js';
import type { RunWrites } from './run-writes.js';

export class Liveness {
  constructor(
    private readonly state: AgentState,
    private readonly writes: RunWrites,
    private readonly informers: ResilientInformer<Run>[],
    private readonly opts: LivenessPeriods & {
      /** Attempts a Run gets whose agent is lost each time (lostStatus). */
      maxAttempts: (r: Run) => number;
      serves: (r: Run) => boolean;
    },
  ) {}

  /** Cut off from the API server, this agent never runs a step at the same time as the agent that takes it over. */
  get fenceMs(): number {
    return fenceMs(this.opts);
  }

  /** Stops the steps that outlive no agent and whose heartbeats have failed for fenceMs. */
  fence(now = Date.now()): void {
    for (const [k, a] of this.state.active) {
      if (a.ending || a.lost || a.outlives || now - a.confirmed <= this.fenceMs) continue;
      log.warn(
        { run: k, unconfirmedMs: now - a.confirmed },
        'no heartbeat confirmed for the stale period; stopping the step before another agent takes it',
      );
      a.lost = true;
      a.exec.stop('release');
    }
  }

  /** Heartbeats for executions whose last beat is older than the interval; short steps need none. */
  async heartbeat(): Promise<void> {
    this.fence();
    const now = new Date().toISOString();
    const due = Date.now() - this.opts.heartbeatMs * 0.9;
    await Promise.all(
      [...this.state.active.entries()]
        .filter(([, a]) => !a.ending && a.beat <= due)
        .map(async ([k, a]) => {
          const sent = (a.beat = Date.now());
          // A step that waits to start (its Pod refused for a full quota) says why in the Run.
          const waiting = a.exec.waiting;
          const ops: object[] = [{ op: 'replace', path: '/status/heartbeatTime', value: now }];
          if (waiting !== a.shownWaiting)
            ops.push({ op: 'add', path: '/status/message', value: waiting ?? '' });
          try {
            await this.writes.owned(a.run, a.attempts, ops);
            a.shownWaiting = waiting;
            // Counted from when it was sent: the API server holds it from some time after that.
            a.confirmed = Math.max(a.confirmed, sent);
          } catch (e) {
            const code = statusCode(e);
            if (a.ending) return; // the end was reported first
            if (code === 404 || code === 409 || code === 422) {
              // The Run was deleted, re-queued or ended by someone else: this execution is not its own.
              log.warn({ run: k, err: statusMessage(e) }, 'lost the Run; stopping its step');
              a.lost = true;
              a.exec.stop('release');
            }
          }
        }),
    );
  }

  /** Puts back the Runs of this agent's runtimes whose agent sent no heartbeat for staleMs. */
  async reapStale(): Promise<void> {
    const now = new Date();
    const here = performance.now();
    for (const inf of this.informers) {
      const connected = inf.connectedSince();
      for (const r of inf.list()) {
        const k = key(r);
        if (!this.opts.serves(r) || this.state.active.has(k) || this.state.reporting.has(k)) continue;
        const seen = Math.max(this.state.lastChange.get(k) ?? here, connected);
        if (mayRequeue(r, now, this.opts.staleMs, here - seen))
          await this.writes.lost(
            r,
            `agent ${r.status?.assignedTo ?? '?'} sent no heartbeat for ${Math.round(this.opts.staleMs / 1000)}s`,
            'stale',
            this.opts.maxAttempts(r),
          );
      }
    }
  }
}
