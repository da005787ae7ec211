// The process side of controllers: informers shared by what they watch (two controllers of one
// kind share one list and one watch), controllers added and removed while the process runs (a
// Promise's resource API appears and disappears), leader election, and the metrics they all report.
import type { KubeAccess } from '../access.js';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { log } from '../../telemetry/log.js';
import { ResilientInformer, type InformerOptions, type KubeObject } from '../informer.js';
import { informerMetrics } from '../informer-metrics.js';
import { LeaderElector, type LeaderOptions } from '../leader.js';
import { Controller, type ControllerMetrics, type ControllerSpec, type Source } from './controller.js';

interface Shared {
  informer: ResilientInformer<KubeObject>;
  /** Controllers that use it. */
  users: number;
  started?: Promise<void>;
}

export interface ManagerOptions {
  registry: Registry;
  /** Without it, this process acts at once (a single replica, or tests). */
  leader?: LeaderOptions;
  /** Called when leadership is lost; client-go's default is to exit and restart clean. */
  onLostLeadership?: () => void;
}

export class ControllerManager {
  private readonly informers = new Map<string, Shared>();
  private readonly controllers = new Map<string, Controller>();
  private readonly metrics: ControllerMetrics;
  private readonly attempts: Counter<'result'>;
  private started = false;
  private leading = false;
  private elector: LeaderElector | undefined;

  constructor(
    private readonly kc: KubeAccess,
    private readonly opts: ManagerOptions,
  ) {
    const registers = [opts.registry];
    this.metrics = {
      reconciles: new Counter({
        name: 'krt_controller_reconciles_total',
        help: 'Reconciles by controller and result (ok, requeue, conflict, error, terminal).',
        labelNames: ['controller', 'result'],
        registers,
      }),
      latency: new Histogram({
        name: 'krt_controller_reconcile_duration_seconds',
        help: 'Reconcile time by controller.',
        labelNames: ['controller'],
        buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
        registers,
      }),
      retries: new Counter({
        name: 'krt_controller_retries_total',
        help: 'Keys put back after a failed reconcile, by controller.',
        labelNames: ['controller'],
        registers,
      }),
      depth: new Gauge({
        name: 'krt_controller_queue_depth',
        help: 'Keys waiting in each controller’s queue.',
        labelNames: ['controller'],
        registers,
      }),
    };
    this.attempts = new Counter({
      name: 'krt_controller_lease_attempts_total',
      help: 'Attempts to take or renew the leader Lease, by result (held, held-by-other, error).',
      labelNames: ['result'],
      registers,
    });
    informerMetrics(opts.registry, () => [...this.informers.values()].map((s) => s.informer));
    const leading = () => this.isLeading();
    new Gauge({
      name: 'krt_controller_is_leader',
      help: '1 while this replica holds the lease and acts.',
      registers,
      collect() {
        this.set(leading() ? 1 : 0);
      },
    });
  }

  /** The informer of a path and label selector, shared by every controller that asks for it. */
  informer<T extends KubeObject>(o: InformerOptions): ResilientInformer<T> {
    const id = `${o.path}?${o.labelSelector ?? ''}`;
    let shared = this.informers.get(id);
    if (!shared) {
      shared = { informer: new ResilientInformer<KubeObject>(this.kc, o), users: 0 };
      this.informers.set(id, shared);
    }
    for (const label of o.indexLabels ?? []) shared.informer.addIndex(label);
    return shared.informer as unknown as ResilientInformer<T>;
  }

  /** Informers in use, by path and selector. */
  get watching(): string[] {
    return [...this.informers.keys()];
  }

  isLeading(): boolean {
    return this.elector ? this.elector.isLeader() : this.leading;
  }

  healthy(): boolean {
    return [...this.informers.values()].every((s) => s.informer.healthy());
  }

  /** Adds a controller; when the manager runs, its informers start and, if leading, its workers. */
  async add<T extends KubeObject>(spec: ControllerSpec<T>): Promise<void> {
    if (this.controllers.has(spec.name)) throw new Error(`controller "${spec.name}" is registered already`);
    const c = new Controller(spec as unknown as ControllerSpec, this.metrics);
    this.controllers.set(spec.name, c);
    for (const s of this.sharedOf(spec)) s.users++;
    c.watch();
    if (!this.started) return;
    await this.startInformers();
    if (this.isLeading()) c.start();
  }

  /** Whether a controller of this name is registered. */
  has(name: string): boolean {
    return this.controllers.has(name);
  }

  /** Queues a key of a controller from outside its watches (another controller's change). */
  enqueue(name: string, key: string): void {
    this.controllers.get(name)?.queue.add(key);
  }

  /** Removes a controller: its workers stop, and informers no other controller uses are stopped. */
  async remove(name: string): Promise<void> {
    const c = this.controllers.get(name);
    if (!c) return;
    this.controllers.delete(name);
    await c.stop();
    for (const s of this.sharedOf(c.spec)) {
      if (--s.users > 0) continue;
      s.informer.stop();
      for (const [id, x] of this.informers) if (x === s) this.informers.delete(id);
    }
    log.info({ controller: name }, 'controller removed');
  }

  /** Starts every informer (every replica keeps warm caches), then the workers once leading. */
  async start(): Promise<void> {
    this.started = true;
    await this.startInformers();
    if (!this.opts.leader) return this.lead();
    this.elector = new LeaderElector(this.kc, {
      ...this.opts.leader,
      onAttempt: (result) => this.attempts.inc({ result }),
    });
    void this.elector.run(
      () => this.lead(),
      () => this.opts.onLostLeadership?.(),
    );
  }

  async stop(): Promise<void> {
    this.leading = false;
    // Workers first, so nothing acts after the Lease is released.
    await Promise.all([...this.controllers.values()].map((c) => c.stop()));
    await this.elector?.stop();
    for (const s of this.informers.values()) s.informer.stop();
  }

  private lead(): void {
    this.leading = true;
    log.info({ controllers: [...this.controllers.keys()] }, 'caches synced; starting controllers');
    for (const c of this.controllers.values()) c.start();
  }

  private async startInformers(): Promise<void> {
    const pending: Promise<void>[] = [];
    for (const s of this.informers.values()) {
      if (s.users === 0) continue;
      s.started ??= s.informer.start();
      pending.push(s.started);
    }
    await Promise.all(pending);
  }

  private sharedOf<T extends KubeObject>(spec: ControllerSpec<T>): Shared[] {
    const sources = new Set<Source<never>>([
      spec.for as Source<never>,
      ...(spec.owns ?? []).map((o) => o.source as Source<never>),
      ...(spec.watches ?? []).map((w) => w.source as Source<never>),
    ]);
    return [...this.informers.values()].filter((s) => sources.has(s.informer as unknown as Source<never>));
  }
}
