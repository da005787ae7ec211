// The executor of the kubernetes runtime (docs/runtimes.md): a claimed Run becomes one Pod named
// like it, owned by it, in its namespace. The agent keeps claiming, heartbeating and reporting as for
// any runtime; this turns the Pod's life into the same Ending a sandboxed process gives. A Pod that
// already exists is adopted, never made twice: an agent that restarts finds its step still running
// (or finished) and reports it, so a step runs once however often its agent goes away.
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type * as k8s from '@kubernetes/client-node';
import type { Run } from '../src/api/types.js';
import { ResilientInformer } from '../src/kube/informer.js';
import { rawStream, rawText } from '../src/kube/raw.js';
import { KubeClient, statusCode, statusMessage } from '../src/kube/rest.js';
import { LABEL_RUN_UID } from '../src/labels.js';
import { controlledBy } from '../src/api/objects.js';
import type { Ending } from '../src/runtime/lifecycle.js';
import { Masker } from '../src/runtime/mask.js';
import { podAsCached } from '../src/runtime/agent-cache.js';
import {
  podInSight,
  podOutcome,
  POD_STUCK,
  type PodLike,
  type PodOutcome,
  type PodSource,
} from '../src/runtime/pod-outcome.js';
import {
  parseReport,
  REPORT_CONTAINER,
  STEP_CONTAINER,
  stepPod,
  stepPodName,
  wholeSecrets,
} from '../src/runtime/pod.js';
import { maskedValues } from '../src/runtime/secrets.js';
import { log } from '../src/telemetry/log.js';
import { BoundedLog } from './bounded-log.js';
import { retryTransient } from '../src/kube/retry.js';
import { podWarning } from './pod-events.js';
import { createStepPod, deleteStepPod, podPath, pods } from './pod-writes.js';
import type { Executor } from './executor.js';
import type { RunningStep } from './launcher-client.js';
import type { NamespaceReads } from './namespace-reads.js';
import type { Runtime } from './runtime.js';

type Pod = PodLike & {
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    labels?: Record<string, string>;
    ownerReferences?: { uid?: string; controller?: boolean }[];
  };
};
type Result = Omit<Ending, 'now'>;

/**
 * Whether `pod` is the step Pod of `run`: its label and its controller owner reference both name
 * the Run's uid (anyone who may create Pods can forge the label; the reference to a Run's uid too,
 * but then the Pod is the Run's by the garbage collector's reading as well).
 */
export function runsPod(pod: Pod, run: Run): boolean {
  const uid = run.metadata.uid ?? '';
  return pod.metadata?.labels?.[LABEL_RUN_UID] === uid && controlledBy({ metadata: pod.metadata ?? {} }, uid);
}

export interface PodExecutorOptions {
  /** The project's image, for the prepare and report containers. */
  helperImage: string;
  graceMs: number;
  /** How long a Pod may take to start its step (image, Secret, node, volume) before the Run fails. */
  stuckMs: number;
  maxLogBytes: number;
  /** Namespaces served; empty: all. */
  namespaces: string[];
}

const key = (ns: string, name: string) => `${ns}/${name}`;

export class PodExecutor implements Executor {
  readonly outlivesAgent = true;
  private readonly informers: ResilientInformer<Pod>[];
  private readonly watching = new Map<string, (fresh?: boolean) => void>();
  private ticker: NodeJS.Timeout | undefined;
  /** @internal for PodExecution: the one client of its Pod writes and reads. */
  readonly kube: KubeClient;

  constructor(
    /** @internal for PodExecution's log reads */
    readonly kubeConfig: k8s.KubeConfig,
    private readonly opts: PodExecutorOptions,
    private readonly namespaces: NamespaceReads,
  ) {
    this.kube = new KubeClient(kubeConfig);
    const paths = opts.namespaces.length ? opts.namespaces.map((ns) => podPath(ns)) : ['/api/v1/pods'];
    this.informers = paths.map(
      (path) =>
        new ResilientInformer<Pod>(kubeConfig, {
          path,
          labelSelector: LABEL_RUN_UID,
          resyncMs: 5 * 60_000,
          transform: podAsCached,
        }),
    );
    for (const i of this.informers) {
      const poke = (p: Pod) =>
        this.watching.get(key(p.metadata?.namespace ?? '', p.metadata?.name ?? ''))?.();
      i.on('add', poke);
      i.on('update', (_old, p) => poke(p));
      i.on('delete', poke);
    }
  }

  async start(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.start()));
    // Bounded waits end on the clock, not on an event; and every 10 s each Pod is read from the API
    // server itself, so a watch that missed its end (seen once in the cluster suite) delays a Run
    // by seconds, not until the next relist.
    let ticks = 0;
    this.ticker = setInterval(() => {
      const fresh = ++ticks % 10 === 0;
      this.watching.forEach((poke) => poke(fresh));
    }, 1000);
  }

  stop(): void {
    clearInterval(this.ticker);
    for (const i of this.informers) i.stop();
  }

  healthy(): boolean {
    return this.informers.every((i) => i.healthy());
  }

  private cached(ns: string, name: string): Pod | undefined {
    for (const i of this.informers) {
      const p = i.get(ns, name);
      if (p) return p;
    }
    return undefined;
  }

  /**
   * Runs (or adopts) the Pod of a claimed Run. Secrets are read only to mask their values in what
   * this agent keeps: the kubelet gives them to the step.
   */
  async execute(run: Run, _runtime: Runtime, logFile: string): Promise<RunningStep> {
    const namespace = run.metadata.namespace ?? '';
    const one = await this.namespaces.secretEnv(run);
    const whole = await this.namespaces.secretValues(namespace, wholeSecrets(run));
    return new PodExecution(this, run, logFile, [
      ...maskedValues('error' in one ? {} : one.values),
      ...whole,
    ]);
  }

  /** The Pod of a Run cancelled while no agent held it (handed back, not yet adopted). */
  async cancelUnclaimed(run: Run): Promise<void> {
    const ns = run.metadata.namespace ?? '';
    const name = stepPodName(run);
    const pod = this.cached(ns, name);
    if (!pod || !runsPod(pod, run)) return;
    // Not Cancelled while the Pod still runs: the agent tries again at the Run's next event.
    if (!(await deleteStepPod(this.kube, ns, name, pod.metadata?.uid, this.opts.graceMs)))
      throw new Error(`the step Pod ${name} could not be deleted`);
  }

  /** @internal for PodExecution */
  get options(): PodExecutorOptions {
    return this.opts;
  }
  /** @internal */
  watch(ns: string, name: string, poke: (fresh?: boolean) => void): () => void {
    const k = key(ns, name);
    this.watching.set(k, poke);
    return () => {
      if (this.watching.get(k) === poke) this.watching.delete(k);
    };
  }
  /** @internal */
  pod(ns: string, name: string): Pod | undefined {
    return this.cached(ns, name);
  }
}

class PodExecution implements RunningStep {
  readonly done: Promise<Result>;
  private stopped: 'timeout' | 'cancel' | 'release' | undefined;
  private askedEvents = false;
  /** Why the step has not started yet, while its Pod cannot be created. */
  waiting: string | undefined;
  private finish!: (r: Result) => void;
  private readonly ns: string;
  private readonly name: string;
  private readonly masker: Masker;
  private readonly secretValues: string[];
  private following = false;
  /** The Pod was seen in the watch cache: its absence there later means it was deleted. */
  private seen = false;
  private followed = false;
  private ending = false;
  private log: BoundedLog | undefined;
  private readonly abort = new AbortController();
  private unwatch: () => void = () => undefined;

  constructor(
    private readonly ex: PodExecutor,
    private readonly run: Run,
    private readonly logFile: string,
    secretValues: string[],
  ) {
    this.ns = run.metadata.namespace ?? '';
    this.name = stepPodName(run);
    this.secretValues = secretValues;
    this.masker = new Masker(this.secretValues);
    this.done = new Promise<Result>((r) => (this.finish = r)).finally(() => {
      this.unwatch();
      this.abort.abort();
    });
    void this.begin().catch((e: unknown) =>
      this.end({ startError: `cannot start the step Pod: ${String(e)}` }),
    );
  }

  get stopReason(): 'timeout' | 'cancel' | 'release' | undefined {
    return this.stopped;
  }

  stop(reason: 'timeout' | 'cancel' | 'release'): void {
    if (this.stopped) return;
    this.stopped = reason;
    // Handed back: the Pod keeps running, and whoever claims the Run next adopts it.
    if (reason === 'release') return this.end({});
    void this.deletePod().then(() => this.end({ stoppedFor: 'cancel' }));
  }

  private deletePod(uid = this.ex.pod(this.ns, this.name)?.metadata?.uid): Promise<boolean> {
    return deleteStepPod(this.ex.kube, this.ns, this.name, uid, this.ex.options.graceMs);
  }

  private async create(body: object): Promise<Pod> {
    const pod = (await createStepPod(this.ex.kube, this.ns, body, {
      stuckMs: this.ex.options.stuckMs,
      abandoned: () => this.stopped !== undefined,
      waiting: (why) => (this.waiting = why),
    })) as Pod;
    this.waiting = undefined;
    return pod;
  }

  private async begin(): Promise<void> {
    await mkdir(dirname(this.logFile), { recursive: true });
    // There from the start, as a process's log is: a reader following it waits for lines, not a file.
    this.log = new BoundedLog(this.logFile, this.ex.options.maxLogBytes, 'w');
    const body = stepPod(this.run, {
      helperImage: this.ex.options.helperImage,
      graceSeconds: Math.ceil(this.ex.options.graceMs / 1000),
    });
    let pod: Pod;
    try {
      pod = await this.create(body);
      log.debug({ run: `${this.ns}/${this.name}` }, 'step Pod created');
    } catch (e) {
      if (this.stopped) return;
      if (statusCode(e) === undefined) throw e;
      if (statusCode(e) !== 409)
        return this.end({ startError: `the step Pod was refused: ${statusMessage(e)}` });
      pod = await this.ex.kube.get<Pod>({ ...pods(this.ns), name: this.name });
      if (!runsPod(pod, this.run))
        return this.end({ startError: `a Pod named ${this.name} exists and belongs to another Run` });
      log.info({ run: `${this.ns}/${this.name}` }, 'adopted the step Pod of an earlier claim');
    }
    // Stopped while the Pod was being made: the delete then found nothing, so it goes now.
    if (this.stopped) return void (this.stopped !== 'release' && (await this.deletePod(pod.metadata?.uid)));
    this.unwatch = this.ex.watch(this.ns, this.name, (fresh) => {
      if (!fresh) return this.observe('cache');
      void this.ex.kube
        .get<Pod>({ ...pods(this.ns), name: this.name })
        .then((p) => this.observe('server', p))
        .catch((e: unknown) => {
          if (statusCode(e) === 404) this.observe('server');
        });
    });
    this.observe('created', pod);
  }

  private observe(source: PodSource, fresh?: Pod): void {
    if (this.ending || this.stopped) return;
    const cached = source === 'cache' ? this.ex.pod(this.ns, this.name) : undefined;
    if (cached) this.seen = true;
    const pod = podInSight(source, source === 'cache' ? cached : fresh, this.seen);
    if (pod === 'unknown') return;
    if (pod === 'gone') {
      return void this.settle({
        state: 'failed',
        reason: 'PodDeleted',
        message: `the step Pod ${this.name} was deleted before the step ended`,
      });
    }
    const outcome = podOutcome(pod, Date.now(), this.ex.options.stuckMs);
    if (outcome.state === 'pending') return;
    if (outcome.state === 'failed' && outcome.reason === POD_STUCK) return void this.stuck(outcome);
    if (!this.following && !this.followed) void this.follow();
    if (outcome.state === 'running') return;
    void this.settle(outcome);
  }

  /** A Pod that never started its step: ended, quoting its last Warning Event (FailedMount, ...). */
  private async stuck(outcome: Extract<PodOutcome, { state: 'failed' }>): Promise<void> {
    if (this.ending || this.askedEvents) return;
    this.askedEvents = true;
    const warning = await podWarning(this.ex.kube, this.ns, this.name);
    void this.settle({ ...outcome, message: warning ? `${outcome.message}: ${warning}` : outcome.message });
  }

  /** Follows the step container's log into the log file, masked, keeping the tail for the Run. */
  private async follow(): Promise<void> {
    this.following = true;
    try {
      const res = await rawStream(
        this.ex.kubeConfig,
        `${podPath(this.ns, this.name)}/log?container=${STEP_CONTAINER}&follow=true`,
        this.abort.signal,
      );
      for await (const chunk of res) this.write(this.masker.push(chunk as Buffer));
      this.followed = true;
    } catch {
      // Not started yet, or the connection broke: settle() reads the whole log once more.
    } finally {
      this.following = false;
    }
  }

  private write(chunk: Buffer): void {
    // An adopted Pod's executor did not begin it: its log starts here.
    this.log ??= new BoundedLog(this.logFile, this.ex.options.maxLogBytes, 'w');
    this.log.write(chunk);
  }

  private async settle(outcome: Exclude<PodOutcome, { state: 'pending' | 'running' }>): Promise<void> {
    if (this.ending) return;
    this.ending = true;
    // The whole log when following missed any of it (an adopted Pod, a broken connection).
    if (!this.followed) {
      this.abort.abort();
      try {
        const text = await rawText(
          this.ex.kubeConfig,
          `${podPath(this.ns, this.name)}/log?container=${STEP_CONTAINER}`,
        );
        this.log?.restart();
        this.write(Buffer.from(new Masker(this.secretValues).text(text)));
      } catch {
        // the step never started: no log
      }
    } else this.write(this.masker.end());
    const { tail } = this.log ? await this.log.end() : { tail: '' };
    if (outcome.state === 'failed') {
      if (outcome.timeout)
        return this.end({
          stoppedFor: 'timeout',
          tail,
          ...(this.run.spec.timeoutSeconds ? { timeoutSeconds: this.run.spec.timeoutSeconds } : {}),
        });
      if (outcome.reason === 'NonZeroExit') return this.end({ exitCode: outcome.exitCode ?? 1, tail });
      return this.end({
        podFailure: { reason: outcome.reason, message: outcome.message },
        tail,
        ...(outcome.exitCode !== undefined ? { exitCode: outcome.exitCode } : {}),
      });
    }
    let report;
    try {
      report = parseReport(
        await retryTransient(
          () =>
            rawText(this.ex.kubeConfig, `${podPath(this.ns, this.name)}/log?container=${REPORT_CONTAINER}`),
          { deadlineMs: 30_000 },
        ),
      );
    } catch (e) {
      report = { error: `cannot read the reporter's log: ${String(e)}` };
    }
    if ('error' in report)
      return this.end({ podFailure: { reason: 'ReportFailed', message: report.error }, tail });
    const masked = (v: string | { bytes: number }) => (typeof v === 'string' ? this.masker.text(v) : v);
    this.end({
      exitCode: 0,
      tail,
      outputFile: masked(report.output),
      controlFile: masked(report.control),
      statusFile: masked(report.status),
      outputDir: report.files,
    });
  }

  private end(r: Partial<Result>): void {
    this.ending = true;
    this.finish({ exitCode: null, signal: null, outputFile: '', controlFile: '', tail: '', ...r });
  }
}
