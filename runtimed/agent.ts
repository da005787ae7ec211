// The runtime agent: watches Runs of the runtimes it serves, claims Pending ones by an optimistic
// status update, executes them, reports the end, heartbeats while running, and puts back Runs whose
// agent went silent. What matters lives in the Run's status, so a restarted agent starts from it.
import { agentMetrics, type AgentMetrics } from './agent-metrics.js';
import { join } from 'node:path';
import type * as k8s from '@kubernetes/client-node';
import { Registry, collectDefaultMetrics } from 'prom-client';
import type { Run } from '../src/api/types.js';
import { GROUP, VERSION } from '../src/api/crds.js';
import { KubeClient, statusCode, statusMessage } from '../src/kube/rest.js';
import { runAsCached } from '../src/runtime/agent-cache.js';
import { ResilientInformer } from '../src/kube/informer.js';
import { informerMetrics } from '../src/kube/informer-metrics.js';
import { claimAnsweredInTime, claimStatus, endStatus, isClaimable } from '../src/runtime/lifecycle.js';
import { PeerSet, preferredAgent } from '../src/runtime/share.js';
import { log } from '../src/telemetry/log.js';
import { AgentState, key, type Active } from './agent-state.js';
import type { Executor } from './executor.js';
import { Liveness } from './liveness.js';
import { executorsFor, type ExecutorsOptions } from './executors.js';
import type { LogStore } from './logstore.js';
import { Reporter } from './reporter.js';
import { ResultStore } from './results.js';
import { RunWrites } from './run-writes.js';
import type { Runtime } from './runtime.js';

export interface AgentOptions extends ExecutorsOptions {
  concurrency: number;
  /** Attempts a Run gets whose agent is lost each time, before it fails (AgentLost). */
  maxAttempts: number;
  heartbeatMs: number;
  staleMs: number;
}

/** How long an agent leaves a new Run to the agent rendezvous hashing prefers. */
const DEFER_MS = 300;

export class Agent {
  readonly registry = new Registry();
  private readonly informers: ResilientInformer<Run>[];
  private readonly state = new AgentState();
  private readonly peers: PeerSet;
  private readonly executors: Map<Runtime['executor'], Executor>;
  private timers: NodeJS.Timeout[] = [];
  private readonly writes: RunWrites;
  private readonly reporter: Reporter;
  private readonly liveness: Liveness;
  private readonly metrics: AgentMetrics;

  constructor(
    kc: k8s.KubeConfig,
    private readonly opts: AgentOptions,
    private readonly logs: LogStore,
  ) {
    this.peers = new PeerSet(opts.identity, Math.max(30_000, opts.staleMs));
    const paths = opts.namespaces.length
      ? opts.namespaces.map((ns) => `/apis/${GROUP}/${VERSION}/namespaces/${ns}/runs`)
      : [`/apis/${GROUP}/${VERSION}/runs`];
    this.informers = paths.map(
      (path) => new ResilientInformer<Run>(kc, { path, resyncMs: 5 * 60_000, transform: runAsCached }),
    );
    collectDefaultMetrics({ register: this.registry });
    informerMetrics(this.registry, () => this.informers);
    this.metrics = agentMetrics(this.registry, () => this.state.active.size, opts.concurrency);
    this.writes = new RunWrites(new KubeClient(kc), opts.identity, this.metrics);
    const results = new ResultStore(join(logs.dataDir, 'results', opts.identity));
    this.reporter = new Reporter(this.state, this.writes, results, this.metrics, opts.staleMs);
    this.liveness = new Liveness(this.state, this.writes, this.informers, {
      heartbeatMs: opts.heartbeatMs,
      staleMs: opts.staleMs,
      maxAttempts: (r) => this.maxAttemptsOf(r),
      graceMs: opts.graceMs,
      serves: (r) => this.serves(r) !== undefined,
    });
    this.executors = executorsFor(kc, opts, logs);
  }

  private executorOf(r: Run): Executor | undefined {
    const runtime = this.serves(r);
    return runtime && this.executors.get(runtime.executor);
  }

  /**
   * The attempts a Run gets whose agent is lost. A step Pod outlives its agent and is adopted by
   * the next claim, not run again: an agent lost then says nothing about the step.
   */
  private maxAttemptsOf(r: Run): number {
    return this.executorOf(r)?.outlivesAgent ? Infinity : this.opts.maxAttempts;
  }

  /** A Run this agent runs now writes its log still. */
  holdsLog(namespace: string, uid: string): boolean {
    for (const a of this.state.active.values())
      if (a.run.metadata.namespace === namespace && a.run.metadata.uid === uid) return true;
    return false;
  }

  get running(): number {
    return this.state.active.size;
  }

  healthy(): boolean {
    return this.informers.every((i) => i.healthy()) && [...this.executors.values()].every((e) => e.healthy());
  }

  async start(): Promise<void> {
    const { state } = this;
    for (const inf of this.informers) {
      inf.on('add', (r) => {
        state.lastChange.set(key(r), performance.now());
        this.consider(r);
      });
      inf.on('update', (_old, r) => {
        state.lastChange.set(key(r), performance.now());
        this.consider(r);
      });
      inf.on('delete', (r) => {
        state.firstSeen.delete(key(r));
        state.lastChange.delete(key(r));
        // A Run deleted while its step runs (its WorkflowRun went): the step stops now, not at the
        // next heartbeat's 404, and nothing is reported.
        const a = state.active.get(key(r));
        if (a && !a.ending && a.run.metadata.uid === r.metadata.uid) {
          log.info({ run: key(r) }, 'the Run was deleted; stopping its step');
          a.lost = true;
          a.exec.stop('cancel');
        }
        // Its logs go with it; a Run still running here keeps them until it ends.
        if (!state.active.has(key(r)))
          void this.logs
            .removeRun(r.metadata.namespace ?? '', r.metadata.uid ?? '')
            .catch((e: unknown) => log.warn({ run: key(r), err: String(e) }, 'could not remove its logs'));
      });
    }
    for (const e of this.executors.values()) await e.start();
    await Promise.all(this.informers.map((i) => i.start()));
    await this.reporter.resumeKept();
    // Runs this identity held before a restart are not running here any more: hand them back now
    // rather than after the heartbeat goes stale.
    for (const r of this.cached())
      if (
        r.status?.assignedTo === this.opts.identity &&
        r.status.phase === 'Running' &&
        !state.active.has(key(r)) &&
        !state.reporting.has(key(r))
      )
        await this.writes.lost(r, `agent ${this.opts.identity} restarted`, 'restart', this.maxAttemptsOf(r));
    state.accepting = true;
    this.fill();
    this.timers.push(setInterval(() => void this.liveness.heartbeat(), this.opts.heartbeatMs));
    // A safety net under the watch events: waiting Runs are offered free slots every few seconds.
    this.timers.push(setInterval(() => this.fill(), 2000));
    this.timers.push(setInterval(() => void this.liveness.reapStale(), Math.max(500, this.opts.staleMs / 3)));
  }

  /** Stops claiming, lets running steps finish until the deadline, then stops and releases the rest. */
  async shutdown(deadlineMs: number): Promise<void> {
    const { state } = this;
    state.accepting = false;
    state.stopping = true;
    // A step Pod needs no agent to go on: handed back now, adopted by whoever claims it next.
    for (const a of state.active.values()) if (a.outlives) a.exec.stop('release');
    const until = Date.now() + deadlineMs;
    // A claim sent before the signal may still be answered; it ends handed back or running.
    const busy = () => state.active.size > 0 || state.claiming.size > 0;
    while (busy() && Date.now() < until) await sleep(100);
    const left = [...state.active.values()];
    for (const a of left) a.exec.stop('release');
    await Promise.all(left.map((a) => a.exec.done.catch(() => undefined)));
    while (busy()) await sleep(20);
    for (const t of this.timers) clearInterval(t);
    for (const i of this.informers) i.stop();
    for (const e of this.executors.values()) e.stop();
  }

  private cached(): Run[] {
    return this.informers.flatMap((i) => i.list());
  }

  private serves(r: Run): Runtime | undefined {
    return this.opts.runtimes.get(r.spec.runtime);
  }

  private slots(): number {
    return this.opts.concurrency - this.state.active.size - this.state.claiming.size;
  }

  private consider(r: Run): void {
    if (!this.serves(r)) return;
    const { state } = this;
    const s = r.status;
    if (s?.assignedTo) this.peers.saw(s.assignedTo, Date.parse(s.heartbeatTime ?? s.startTime ?? '') || 0);
    const k = key(r);
    const a = state.active.get(k);
    if (a) {
      if (r.spec.cancelRequested) a.exec.stop('cancel');
      return;
    }
    if (!isClaimable(r)) return void state.firstSeen.delete(k);
    if (state.claiming.has(k) || state.deferred.has(k) || !state.accepting) return;
    if (r.spec.cancelRequested) return void this.cancelUnclaimed(r);
    if (this.slots() <= 0) return;
    // Agents see a new Run at the same moment. The one rendezvous hashing prefers claims it now;
    // the others wait, and claim it only if it is still waiting then, so they rarely spend a
    // write on losing the race. A Run that waited long enough is anyone's.
    // Since this agent first saw it: creationTimestamp has whole seconds only.
    const now = Date.now();
    if (!state.firstSeen.has(k)) state.firstSeen.set(k, now);
    const waited = now - (state.firstSeen.get(k) ?? now);
    if (
      waited >= DEFER_MS ||
      preferredAgent(r.metadata.uid ?? k, this.peers.live(now)) === this.opts.identity
    ) {
      void this.claim(r);
      return;
    }
    state.deferred.add(k);
    setTimeout(() => {
      state.deferred.delete(k);
      const latest = this.latest(r);
      if (latest) this.consider(latest);
    }, DEFER_MS - waited);
  }

  private latest(r: Run): Run | undefined {
    return this.cachedRun(r.metadata.namespace ?? '', r.metadata.name ?? '');
  }

  /** A Run from the watch cache (Runs of the namespaces this agent serves). */
  cachedRun(namespace: string, name: string): Run | undefined {
    for (const i of this.informers) {
      const found = i.get(namespace, name);
      if (found) return found;
    }
    return undefined;
  }

  /** Offers free slots to waiting Runs, oldest first, with a little shuffle so agents collide less. */
  private fill(): void {
    if (!this.state.accepting || this.slots() <= 0) return;
    const waiting = this.cached()
      .filter((r) => this.serves(r) && isClaimable(r) && !this.state.claiming.has(key(r)))
      .sort((a, b) =>
        String(a.metadata.creationTimestamp ?? '').localeCompare(String(b.metadata.creationTimestamp ?? '')),
      );
    const window = waiting.slice(0, this.slots() * 4).sort(() => Math.random() - 0.5);
    for (const r of window) {
      if (this.slots() <= 0) break;
      this.consider(r);
    }
  }

  private async cancelUnclaimed(r: Run): Promise<void> {
    this.state.claiming.add(key(r));
    try {
      await this.executorOf(r)?.cancelUnclaimed(r);
      await this.writes.optimistic(r, {
        phase: 'Cancelled',
        reason: 'Cancelled',
        message: 'cancelled before it started',
        completionTime: new Date().toISOString(),
      });
      this.metrics.ended.inc({ phase: 'Cancelled' });
    } catch (e) {
      if (statusCode(e) !== 409 && statusCode(e) !== 404)
        log.warn({ run: key(r), err: statusMessage(e) }, 'cancel failed');
    } finally {
      this.state.claiming.delete(key(r));
    }
  }

  /** Claims the Run (an optimistic write: one agent wins), starts its step and follows it to its end. */
  private async claim(r: Run): Promise<void> {
    const k = key(r);
    this.state.claiming.add(k);
    const sent = Date.now();
    const status = claimStatus(r, this.opts.identity, new Date(sent));
    const attempts = status.attempts ?? 1;
    try {
      const claimed = await this.writes.claim(r, status);
      const a = claimed && (await this.startInTime(claimed, attempts, sent));
      if (!a) return;
      this.state.active.set(k, a);
      log.debug({ run: k, attempt: attempts }, 'claimed');
    } finally {
      this.state.claiming.delete(k);
    }
    // A cancellation that arrived while claiming is in the cache already.
    if (this.latest(r)?.spec.cancelRequested) this.state.active.get(k)?.exec.stop('cancel');
    await this.follow(k, this.state.active.get(k) as Active, status);
  }

  /**
   * Starts the claimed step unless the claim's answer came back too late: by then another agent may
   * have put the Run back and run it, so it is handed back unstarted (a conflict there means it was).
   */
  private async startInTime(claimed: Run, attempts: number, sent: number): Promise<Active | undefined> {
    const answered = Date.now();
    if (claimAnsweredInTime(sent, answered, this.opts)) return this.startStep(claimed, attempts, sent);
    const waited = `${((answered - sent) / 1000).toFixed(1)}s`;
    log.warn(
      { run: key(claimed), attempt: attempts, answeredAfterMs: answered - sent },
      'the claim was answered after the stale period allows; handing the Run back unstarted',
    );
    this.metrics.claims.inc({ result: 'late' });
    const message = `agent ${this.opts.identity} had its claim answered after ${waited}, too late to start the step`;
    await this.writes.requeue(claimed, message, 'late-claim', attempts);
    return undefined;
  }

  /** Sets the claimed step going; hands the Run back when the agent is stopping or cannot start it. */
  private async startStep(claimed: Run, attempts: number, sent: number): Promise<Active | undefined> {
    const who = `agent ${this.opts.identity}`;
    if (this.state.stopping) {
      // Won after the shutdown began: nothing has run, so it goes straight back (the claim counted).
      await this.writes.requeue(claimed, `${who} shut down before the step started`, 'shutdown', attempts);
      return undefined;
    }
    const runtime = this.serves(claimed) as Runtime;
    const ns = claimed.metadata.namespace ?? '';
    const logFile = this.logs.fileFor(ns, claimed.metadata.uid ?? '', attempts);
    const executor = this.executorOf(claimed) as Executor;
    try {
      const exec = await executor.execute(claimed, runtime, logFile, attempts);
      return {
        exec,
        outlives: executor.outlivesAgent,
        run: claimed,
        attempts,
        lost: false,
        ending: false,
        // The claim is the first heartbeat, confirmed as of when it was sent.
        beat: sent,
        confirmed: sent,
      };
    } catch (e) {
      // The step could not be set going (its Pod's files, a full disk): handed back, as a shutdown does.
      log.warn({ run: key(claimed), err: statusMessage(e) }, 'could not start the step');
      await this.writes.requeue(
        claimed,
        `${who} could not start the step: ${statusMessage(e)}`,
        'start',
        attempts,
      );
      return undefined;
    }
  }

  /** Waits for the step's end and reports it, unless the Run was lost or the agent let it go. */
  private async follow(k: string, a: Active, status: ReturnType<typeof claimStatus>): Promise<void> {
    const { run, attempts, exec } = a;
    try {
      const ending = await exec.done;
      a.ending = true;
      if (a.lost) return;
      if (exec.stopReason === 'release') {
        const message = `agent ${this.opts.identity} shut down before the step ended`;
        await this.writes.requeue(run, message, 'shutdown', attempts);
        return;
      }
      const end = endStatus({ ...ending, now: new Date() });
      const reported = await this.reporter.keepAndReport({
        namespace: run.metadata.namespace ?? '',
        name: run.metadata.name ?? '',
        uid: run.metadata.uid ?? '',
        attempts,
        status: { ...status, heartbeatTime: end.completionTime, ...end },
      });
      if (reported) log.info({ run: k, phase: end.phase, exitCode: end.exitCode }, 'ended');
    } catch (e) {
      log.warn({ run: k, err: statusMessage(e) }, 'could not keep or report the end');
    } finally {
      this.state.active.delete(k);
      this.fill();
    }
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
