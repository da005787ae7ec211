// A typed controller in the spirit of controller-runtime's builder: what it reconciles (`for`),
// the objects it owns (their controller owner reference names the key), other watches mapped to
// keys, and a reconcile that may ask to run again later (`Result.requeueAfter`). One work queue per
// controller: a key is never reconciled by two workers at once; errors retry with per-key backoff;
// a TerminalError is logged and not retried.
//
// Requeues and backoff live in memory and survive neither a restart nor a leader change, by design:
// timers that matter (a retryAfter, a periodic reconciliation) live in the objects' status, and a
// fresh process reconciles every object once when it starts.
import type { Counter, Gauge, Histogram } from 'prom-client';
import { statusCode, statusMessage } from '../rest.js';
import { WorkQueue } from '../queue.js';
import { isNamespaceTerminating } from '../retry.js';
import { log } from '../../telemetry/log.js';
import type { KubeObject } from '../informer.js';

export interface Result {
  /**
   * Reconcile this key again after this many ms, even if nothing changes. Each successful
   * reconcile's answer replaces the timer of the one before (no answer: no timer), because a plan is
   * made from the whole state; a change meanwhile, a conflict or a backoff may bring it sooner.
   */
  requeueAfter?: number;
}

/** The Result of a plan that may ask to look again after `ms`. */
export const requeueAfter = (ms: number | undefined): Result | undefined =>
  ms === undefined ? undefined : { requeueAfter: ms };

/** A failure that retrying cannot fix: logged, counted, not retried. */
export class TerminalError extends Error {}

type Handler<T> = (...args: T[]) => void;

/** What a controller watches: an informer's events and its cache (ResilientInformer fits). */
export interface Source<T extends KubeObject = KubeObject> {
  on(event: 'add' | 'delete', h: (o: T) => void): unknown;
  on(event: 'update', h: (old: T, o: T) => void): unknown;
  off(event: 'add' | 'update' | 'delete', h: Handler<T>): unknown;
  list(): T[];
}

export interface OwnerReferenced extends KubeObject {
  metadata?: KubeObject['metadata'] & {
    ownerReferences?: { kind?: string; name?: string; controller?: boolean }[];
  };
}

export interface ControllerSpec<T extends KubeObject = KubeObject> {
  name: string;
  /** The kind reconciled: each object's key is `namespace/name`, unless `key` says otherwise. */
  for: Source<T>;
  /**
   * The keys an object of `for` queues (default: its own `namespace/name`), so a controller can
   * reconcile something derived from it, such as the tree a deleted object leaves behind.
   */
  key?: (o: T) => string[];
  /**
   * Objects whose controller owner reference of this kind names the key (`Owns`); a cluster-scoped
   * owner's key has no namespace, whatever the namespace of what it owns.
   */
  owns?: { source: Source<OwnerReferenced>; kind: string; clusterScoped?: boolean }[];
  /**
   * Other objects, mapped to the keys they concern (`Watches`); an update passes only when
   * `changed` says it matters (controller-runtime's predicates).
   */
  watches?: {
    source: Source;
    map: (o: KubeObject) => string[];
    changed?: (old: never, o: never) => boolean;
  }[];
  reconcile: (key: string) => Promise<Result | void>;
  workers?: number;
  /**
   * Every this many ms, every cached object of `for` is queued again (controller-runtime's
   * SyncPeriod), and a requeueAfter as long or longer is not kept: the resync comes first. So
   * thousands of finished runs each waiting days for their retention hold no timer each.
   */
  resyncMs?: number;
}

export function defineController<T extends KubeObject>(spec: ControllerSpec<T>): ControllerSpec<T> {
  return spec;
}

export const keyOf = (o: KubeObject) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;

/** Keys of the owners an object names as its controller, of one kind. */
export function ownerKeys(o: OwnerReferenced, kind: string, clusterScoped = false): string[] {
  const namespace = clusterScoped ? '' : (o.metadata?.namespace ?? '');
  return (o.metadata?.ownerReferences ?? [])
    .filter((r) => r.controller && r.kind === kind && r.name)
    .map((r) => `${namespace}/${r.name}`);
}

export interface ControllerMetrics {
  reconciles: Counter<'controller' | 'result'>;
  latency: Histogram<'controller'>;
  retries: Counter<'controller'>;
  depth: Gauge<'controller'>;
}

export class Controller<T extends KubeObject = KubeObject> {
  readonly queue = new WorkQueue();
  private readonly unhook: (() => void)[] = [];
  private workers: Promise<void>[] = [];
  private running = false;
  private resync: NodeJS.Timeout | undefined;

  constructor(
    readonly spec: ControllerSpec<T>,
    private readonly metrics?: ControllerMetrics,
  ) {}

  get name(): string {
    return this.spec.name;
  }

  /** Hooks the event handlers (events queue keys from now on, even before workers run). */
  watch(): void {
    const hook = <O extends KubeObject>(
      source: Source<O>,
      keys: (o: O) => string[],
      changed: (old: O, o: O) => boolean = () => true,
    ) => {
      const each: Handler<O> = (o) => keys(o).forEach((k) => this.queue.add(k));
      const update = (old: O, o: O) => {
        if (changed(old, o)) each(o);
      };
      source.on('add', each);
      source.on('update', update);
      source.on('delete', each);
      this.unhook.push(() => {
        source.off('add', each);
        source.off('update', update as Handler<O>);
        source.off('delete', each);
      });
    };
    hook(this.spec.for, this.keys);
    for (const { source, kind, clusterScoped } of this.spec.owns ?? [])
      hook(source, (o) => ownerKeys(o, kind, clusterScoped));
    for (const { source, map, changed } of this.spec.watches ?? [])
      hook(source, map, changed as ((old: KubeObject, o: KubeObject) => boolean) | undefined);
  }

  /** Starts the workers, after queueing every object of `for` once. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.queueAll();
    if (this.spec.resyncMs !== undefined) {
      this.resync = setInterval(() => this.queueAll(), this.spec.resyncMs);
      this.resync.unref();
    }
    for (let i = 0; i < (this.spec.workers ?? 4); i++) this.workers.push(this.work());
  }

  private readonly keys = (o: T): string[] => (this.spec.key ? this.spec.key(o) : [keyOf(o)]);

  private queueAll(): void {
    for (const o of this.spec.for.list()) for (const k of this.keys(o)) this.queue.add(k);
  }

  /** Unhooks the handlers, stops taking keys and waits for reconciles in flight. */
  async stop(): Promise<void> {
    this.unhook.splice(0).forEach((u) => u());
    this.running = false;
    clearInterval(this.resync);
    this.queue.shutdown();
    await Promise.all(this.workers);
    this.workers = [];
  }

  private async work(): Promise<void> {
    const controller = this.name;
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      this.metrics?.depth.set({ controller }, this.queue.depth);
      const end = this.metrics?.latency.startTimer({ controller });
      try {
        const result = await this.spec.reconcile(key);
        this.queue.forget(key);
        const after = result?.requeueAfter;
        this.queue.reschedule(
          key,
          after !== undefined && !(after >= (this.spec.resyncMs ?? Infinity)) ? after : undefined,
        );
        this.metrics?.reconciles.inc({
          controller,
          result: result?.requeueAfter !== undefined ? 'requeue' : 'ok',
        });
      } catch (e) {
        this.failed(key, e);
      } finally {
        end?.();
        this.queue.done(key);
      }
    }
  }

  private failed(key: string, e: unknown): void {
    const controller = this.name;
    if (e instanceof TerminalError) {
      this.metrics?.reconciles.inc({ controller, result: 'terminal' });
      log.error({ controller, key, err: e.message }, 'reconcile failed for good; not retrying');
      this.queue.forget(key);
      return;
    }
    if (isNamespaceTerminating(e)) {
      // The namespace is going away with everything in it: nothing to create any more.
      log.debug({ controller, key }, 'namespace is terminating; not retrying');
      this.queue.forget(key);
      return;
    }
    this.metrics?.retries.inc({ controller });
    if (statusCode(e) === 409) {
      // The cache was behind the API server: the write's own watch event requeues the key; the
      // short retry is a fallback, and a conflict does not grow the backoff.
      this.metrics?.reconciles.inc({ controller, result: 'conflict' });
      this.queue.addAfter(key, 200);
      return;
    }
    this.metrics?.reconciles.inc({ controller, result: 'error' });
    log.warn({ controller, key, err: statusMessage(e) }, 'reconcile failed; retrying');
    this.queue.addRateLimited(key);
  }
}
