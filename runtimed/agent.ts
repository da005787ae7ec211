// The runtime agent: watches Runs of the runtimes it serves, claims Pending ones by an optimistic
// status update, executes them, reports the end, heartbeats while running, and puts back Runs whose
// agent went silent. What matters lives in the Run's status, so a restarted agent starts from it.
import { agentMetrics, type AgentMetrics } from './agent-metrics.js';
import { NamespaceReads } from './namespace-reads.js';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { Registry, collectDefaultMetrics } from 'prom-client';
import type { Run, RunStatus } from '../src/api/types.js';
import { GROUP, VERSION } from '../src/api/crds.js';
import { apiClient, statusCode, statusMessage } from '../src/kube/client.js';
import { ResilientInformer } from '../src/kube/informer.js';
import { informerMetrics } from '../src/kube/informer-metrics.js';
import { retryTransient } from '../src/kube/retry.js';
import { claimStatus, endStatus, isClaimable, mayRequeue, requeueStatus } from '../src/runtime/lifecycle.js';
import { PeerSet, preferredAgent } from '../src/runtime/share.js';
import { log } from '../src/telemetry/log.js';
import type { Executor } from './executor.js';
import type { RunningStep } from './launcher-client.js';
import { PodExecutor, type PodExecutorOptions } from './pod-executor.js';
import { ProcessExecutor } from './process-executor.js';
import type { LogStore } from './logstore.js';
import { ResultStore, type PendingResult } from './results.js';
import type { Runtime } from './runtime.js';
import type { SandboxOptions } from '../src/runtime/sandbox-command.js';

export interface AgentOptions {
  identity: string;
  /** Namespaces served; empty means all. */
  namespaces: string[];
  runtimes: Map<string, Runtime>;
  concurrency: number;
  heartbeatMs: number;
  staleMs: number;
  graceMs: number;
  maxLogBytes: number;
  /**
   * Where executions' folders go (default <data-dir>/work): with the sandbox of a root agent, every
   * folder above it must be open to other users, since bwrap runs as the step's uid.
   */
  workDir?: string;
  /** The step sandbox; `uidBase` when the agent is root (each step its own uid). */
  sandbox?: SandboxOptions & { uidBase?: number };
  /** For runtimes whose executor is a Pod: the helper image and how long a Pod may be stuck. */
  pods?: Pick<PodExecutorOptions, 'helperImage' | 'stuckMs'>;
}

interface Active {
  exec: RunningStep;
  /** Its step goes on without this agent (a Pod). */
  outlives: boolean;
  run: Run;
  attempts: number;
  /** Another agent or a re-queue took the Run: stop without reporting. */
  lost: boolean;
  /** The end is being reported: no more heartbeats. */
  ending: boolean;
  /** Last time this agent wrote heartbeatTime (the claim writes the first). */
  beat: number;
}

const keyOf = (namespace: string, name: string) => `${namespace}/${name}`;
const key = (r: Run) => keyOf(r.metadata.namespace ?? '', r.metadata.name ?? '');
/** How long an agent leaves a new Run to the agent rendezvous hashing prefers. */
const DEFER_MS = 300;

export class Agent {
  readonly registry = new Registry();
  private readonly informers: ResilientInformer<Run>[];
  private readonly active = new Map<string, Active>();
  private readonly claiming = new Set<string>();
  /** Runs left to their preferred agent for now. */
  private readonly deferred = new Set<string>();
  /** When this agent first saw each waiting Run. */
  private readonly firstSeen = new Map<string, number>();
  private readonly peers: PeerSet;
  private readonly executors = new Map<Runtime['executor'], Executor>();
  private accepting = false;
  private timers: NodeJS.Timeout[] = [];
  private readonly api: k8s.CustomObjectsApi;
  private readonly namespaces: NamespaceReads;
  /** When (performance.now()) this agent last saw each Run change: staleness on its own clock. */
  private readonly lastChange = new Map<string, number>();
  /** Runs whose result this agent holds and is reporting: never re-queued by it. */
  private readonly reporting = new Set<string>();
  private results!: ResultStore;
  private stopping = false;
  private readonly metrics: AgentMetrics;

  constructor(
    kc: k8s.KubeConfig,
    private readonly opts: AgentOptions,
    private readonly logs: LogStore,
  ) {
    this.api = apiClient(kc, k8s.CustomObjectsApi);
    this.namespaces = new NamespaceReads(apiClient(kc, k8s.CoreV1Api));
    this.peers = new PeerSet(opts.identity, Math.max(30_000, opts.staleMs));
    const paths = opts.namespaces.length
      ? opts.namespaces.map((ns) => `/apis/${GROUP}/${VERSION}/namespaces/${ns}/runs`)
      : [`/apis/${GROUP}/${VERSION}/runs`];
    this.informers = paths.map((path) => new ResilientInformer<Run>(kc, { path, resyncMs: 5 * 60_000 }));
    collectDefaultMetrics({ register: this.registry });
    informerMetrics(this.registry, () => this.informers);
    this.metrics = agentMetrics(this.registry, () => this.active.size);
    const kinds = new Set([...opts.runtimes.values()].map((r) => r.executor));
    if (kinds.has('process'))
      this.executors.set(
        'process',
        new ProcessExecutor(
          {
            workDir: join(opts.workDir ?? join(logs.dataDir, 'work'), opts.identity),
            graceMs: opts.graceMs,
            maxLogBytes: opts.maxLogBytes,
            ...(opts.sandbox ? { sandbox: opts.sandbox } : {}),
          },
          this.namespaces,
        ),
      );
    if (kinds.has('pod')) {
      if (!opts.pods) throw new Error('a runtime of Pods needs the pods options (helper image)');
      this.executors.set(
        'pod',
        new PodExecutor(
          kc,
          { ...opts.pods, graceMs: opts.graceMs, maxLogBytes: opts.maxLogBytes, namespaces: opts.namespaces },
          this.namespaces,
        ),
      );
    }
  }

  private executorOf(r: Run): Executor | undefined {
    const runtime = this.serves(r);
    return runtime && this.executors.get(runtime.executor);
  }

  get running(): number {
    return this.active.size;
  }

  healthy(): boolean {
    return this.informers.every((i) => i.healthy()) && [...this.executors.values()].every((e) => e.healthy());
  }

  async start(): Promise<void> {
    for (const inf of this.informers) {
      inf.on('add', (r) => {
        this.lastChange.set(key(r), performance.now());
        this.consider(r);
      });
      inf.on('update', (_old, r) => {
        this.lastChange.set(key(r), performance.now());
        this.consider(r);
      });
      inf.on('delete', (r) => {
        this.firstSeen.delete(key(r));
        this.lastChange.delete(key(r));
        // Its logs go with it; a Run still running here keeps them until it ends.
        if (!this.active.has(key(r)))
          void this.logs
            .removeRun(r.metadata.namespace ?? '', r.metadata.uid ?? '')
            .catch((e: unknown) => log.warn({ run: key(r), err: String(e) }, 'could not remove its logs'));
      });
    }
    for (const e of this.executors.values()) await e.start();
    this.results = new ResultStore(join(this.logs.dataDir, 'results', this.opts.identity));
    await Promise.all(this.informers.map((i) => i.start()));
    // Results an earlier life of this agent kept: reported, never executed again.
    for (const p of await this.results.list()) {
      this.reporting.add(keyOf(p.namespace, p.name));
      log.info({ run: keyOf(p.namespace, p.name), attempt: p.attempts }, 'reporting a result kept on disk');
      void this.report(p);
    }
    // Runs this identity held before a restart are not running here any more: hand them back now
    // rather than after the heartbeat goes stale.
    for (const r of this.cached())
      if (
        r.status?.assignedTo === this.opts.identity &&
        r.status.phase === 'Running' &&
        !this.active.has(key(r)) &&
        !this.reporting.has(key(r))
      )
        await this.requeue(r, `agent ${this.opts.identity} restarted`, 'restart');
    this.accepting = true;
    this.fill();
    this.timers.push(setInterval(() => void this.heartbeat(), this.opts.heartbeatMs));
    // A safety net under the watch events: waiting Runs are offered free slots every few seconds.
    this.timers.push(setInterval(() => this.fill(), 2000));
    this.timers.push(setInterval(() => void this.reapStale(), Math.max(500, this.opts.staleMs / 3)));
  }

  /** Stops claiming, lets running steps finish until the deadline, then stops and releases the rest. */
  async shutdown(deadlineMs: number): Promise<void> {
    this.accepting = false;
    this.stopping = true;
    // A step Pod needs no agent to go on: handed back now, adopted by whoever claims it next.
    for (const a of this.active.values()) if (a.outlives) a.exec.stop('release');
    const until = Date.now() + deadlineMs;
    // A claim sent before the signal may still be answered; it ends handed back or running.
    const busy = () => this.active.size > 0 || this.claiming.size > 0;
    while (busy() && Date.now() < until) await sleep(100);
    const left = [...this.active.values()];
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
    return this.opts.concurrency - this.active.size - this.claiming.size;
  }

  private consider(r: Run): void {
    if (!this.serves(r)) return;
    const s = r.status;
    if (s?.assignedTo) this.peers.saw(s.assignedTo, Date.parse(s.heartbeatTime ?? s.startTime ?? '') || 0);
    const k = key(r);
    const a = this.active.get(k);
    if (a) {
      if (r.spec.cancelRequested) a.exec.stop('cancel');
      return;
    }
    if (!isClaimable(r)) return void this.firstSeen.delete(k);
    if (this.claiming.has(k) || this.deferred.has(k) || !this.accepting) return;
    if (r.spec.cancelRequested) return void this.cancelUnclaimed(r);
    if (this.slots() <= 0) return;
    // Agents see a new Run at the same moment. The one rendezvous hashing prefers claims it now;
    // the others wait, and claim it only if it is still waiting then, so they rarely spend a
    // write on losing the race. A Run that waited long enough is anyone's.
    // Since this agent first saw it: creationTimestamp has whole seconds only.
    const now = Date.now();
    if (!this.firstSeen.has(k)) this.firstSeen.set(k, now);
    const waited = now - (this.firstSeen.get(k) ?? now);
    if (
      waited >= DEFER_MS ||
      preferredAgent(r.metadata.uid ?? k, this.peers.live(now)) === this.opts.identity
    ) {
      void this.claim(r);
      return;
    }
    this.deferred.add(k);
    setTimeout(() => {
      this.deferred.delete(k);
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
    if (!this.accepting || this.slots() <= 0) return;
    const waiting = this.cached()
      .filter((r) => this.serves(r) && isClaimable(r) && !this.claiming.has(key(r)))
      .sort((a, b) =>
        String(a.metadata.creationTimestamp ?? '').localeCompare(String(b.metadata.creationTimestamp ?? '')),
      );
    const window = waiting.slice(0, this.slots() * 4).sort(() => Math.random() - 0.5);
    for (const r of window) {
      if (this.slots() <= 0) break;
      this.consider(r);
    }
  }

  private async patchStatus(r: Run, body: object, type: string): Promise<Run> {
    return (await this.api.patchNamespacedCustomObjectStatus(
      {
        group: GROUP,
        version: VERSION,
        plural: 'runs',
        namespace: r.metadata.namespace ?? '',
        name: r.metadata.name ?? '',
        body,
      },
      k8s.setHeaderOptions('Content-Type', type),
    )) as Run;
  }

  /** A merge patch that carries the observed resourceVersion: it fails with 409 if the Run changed. */
  private optimistic(r: Run, status: RunStatus | Record<string, unknown>): Promise<Run> {
    return this.patchStatus(
      r,
      { metadata: { resourceVersion: r.metadata.resourceVersion }, status },
      k8s.PatchStrategy.MergePatch,
    );
  }

  /** A JSON patch that applies only while this agent still holds the same attempt. */
  private owned(r: Run, attempts: number, ops: object[]): Promise<Run> {
    return this.patchStatus(
      r,
      [
        { op: 'test', path: '/status/assignedTo', value: this.opts.identity },
        { op: 'test', path: '/status/attempts', value: attempts },
        { op: 'test', path: '/status/phase', value: 'Running' },
        ...ops,
      ],
      k8s.PatchStrategy.JsonPatch,
    );
  }

  private async cancelUnclaimed(r: Run): Promise<void> {
    this.claiming.add(key(r));
    try {
      await this.executorOf(r)?.cancelUnclaimed(r);
      await this.optimistic(r, {
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
      this.claiming.delete(key(r));
    }
  }

  private async claim(r: Run): Promise<void> {
    const k = key(r);
    this.claiming.add(k);
    let claimed: Run;
    const status = claimStatus(r, this.opts.identity, new Date());
    try {
      // Fields of an earlier attempt are cleared; a merge patch removes a key set to null.
      claimed = await this.optimistic(r, {
        ...status,
        reason: null,
        message: null,
        exitCode: null,
        completionTime: null,
      });
      this.metrics.claims.inc({ result: 'won' });
    } catch (e) {
      this.claiming.delete(k);
      if (statusCode(e) === 409 || statusCode(e) === 404) this.metrics.claims.inc({ result: 'lost' });
      else {
        // The API server or the network failed, not the race: the periodic fill offers it again.
        this.metrics.claims.inc({ result: 'error' });
        log.warn({ run: k, err: statusMessage(e) }, 'claim failed; will retry');
      }
      return;
    }
    const attempts = status.attempts ?? 1;
    if (this.stopping) {
      // Won after the shutdown began: nothing has run, so it goes straight back (the claim counted).
      await this.requeue(
        claimed,
        `agent ${this.opts.identity} shut down before the step started`,
        'shutdown',
        attempts,
      );
      this.claiming.delete(k);
      return;
    }
    const runtime = this.serves(r) as Runtime;
    const logFile = this.logs.fileFor(r.metadata.namespace ?? '', r.metadata.uid ?? '', attempts);
    const executor = this.executorOf(r) as Executor;
    let exec: RunningStep;
    try {
      exec = await executor.execute(claimed, runtime, logFile, attempts);
    } catch (e) {
      // The step could not be set going (its Pod's files, a full disk): handed back, as a shutdown does.
      log.warn({ run: k, err: statusMessage(e) }, 'could not start the step');
      await this.requeue(
        claimed,
        `agent ${this.opts.identity} could not start the step: ${statusMessage(e)}`,
        'start',
        attempts,
      );
      this.claiming.delete(k);
      return;
    }
    const a: Active = {
      exec,
      outlives: executor.outlivesAgent,
      run: claimed,
      attempts,
      lost: false,
      ending: false,
      beat: Date.now(),
    };
    this.active.set(k, a);
    this.claiming.delete(k);
    log.debug({ run: k, attempt: attempts }, 'claimed');
    // A cancellation that arrived while claiming is in the cache already.
    if (this.latest(r)?.spec.cancelRequested) exec.stop('cancel');
    try {
      const ending = await exec.done;
      a.ending = true;
      if (a.lost) return;
      if (exec.stopReason === 'release') {
        await this.requeue(
          claimed,
          `agent ${this.opts.identity} shut down before the step ended`,
          'shutdown',
          attempts,
        );
        return;
      }
      const end = endStatus({ ...ending, now: new Date() });
      // The result is known: no outage, however long, and no restart may turn it into a second
      // execution. It goes to disk first, and is reported until the API server takes it.
      const pending: PendingResult = {
        namespace: r.metadata.namespace ?? '',
        name: r.metadata.name ?? '',
        uid: r.metadata.uid ?? '',
        attempts,
        status: { ...status, heartbeatTime: end.completionTime, ...end },
      };
      this.reporting.add(k);
      // A disk that refuses it (full, read-only) loses the restart guarantee, not the report.
      await this.results
        .save(pending)
        .catch((e: unknown) => log.warn({ run: k, err: String(e) }, 'could not keep the result on disk'));
      if (await this.report(pending)) log.info({ run: k, phase: end.phase, exitCode: end.exitCode }, 'ended');
    } catch (e) {
      log.warn({ run: k, err: statusMessage(e) }, 'could not keep or report the end');
    } finally {
      this.active.delete(k);
      this.fill();
    }
  }

  /** Heartbeats for executions whose last beat is older than the interval; short steps need none. */
  private async heartbeat(): Promise<void> {
    const now = new Date().toISOString();
    const due = Date.now() - this.opts.heartbeatMs * 0.9;
    await Promise.all(
      [...this.active.entries()]
        .filter(([, a]) => !a.ending && a.beat <= due)
        .map(async ([k, a]) => {
          a.beat = Date.now();
          try {
            await this.owned(a.run, a.attempts, [
              { op: 'replace', path: '/status/heartbeatTime', value: now },
            ]);
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

  /**
   * Reports a kept result until the API server takes it (true) or says the Run is not this
   * execution's any more (false: deleted, or re-queued by someone else); an agent stopping leaves it
   * on disk for its next start.
   */
  private async report(p: PendingResult): Promise<boolean> {
    const k = keyOf(p.namespace, p.name);
    const target = { metadata: { namespace: p.namespace, name: p.name } } as Run;
    const most = Math.max(200, Math.min(2000, this.opts.staleMs / 4));
    try {
      for (let wait = 100; ; wait = Math.min(most, wait * 2)) {
        try {
          await this.owned(target, p.attempts, [{ op: 'replace', path: '/status', value: p.status }]);
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
          if (this.stopping) {
            log.warn({ run: k }, 'stopping with a result not yet reported; it is kept for the next start');
            return false;
          }
          if (wait >= most)
            log.warn({ run: k, err: statusMessage(e) }, 'cannot report the end yet; retrying');
          await sleep(wait);
        }
      }
    } finally {
      this.reporting.delete(k);
    }
  }

  private async reapStale(): Promise<void> {
    const now = new Date();
    const here = performance.now();
    for (const inf of this.informers) {
      const connected = inf.connectedSince();
      for (const r of inf.list()) {
        const k = key(r);
        if (!this.serves(r) || this.active.has(k) || this.reporting.has(k)) continue;
        const seen = Math.max(this.lastChange.get(k) ?? here, connected);
        if (mayRequeue(r, now, this.opts.staleMs, here - seen))
          await this.requeue(
            r,
            `agent ${r.status?.assignedTo ?? '?'} sent no heartbeat for ${Math.round(this.opts.staleMs / 1000)}s`,
            'stale',
          );
      }
    }
  }

  /** Back to Pending, attempts kept; a conflict means someone else already acted, which is fine. */
  private async requeue(r: Run, message: string, why: string, attempts?: number): Promise<void> {
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
