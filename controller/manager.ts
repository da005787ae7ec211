// The controller manager: informers (list + watch, relist on 410) for WorkflowRuns, Runs,
// Workflows and snapshots; a de-duplicating, rate-limited queue keyed by namespace/name; workers
// that reconcile; a change to a Run or child WorkflowRun enqueues its owner.
import http from 'node:http';
import * as k8s from '@kubernetes/client-node';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Run, Workflow, WorkflowRun } from '../src/api/types.js';
import { apiClient, statusCode, statusMessage } from '../src/kube/client.js';
import { ResilientInformer, type KubeObject } from '../src/kube/informer.js';
import { LeaderElector, type LeaderOptions } from '../src/kube/leader.js';
import { WorkQueue } from '../src/kube/queue.js';
import { isNamespaceTerminating } from '../src/kube/retry.js';
import { LABEL_AGENT, LABEL_PARENT_UID, LABEL_WORKFLOWRUN_UID } from '../src/labels.js';
import { AGENT_LEASE_NAMESPACE, agentFromLease, servedUntil } from '../src/runtime/agents.js';
import { isClaimable } from '../src/runtime/lifecycle.js';
import { log } from '../src/telemetry/log.js';
import { eventRecorder } from './events.js';
import { reconcileWorkflow, WORKFLOW_KEY } from './workflow.js';
import { reconcileWorkflowRun, type Caches, type Snapshot } from './workflowrun.js';

export interface ManagerOptions {
  workers: number;
  metricsPort: number;
  /** Without it, this replica acts at once (a single replica, or tests). */
  leader?: LeaderOptions;
  /** Where runtimed agents hold their Leases (default kruntimes-system). */
  agentNamespace?: string;
}

export class Manager {
  readonly registry = new Registry();
  readonly queue = new WorkQueue();
  readonly caches: Caches;
  /** The Leases of the runtimed agents: which runtimes are served where. */
  readonly agents: ResilientInformer<k8s.V1Lease & KubeObject>;
  private running = false;
  private server: http.Server | undefined;
  private elector: LeaderElector | undefined;
  private readonly reconciles: Counter;
  private readonly latency: Histogram;
  readonly writes: Counter;

  constructor(
    private readonly kc: k8s.KubeConfig,
    private readonly opts: ManagerOptions,
  ) {
    collectDefaultMetrics({ register: this.registry });
    this.reconciles = new Counter({
      name: 'krt_controller_reconciles_total',
      help: 'Reconciles by result.',
      labelNames: ['result'],
      registers: [this.registry],
    });
    this.latency = new Histogram({
      name: 'krt_controller_reconcile_duration_seconds',
      help: 'Reconcile time.',
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
      registers: [this.registry],
    });
    this.writes = new Counter({
      name: 'krt_controller_api_writes_total',
      help: 'API writes by verb and resource.',
      labelNames: ['verb', 'resource'],
      registers: [this.registry],
    });
    const q = this.queue;
    new Gauge({
      name: 'krt_controller_queue_depth',
      help: 'Keys waiting in the work queue, read at scrape time.',
      registers: [this.registry],
      collect() {
        this.set(q.depth);
      },
    });
    const leading = () => (this.elector ? this.elector.isLeader() : this.running);
    new Gauge({
      name: 'krt_controller_is_leader',
      help: '1 while this replica holds the lease and acts.',
      registers: [this.registry],
      collect() {
        this.set(leading() ? 1 : 0);
      },
    });
    this.caches = {
      workflowRuns: new ResilientInformer<WorkflowRun>(kc, {
        path: '/apis/kruntimes.io/v1alpha1/workflowruns',
        indexLabels: [LABEL_PARENT_UID],
      }),
      runs: new ResilientInformer<Run>(kc, {
        path: '/apis/kruntimes.io/v1alpha1/runs',
        indexLabels: [LABEL_WORKFLOWRUN_UID],
      }),
      workflows: new ResilientInformer<Workflow>(kc, { path: '/apis/kruntimes.io/v1alpha1/workflows' }),
      snapshots: new ResilientInformer<Snapshot>(kc, {
        path: '/apis/apps/v1/controllerrevisions',
        labelSelector: LABEL_WORKFLOWRUN_UID,
      }),
    };
    this.agents = new ResilientInformer(kc, {
      path: `/apis/coordination.k8s.io/v1/namespaces/${opts.agentNamespace ?? AGENT_LEASE_NAMESPACE}/leases`,
      labelSelector: LABEL_AGENT,
    });
  }

  /** Until when a live agent serves `runtime` in `namespace`, from the cached Leases. */
  servedUntil(runtime: string, namespace: string, now: number): number | undefined {
    const agents = this.agents.list().flatMap((l) => agentFromLease(l) ?? []);
    return servedUntil(agents, runtime, namespace, now);
  }

  private wire(): void {
    const self = (o: KubeObject) => this.queue.add(`${o.metadata?.namespace}/${o.metadata?.name}`);
    const owner = (o: KubeObject & { metadata?: { ownerReferences?: k8s.V1OwnerReference[] } }) => {
      for (const ref of o.metadata?.ownerReferences ?? [])
        if (ref.kind === 'WorkflowRun' && ref.controller)
          this.queue.add(`${o.metadata?.namespace}/${ref.name}`);
    };
    const { workflowRuns, runs, snapshots, workflows } = this.caches;
    // A Workflow's readiness depends on the Workflows it calls, so a change to any Workflow
    // re-checks every Workflow of its namespace (namespaces hold templates, not thousands).
    const namespaceOf = (o: KubeObject) => {
      const ns = o.metadata?.namespace ?? '';
      for (const w of workflows.list(ns)) this.queue.add(`${WORKFLOW_KEY}${ns}/${w.metadata.name}`);
    };
    // An agent that comes, goes or renews may change why a Run waits: look at the runs that own
    // Runs no agent has claimed.
    const waiting = () => {
      for (const r of runs.list()) if (isClaimable(r)) owner(r);
    };
    this.agents.on('add', waiting);
    this.agents.on('update', waiting);
    this.agents.on('delete', waiting);
    workflows.on('add', namespaceOf);
    workflows.on('update', (_old, o) => namespaceOf(o));
    workflows.on('delete', namespaceOf);
    for (const [inf, handlers] of [
      [workflowRuns, [self, owner]],
      [runs, [owner]],
      [snapshots, [owner]],
    ] as const) {
      const each = (o: KubeObject) => handlers.forEach((h) => h(o));
      (inf as ResilientInformer<KubeObject>).on('add', each);
      (inf as ResilientInformer<KubeObject>).on('update', (_old, o) => each(o));
      (inf as ResilientInformer<KubeObject>).on('delete', each);
    }
  }

  healthy(): boolean {
    return Object.values(this.caches).every((c) => c.healthy()) && this.agents.healthy();
  }

  async start(): Promise<void> {
    this.wire();
    this.server = http.createServer(async (req, res) => {
      if (req.url === '/metrics') {
        res.setHeader('Content-Type', this.registry.contentType);
        res.end(await this.registry.metrics());
      } else if (req.url === '/healthz' || req.url === '/readyz') {
        const ok = this.healthy();
        res.statusCode = ok ? 200 : 503;
        res.end(ok ? 'ok' : 'informers not synced or stalled');
      } else {
        res.statusCode = 404;
        res.end();
      }
    });
    this.server.listen(this.opts.metricsPort, '127.0.0.1');
    // Every replica keeps warm caches; only the leader runs workers.
    await Promise.all([...Object.values(this.caches), this.agents].map((c) => c.start()));
    if (!this.opts.leader) return this.startWorkers();
    this.elector = new LeaderElector(this.kc, this.opts.leader);
    void this.elector.run(
      () => this.startWorkers(),
      () => {
        // As client-go does: a replica that lost the lease exits and is restarted clean.
        log.error('lost leadership; exiting');
        process.exit(1);
      },
    );
  }

  private startWorkers(): void {
    log.info({ workers: this.opts.workers }, 'caches synced; starting workers');
    this.running = true;
    const deps = {
      caches: this.caches,
      custom: apiClient(this.kc, k8s.CustomObjectsApi),
      apps: apiClient(this.kc, k8s.AppsV1Api),
      events: eventRecorder(apiClient(this.kc, k8s.CoreV1Api), 'kruntimes-controller', this.writes),
      writes: this.writes,
      agents: this,
    };
    for (const wf of this.caches.workflowRuns.list())
      this.queue.add(`${wf.metadata.namespace}/${wf.metadata.name}`);
    for (const wf of this.caches.workflows.list())
      this.queue.add(`${WORKFLOW_KEY}${wf.metadata.namespace}/${wf.metadata.name}`);
    for (let i = 0; i < this.opts.workers; i++) void this.worker(deps);
  }

  private async worker(deps: Parameters<typeof reconcileWorkflowRun>[1]): Promise<void> {
    while (this.running) {
      const key = await this.queue.get();
      if (key === undefined) return;
      const end = this.latency.startTimer();
      try {
        if (key.startsWith(WORKFLOW_KEY)) await reconcileWorkflow(key, deps);
        else {
          const after = await reconcileWorkflowRun(key, deps);
          if (after !== undefined) this.queue.addAfter(key, after);
        }
        this.queue.forget(key);
        this.reconciles.inc({ result: 'ok' });
      } catch (e) {
        // A conflict means the cache was behind the API server: routine, retried at once-ish.
        const conflict = statusCode(e) === 409;
        this.reconciles.inc({ result: conflict ? 'conflict' : 'error' });
        if (conflict) {
          // Our own write has not reached the cache yet; its watch event requeues the key. The
          // short retry is only a fallback, and a conflict does not grow the failure backoff.
          log.debug({ key }, 'status write conflicted; retrying');
          this.queue.addAfter(key, 200);
        } else if (isNamespaceTerminating(e)) {
          // The namespace is going away with everything in it: nothing to create any more.
          log.debug({ key }, 'namespace is terminating; not retrying');
          this.queue.forget(key);
        } else {
          log.warn({ key, err: statusMessage(e) }, 'reconcile failed; retrying');
          this.queue.addRateLimited(key);
        }
      } finally {
        end();
        this.queue.done(key);
      }
    }
  }

  async stop(): Promise<void> {
    await this.elector?.stop();
    this.running = false;
    this.queue.shutdown();
    [...Object.values(this.caches), this.agents].forEach((c) => c.stop());
    this.server?.close();
  }
}
