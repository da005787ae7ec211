// The agent's writes to a Run's status: the optimistic claim (it fails if the Run changed), the
// owned write (it applies only while this agent holds the same attempt) and the hand-back.
import type { Run, RunStatus } from '../src/api/types.js';
import { crd, statusCode, statusMessage, type KubeClient, type PatchType } from '../src/kube/rest.js';
import { retryTransient } from '../src/kube/retry.js';
import { lostStatus, requeueStatus } from '../src/runtime/lifecycle.js';
import { log } from '../src/telemetry/log.js';
import type { AgentMetrics } from './agent-metrics.js';
import { key } from './agent-state.js';

export class RunWrites {
  constructor(
    private readonly kube: KubeClient,
    private readonly identity: string,
    private readonly metrics: AgentMetrics,
  ) {}

  private patchStatus(r: Run, body: object, type: PatchType): Promise<Run> {
    const o = { ...crd('runs', r.metadata.namespace ?? ''), name: r.metadata.name ?? '' };
    return this.kube.patchStatus<Run>(o, body, type);
  }

  /** A merge patch that carries the observed resourceVersion: it fails with 409 if the Run changed. */
  optimistic(r: Run, status: RunStatus | Record<string, unknown>): Promise<Run> {
    return this.patchStatus(
      r,
      { metadata: { resourceVersion: r.metadata.resourceVersion }, status },
      'merge',
    );
  }

  /** The claim (an optimistic write); the Run as claimed, or undefined when another agent was first or it failed. */
  async claim(r: Run, status: RunStatus): Promise<Run | undefined> {
    try {
      // Fields of an earlier attempt are cleared; a merge patch removes a key set to null.
      const claimed = await this.optimistic(r, {
        ...status,
        reason: null,
        message: null,
        exitCode: null,
        completionTime: null,
      });
      this.metrics.claims.inc({ result: 'won' });
      return claimed;
    } catch (e) {
      if (statusCode(e) === 409 || statusCode(e) === 404) this.metrics.claims.inc({ result: 'lost' });
      else {
        // The API server or the network failed, not the race: the periodic fill offers it again.
        this.metrics.claims.inc({ result: 'error' });
        log.warn({ run: key(r), err: statusMessage(e) }, 'claim failed; will retry');
      }
      return undefined;
    }
  }

  /** A JSON patch that applies only while this agent still holds the same attempt. */
  owned(r: Run, attempts: number, ops: object[]): Promise<Run> {
    return this.patchStatus(
      r,
      [
        { op: 'test', path: '/status/assignedTo', value: this.identity },
        { op: 'test', path: '/status/attempts', value: attempts },
        { op: 'test', path: '/status/phase', value: 'Running' },
        ...ops,
      ],
      'json',
    );
  }

  /**
   * A Run whose agent was lost (stale, or this agent before a restart): back to Pending while it has
   * attempts left, else Failed (AgentLost). A conflict means someone else already acted.
   */
  async lost(r: Run, message: string, why: string, maxAttempts: number): Promise<void> {
    const status = lostStatus(r, message, maxAttempts, new Date());
    if (status.phase === 'Pending') return this.requeue(r, message, why);
    try {
      await this.optimistic(r, { ...status, assignedTo: null, heartbeatTime: null });
      this.metrics.ended.inc({ phase: 'Failed' });
      log.warn(
        { run: key(r), why, attempts: status.attempts },
        'failed: its agent was lost on every attempt',
      );
    } catch (e) {
      if (![404, 409, 422].includes(statusCode(e) ?? 0))
        log.warn({ run: key(r), err: statusMessage(e) }, 'could not fail the lost Run');
    }
  }

  /** Back to Pending, attempts kept; a conflict means someone else already acted, which is fine. */
  async requeue(r: Run, message: string, why: string, attempts?: number): Promise<void> {
    const status = { ...requeueStatus(r, message), assignedTo: null, startTime: null, heartbeatTime: null };
    try {
      if (attempts !== undefined)
        // Handing back on shutdown: worth a few retries, or the Run waits until it goes stale.
        await retryTransient(
          () =>
            this.owned(r, attempts, [{ op: 'replace', path: '/status', value: requeueStatus(r, message) }]),
          { deadlineMs: 5000 },
        );
      else await this.optimistic(r, status);
      this.metrics.requeued.inc({ why });
      log.info({ run: key(r), why }, 're-queued');
    } catch (e) {
      if (![404, 409, 422].includes(statusCode(e) ?? 0))
        log.warn({ run: key(r), err: statusMessage(e) }, 're-queue failed');
    }
  }
}
