// The controller process: which controllers run and what each one watches. The machinery (shared
// informers, queues, backoff, leader election, metrics) is src/kube/controller.
//
//   workflowrun  for WorkflowRuns; owns Runs and child WorkflowRuns (and snapshot ControllerRevisions,
//                not watched: controller/snapshots.ts);
//                watches the agents' Leases (a Run that waits for an agent concerns its owner)
//   teardown     for WorkflowRuns that went before they ended: deletes the Runs, child runs and
//                snapshot they leave (controller/teardown.ts); watches Runs for a gone controller
//   workflow     for Workflows; watches Workflows (readiness follows the Workflows a Workflow calls)
//   promise      for Promises; owns their CRDs; starts and stops one resources/<promise> controller
//                per Promise (for its API's resources; owns their pipeline WorkflowRuns and Works)
//   work         for Works: applies their objects (server-side apply) and prunes dropped ones
import { crdSummary } from '../src/promise/ownership.js';
import type http from 'node:http';
import { collectDefaultMetrics, Counter, Registry } from 'prom-client';
import type { PromiseObject, Run, Work, Workflow, WorkflowRun } from '../src/api/types.js';
import type { KubeAccess } from '../src/kube/access.js';
import { cachedValues } from '../src/kube/intern.js';
import { KubeClient } from '../src/kube/rest.js';
import { defineController, keyOf } from '../src/kube/controller/controller.js';
import { ControllerManager } from '../src/kube/controller/manager.js';
import type { LeaderOptions } from '../src/kube/leader.js';
import { LABEL_AGENT, LABEL_PARENT_UID, LABEL_RESOURCE_UID, LABEL_WORKFLOWRUN_UID } from '../src/labels.js';
import { DEFAULT_TTL_SECONDS } from '../src/limits.js';
import {
  AGENT_LEASE_NAMESPACE,
  servedUntilByLeases,
  servingChanged,
  type LeaseLike,
} from '../src/runtime/agents.js';
import { isClaimable } from '../src/runtime/lifecycle.js';
import { runAsObserved, type ObservedRun } from '../src/plan/run-plan.js';
import { workflowRunAsObserved } from '../src/plan/workflowrun.js';
import { log } from '../src/telemetry/log.js';
import type { OpsOptions } from '../src/telemetry/ops.js';
import { eventRecorder } from './events.js';
import { reconcileWorkflow } from './workflow.js';
import { reconcilePromise, type Crd } from './promise.js';
import { ServedApis } from './served.js';
import type { ResourceApi } from '../src/promise/api.js';
import { reconcileWork } from './work.js';
import { Discovery } from '../src/kube/discovery.js';
import type { ResilientInformer } from '../src/kube/informer.js';
import { actingAs } from '../src/kube/access.js';
import { promiseServiceAccount, serviceAccountUser } from '../src/names.js';
import { reconcileWorkflowRun, type Caches, type ReconcileDeps } from './workflowrun.js';
import { SnapshotSpecs } from './snapshots.js';
import { teardownController } from './teardown.js';
import { CreatorAccess } from './creator-access.js';

export interface ManagerOptions {
  workers: number;
  /** Starts the health and metrics servers (the process's flags say where). */
  ops: (o: OpsOptions) => http.Server[];
  /** Without it, this replica acts at once (a single replica, or tests). */
  leader?: LeaderOptions;
  /** Where runtimed agents hold their Leases (default kruntimes-system). */
  agentNamespace?: string;
  /** Seconds a finished root WorkflowRun is kept when its spec does not say (default 7 days). */
  ttlSecondsAfterFinished?: number;
  /** How often a resource's configure workflow runs again, unless its Promise says (default 10h). */
  reconcileInterval?: string;
  /** Where the Promises' service accounts are, which their Works act as (default kruntimes-system). */
  installNamespace?: string;
}

const API = '/apis/kruntimes.io/v1alpha1';

export class Manager {
  readonly registry = new Registry();
  readonly runtime: ControllerManager;
  /** API writes by verb and resource, for the benchmark's writes-per-step figure. */
  readonly writes: Counter;
  private servers: http.Server[] = [];
  private readonly kube: KubeClient;

  constructor(
    private readonly kc: KubeAccess,
    private readonly opts: ManagerOptions,
  ) {
    collectDefaultMetrics({ register: this.registry });
    this.writes = new Counter({
      name: 'krt_controller_api_writes_total',
      help: 'API writes by verb and resource.',
      labelNames: ['verb', 'resource'],
      registers: [this.registry],
    });
    this.kube = new KubeClient(kc, this.writes);
    this.runtime = new ControllerManager(kc, {
      registry: this.registry,
      leader: opts.leader,
      onLostLeadership: () => {
        // As client-go does: a replica that lost the lease exits and is restarted clean.
        log.error('lost leadership; exiting');
        process.exit(1);
      },
    });
  }

  private async register(): Promise<void> {
    const m = this.runtime;
    const caches = workflowCaches(m);
    const agents = m.informer<LeaseLike>({
      path: `/apis/coordination.k8s.io/v1/namespaces/${this.opts.agentNamespace ?? AGENT_LEASE_NAMESPACE}/leases`,
      labelSelector: LABEL_AGENT,
    });
    const deps: ReconcileDeps = {
      caches,
      kube: this.kube,
      snapshotSpecs: new SnapshotSpecs(this.kube),
      access: new CreatorAccess(this.kube),
      events: eventRecorder(this.kube, 'kruntimes-controller'),
      defaultTtlSeconds: this.opts.ttlSecondsAfterFinished ?? DEFAULT_TTL_SECONDS,
      agents: {
        servedUntil: (runtime, namespace, now) => servedUntilByLeases(agents.list(), runtime, namespace, now),
      },
    };
    await m.add(workflowRunController(deps, agents, this.opts.workers));
    await m.add(teardownController(deps));
    await m.add(workflowController(deps));
    await this.registerPromises(caches, deps.events);
  }

  /** Promises, the reconcilers of their resources, and Works. */
  private async registerPromises(caches: Caches, events: ReconcileDeps['events']): Promise<void> {
    const m = this.runtime;
    const kube = this.kube;
    const promises = m.informer<PromiseObject>({ path: `${API}/promises` });
    const works = m.informer<Work>({ path: `${API}/works`, indexLabels: [LABEL_RESOURCE_UID] });
    const crds = m.informer<Crd>({
      path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      transform: crdSummary,
    });
    const served = new ServedApis(m, {
      promises,
      workflowRuns: caches.workflowRuns,
      runs: caches.runs,
      works,
      workflows: caches.workflows,
      kube,
      events,
      defaultInterval: this.opts.reconcileInterval,
    });
    await m.add(
      defineController({
        name: 'promise',
        for: promises,
        // Its CRD, and the runs and Works of its own workflows (in the workflowNamespace).
        owns: [
          { source: crds, kind: 'Promise' },
          { source: caches.workflowRuns, kind: 'Promise', clusterScoped: true },
          { source: works, kind: 'Promise', clusterScoped: true },
        ],
        reconcile: (key) =>
          reconcilePromise(key, {
            promises,
            crds,
            kube,
            events,
            workflowRuns: caches.workflowRuns,
            runs: caches.runs,
            works,
            workflows: caches.workflows,
            defaultInterval: this.opts.reconcileInterval,
            serve: (promise, api) => served.serve(promise, api),
            unserve: (promise) => served.unserve(promise),
            missingRights: (api) => missingRights(kube, api),
            isServed: (promise, api) => served.isServed(promise, api),
          }),
        workers: 2,
      }),
    );
    await m.add(this.workController(works, events));
  }

  /** Works: each applied as the service account of the Promise it is for. */
  private workController(works: ResilientInformer<Work>, events: ReconcileDeps['events']) {
    const discovery = new Discovery(this.kc);
    const installNamespace = this.opts.installNamespace ?? 'kruntimes-system';
    return defineController({
      name: 'work',
      for: works,
      reconcile: (key) =>
        reconcileWork(key, {
          actAs: (promise) =>
            actingAs(this.kc, serviceAccountUser(installNamespace, promiseServiceAccount(promise))),
          works,
          kube: this.kube,
          discovery,
          events,
        }),
      workers: 4,
    });
  }

  healthy(): boolean {
    return this.runtime.healthy();
  }

  async start(): Promise<void> {
    await this.register();
    this.servers = this.opts.ops({
      registry: this.registry,
      ready: () => this.healthy(),
      notReady: 'informers not synced or stalled',
    });
    await this.runtime.start();
  }

  async stop(): Promise<void> {
    await this.runtime.stop();
    for (const s of this.servers) s.close();
  }
}

const SELF_SUBJECT_ACCESS_REVIEWS = {
  group: 'authorization.k8s.io',
  version: 'v1',
  plural: 'selfsubjectaccessreviews',
};

/** What a resources/<promise> reconciler needs on its API that the controller may not do. */
async function missingRights(kube: KubeClient, api: ResourceApi): Promise<string[]> {
  const wanted: [string, string | undefined][] = [
    ['list', undefined],
    ['watch', undefined],
    ['patch', undefined],
    ['delete', undefined],
    ['update', 'status'],
  ];
  const answers = await Promise.all(
    wanted.map(async ([verb, subresource]) => {
      const review = await kube.create<{ status?: { allowed?: boolean } }>(SELF_SUBJECT_ACCESS_REVIEWS, {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: {
          resourceAttributes: {
            group: api.group,
            resource: api.plural,
            verb,
            ...(subresource ? { subresource } : {}),
          },
        },
      });
      return review.status?.allowed ? undefined : subresource ? `${verb} ${subresource} of` : verb;
    }),
  );
  return answers.filter((a): a is string => a !== undefined);
}

const WORKFLOWRUN_RESYNC_MS = 60 * 60_000;

/** The caches the WorkflowRun reconciler reads, each keeping only what planning needs. */
function workflowCaches(m: ControllerManager): Caches {
  return {
    workflowRuns: m.informer<WorkflowRun>({
      path: `${API}/workflowruns`,
      indexLabels: [LABEL_PARENT_UID, LABEL_RESOURCE_UID],
      transform: (run: WorkflowRun) => workflowRunAsObserved(run, cachedValues),
    }),
    runs: m.informer<ObservedRun>({
      path: `${API}/runs`,
      indexLabels: [LABEL_WORKFLOWRUN_UID],
      transform: (run: Run) => runAsObserved(run, cachedValues),
    }),
    workflows: m.informer<Workflow>({ path: `${API}/workflows` }),
  };
}

/** WorkflowRuns, woken by their Runs and child runs, and by agents that come, go or renew. */
function workflowRunController(
  deps: ReconcileDeps,
  agents: ResilientInformer<LeaseLike>,
  workers: number | undefined,
) {
  const { caches } = deps;
  return defineController({
    name: 'workflowrun',
    for: caches.workflowRuns,
    owns: [caches.runs, caches.workflowRuns].map((source) => ({ source, kind: 'WorkflowRun' })),
    // An agent that comes, goes or renews may change why a Run waits: its owner looks again.
    watches: [
      {
        source: agents,
        // A renewal of a live agent changes nothing; expiries are caught by requeueAfter.
        changed: (old, lease) => servingChanged(old, lease, Date.now()),
        map: () =>
          caches.runs
            .list()
            .filter(isClaimable)
            .flatMap((r) =>
              (r.metadata.ownerReferences ?? [])
                .filter((o) => o.controller && o.kind === 'WorkflowRun')
                .map((o) => `${r.metadata.namespace}/${o.name}`),
            ),
      },
    ],
    reconcile: (key) => reconcileWorkflowRun(key, deps),
    workers,
    // Finished runs wait a week for their retention by default: the hourly resync wakes them,
    // instead of a timer each.
    resyncMs: WORKFLOWRUN_RESYNC_MS,
  });
}

/** Workflows: readiness depends on the Workflows a Workflow calls, so a change to any Workflow
 * re-checks every Workflow of its namespace (namespaces hold templates, not thousands). */
function workflowController(deps: ReconcileDeps) {
  const { workflows } = deps.caches;
  return defineController({
    name: 'workflow',
    for: workflows,
    watches: [{ source: workflows, map: (o) => workflows.list(o.metadata?.namespace ?? '').map(keyOf) }],
    reconcile: (key) => reconcileWorkflow(key, deps),
    workers: 2,
  });
}
