// The WorkflowRun reconciler: load from the informer caches, plan with src/plan, apply the
// actions, write status only when it changed. Nothing from an earlier reconcile is trusted.
import type { ObservedRun } from '../src/plan/run-plan.js';
import type { Result } from '../src/kube/controller/controller.js';
import { reconcilePlanned } from '../src/kube/controller/planned.js';
import type { Run, RunStatus, Workflow, WorkflowRun, WorkflowRunSpec } from '../src/api/types.js';
import { workflowRunEnded } from '../src/api/phases.js';
import { controlledBy, nameHolder } from '../src/api/objects.js';
import { ResilientInformer } from '../src/kube/informer.js';
import { crd, statusCode, statusMessage, type KubeClient } from '../src/kube/rest.js';
import { isDeterministicRefusal } from '../src/kube/retry.js';
import { LABEL_PARENT_UID, LABEL_SUSPENDED, LABEL_WORKFLOWRUN_UID } from '../src/labels.js';
import { buildSnapshot } from '../src/plan/build-objects.js';
import { NO_AGENT } from '../src/runtime/agents.js';
import { isClaimable } from '../src/runtime/lifecycle.js';
import {
  planWorkflowRun,
  settled,
  withFailedJobs,
  type Action,
  type Observed,
} from '../src/plan/workflowrun.js';
import { log } from '../src/telemetry/log.js';
import { AccessDenied, type CreatorAccess } from './creator-access.js';
import type { EventRecorder } from './events.js';
import { retryForCacheLag } from './missing.js';
import { snapshotsIn, type Snapshot, type SnapshotSpecs } from './snapshots.js';

export interface Caches {
  workflowRuns: ResilientInformer<WorkflowRun>;
  runs: ResilientInformer<ObservedRun>;
  workflows: ResilientInformer<Workflow>;
}

export interface ReconcileDeps {
  caches: Caches;
  kube: KubeClient;
  /** The specs of the runs' snapshots, which the controller does not watch. */
  snapshotSpecs: SnapshotSpecs;
  events: EventRecorder;
  /** The live agents, from their Leases; without it every runtime counts as served. */
  agents?: { servedUntil(runtime: string, namespace: string, now: number): number | undefined };
  /** Seconds a finished root run is kept unless its spec says otherwise; none when undefined. */
  defaultTtlSeconds?: number;
  /** The planner's clock (tests inject one). */
  clock?: () => Date;
  /** Whether a run's creator may have what a Run reaches (Secrets, a service account). */
  access?: CreatorAccess;
}

/**
 * One reconcile of the WorkflowRun at `namespace/name`; throws to be retried. Returns when to look
 * again if nothing else changes (ms), for a Run waiting on an agent whose Lease may expire.
 */
export async function reconcileWorkflowRun(key: string, deps: ReconcileDeps): Promise<Result | undefined> {
  const [namespace, name] = key.split('/') as [string, string];
  const { caches } = deps;
  const cached = caches.workflowRuns.get(namespace, name);
  if (!cached || cached.metadata.deletionTimestamp) return undefined;
  const observed = await observe(cached, deps);
  // A refused create fails its job and the plan is made again, so its dependents are Skipped and
  // the rest goes on in this same reconcile.
  const refused: Record<string, string> = {};
  return reconcilePlanned({
    object: cached,
    statusOf: (run) => run.status,
    plan: (now) =>
      planWorkflowRun({
        ...observed,
        ...owned(cached, deps),
        // A snapshot this reconcile wrote or adopted is in the memo: the run goes on from it at once.
        snapshot: observed.snapshot ?? deps.snapshotSpecs.known(cached.metadata.uid ?? ''),
        run: withFailedJobs(cached, refused),
        now,
      }),
    confirmMissing: (plan) =>
      retryForCacheLag(
        deps.kube,
        (plan.missingWorkflows ?? []).map((name) => ({ namespace, name })),
        { run: key },
      ),
    ends: (a) => a.type === 'deleteWorkflowRun',
    // What a create made is in the caches at once (their write-through), so the status written
    // after it names the new Run or child: one status write per step, not two.
    replanAfter: (a) => a.type === 'createSnapshot' || a.type === 'createRun' || a.type === 'createChild',
    id: actionId,
    apply: (action, target) => apply(action, target, deps),
    failed: (action, e) => {
      // The label comes before the status and is never skipped: a status that says Suspended is
      // always written after the label, so a missing label can only mean a resume.
      if (action.type === 'setSuspendedLabel') return 'fatal';
      if (!('job' in action) || !(e instanceof AccessDenied || isDeterministicRefusal(e))) return 'transient';
      refused[action.job] = e instanceof AccessDenied ? e.message : refusal(action, e);
      return 'replan';
    },
    // PUT with the cached resourceVersion: a stale cache gets a conflict and the key is retried.
    writeStatus: async (run, status) => {
      // A settled run is cached with part of its status (workflowRunAsObserved): never written back.
      if (settled(run)) throw new Error(`${key}: a settled run's status is not written from the cache`);
      return caches.workflowRuns.written(
        await deps.kube.replaceStatus<WorkflowRun>(
          { ...crd('workflowruns', namespace), name },
          { ...run, status },
        ),
      );
    },
    announce: (before, after) => announce(cached, before ?? {}, after, deps.events),
    clock: deps.clock,
  });
}

/**
 * The spec of the run's own snapshot. A settled run needs none, and its memo entry goes: kept until
 * it aged out, the specs of the last 4,096 runs, most of them finished, would stay in memory for
 * nothing. A run never planned (no snapshotName in its status) has none to read: the plan writes
 * it, and if a reconcile cut short by a restart had written it already, the create is refused (409)
 * and the snapshot read then.
 */
async function snapshotSpec(run: WorkflowRun, deps: ReconcileDeps): Promise<WorkflowRunSpec | undefined> {
  if (settled(run)) {
    deps.snapshotSpecs.forget(run.metadata.uid ?? '');
    return undefined;
  }
  if (!run.status?.snapshotName) return undefined;
  return deps.snapshotSpecs.spec(run);
}

/** The run's Runs and child runs as the caches hold them now (read again for each plan). */
function owned(cached: WorkflowRun, { caches }: ReconcileDeps): Pick<Observed, 'runs' | 'children'> {
  const uid = cached.metadata.uid ?? '';
  // UIDs are unique across namespaces, so the label indexes need no namespace filter.
  return {
    runs: caches.runs.withLabel(LABEL_WORKFLOWRUN_UID, uid).filter((r) => controlledBy(r, uid)),
    children: caches.workflowRuns.withLabel(LABEL_PARENT_UID, uid).filter((r) => controlledBy(r, uid)),
  };
}

/** What the plan reads from the caches, apart from the run itself, what it owns and the clock. */
async function observe(
  cached: WorkflowRun,
  deps: ReconcileDeps,
): Promise<Omit<Observed, 'run' | 'now' | 'runs' | 'children'>> {
  const { caches } = deps;
  const namespace = cached.metadata.namespace ?? '';
  const uid = cached.metadata.uid ?? '';
  return {
    snapshot: await snapshotSpec(cached, deps),
    workflow: (n) => caches.workflows.get(namespace, n),
    // Ours only when made for this run: its controller reference and the label only the controller sets.
    takenByOther: (kind, n) => {
      const found = kind === 'Run' ? caches.runs.get(namespace, n) : caches.workflowRuns.get(namespace, n);
      const label = kind === 'Run' ? LABEL_WORKFLOWRUN_UID : LABEL_PARENT_UID;
      const holder =
        found && nameHolder(found, { kind: 'WorkflowRun', name: cached.metadata.name ?? '', uid }, label);
      return holder === 'ours' ? undefined : holder;
    },
    agentsServe: deps.agents
      ? (runtime) => deps.agents?.servedUntil(runtime, namespace, (deps.clock?.() ?? new Date()).getTime())
      : undefined,
    defaultTtlSeconds: deps.defaultTtlSeconds,
  };
}

/** Names an action, so that a plan made again does not apply it twice (the floor of the bench too). */
export function actionId(a: Action): string {
  switch (a.type) {
    case 'createSnapshot':
      return `snapshot/${a.name}`;
    case 'createRun':
      return `run/${a.run.metadata.name}`;
    case 'createChild':
      return `child/${a.child.metadata.name}`;
    case 'markNoAgent':
      return `noagent/${a.run.metadata.name}`;
    case 'cancelUnserved':
      return `cancel-unserved/${a.run.metadata.name}`;
    case 'setSuspendedLabel':
      return `label/${a.value}`;
    case 'deleteWorkflowRun':
      return 'delete';
    default:
      return `${a.type}/${a.name}`;
  }
}

function refusal(action: Extract<Action, { job: string }>, e: unknown): string {
  const what =
    action.type === 'createRun'
      ? `Run "${action.run.metadata.name}"`
      : `WorkflowRun "${action.child.metadata.name}"`;
  return `the API server refused to create ${what}: ${statusMessage(e)}`;
}

function announce(
  run: WorkflowRun,
  old: NonNullable<WorkflowRun['status']>,
  status: NonNullable<WorkflowRun['status']>,
  events: EventRecorder,
): void {
  for (const [job, s] of Object.entries(status.jobs ?? {})) {
    const was = old.jobs?.[job];
    if (s.phase === 'Failed' && was?.phase !== 'Failed')
      events.record(run, 'Warning', 'JobFailed', `job "${job}" failed: ${s.message ?? ''}`);
    if (s.phase === 'Suspended' && (was?.phase !== 'Suspended' || s.nextRetryAt !== was.nextRetryAt))
      events.record(
        run,
        'Normal',
        s.nextRetryAt ? 'JobRetryScheduled' : 'JobSuspended',
        s.nextRetryAt
          ? `job "${job}" runs again at ${s.nextRetryAt}: ${s.message ?? ''}`
          : `job "${job}" is suspended: ${s.message ?? ''}`,
      );
    if (was?.phase === 'Suspended' && s.phase === 'Running')
      events.record(run, 'Normal', 'JobResumed', `job "${job}" runs again (attempt ${s.attempts ?? '?'})`);
    if (s.phase === 'Running' && s.message?.includes(`${NO_AGENT}: `) && s.message !== was?.message)
      events.record(run, 'Warning', NO_AGENT, `job "${job}" waits: ${s.message}`);
    if (s.workflowRunName && !was?.workflowRunName)
      events.record(
        run,
        'Normal',
        'ChildCreated',
        `created WorkflowRun "${s.workflowRunName}" for call job "${job}"`,
      );
  }
  if (status.phase !== old.phase && workflowRunEnded(status.phase))
    events.record(
      run,
      status.phase === 'Succeeded' ? 'Normal' : 'Warning',
      status.phase ?? '',
      status.message ?? `run ${status.phase}`,
    );
}

/** One action; the suspended label returns the run as patched, for the status write that follows. */
async function apply(action: Action, run: WorkflowRun, deps: ReconcileDeps): Promise<WorkflowRun | void> {
  const namespace = run.metadata.namespace ?? '';
  switch (action.type) {
    case 'setSuspendedLabel':
      return setSuspendedLabel(run, action.value, deps);
    case 'deleteWorkflowRun':
      return deleteWorkflowRun(run, deps);
    case 'createSnapshot':
      // One that exists already (a reconcile before a restart made it) is read into the memo if it
      // is the run's own.
      if (!(await createSnapshot(run, action.name, action.spec, deps))) await deps.snapshotSpecs.spec(run);
      return;
    case 'createRun':
      await deps.access?.check(run, action.run);
      await createOrAdopt(run, 'runs', async () =>
        deps.caches.runs.written(await deps.kube.create<Run>(crd('runs', namespace), action.run)),
      );
      return;
    case 'createChild':
      await createOrAdopt(run, 'workflowruns', async () =>
        deps.caches.workflowRuns.written(
          await deps.kube.create<WorkflowRun>(crd('workflowruns', namespace), action.child),
        ),
      );
      return;
    case 'markNoAgent':
    case 'cancelUnserved':
      return unserved(action, deps);
    case 'cancelRun':
    case 'cancelChild':
      await deps.kube.patch(
        { ...crd(action.type === 'cancelRun' ? 'runs' : 'workflowruns', namespace), name: action.name },
        { spec: { cancelRequested: true } },
      );
      return;
  }
}

/** A Run no agent serves: said so while it waits, or ended when its run is cancelled. */
async function unserved(
  action: Extract<Action, { type: 'markNoAgent' | 'cancelUnserved' }>,
  deps: ReconcileDeps,
): Promise<void> {
  if (action.type === 'markNoAgent') {
    const waiting = { phase: 'Pending', reason: NO_AGENT, message: action.message } as const;
    if (await writeUnclaimed(action.run, waiting, deps))
      deps.events.record(action.run, 'Warning', NO_AGENT, action.message);
    return;
  }
  const completionTime = (deps.clock?.() ?? new Date()).toISOString();
  const ended = { phase: 'Cancelled', reason: 'Cancelled', message: action.message, completionTime } as const;
  if (await writeUnclaimed(action.run, ended, deps))
    deps.events.record(action.run, 'Normal', 'Cancelled', action.message);
}

/** The run's snapshot ControllerRevision; true when this call created it. */
function createSnapshot(
  run: WorkflowRun,
  name: string,
  spec: WorkflowRunSpec,
  deps: ReconcileDeps,
): Promise<boolean> {
  const namespace = run.metadata.namespace ?? '';
  return createOrAdopt(run, 'controllerrevisions', async () => {
    await deps.kube.create<Snapshot>(snapshotsIn(namespace), buildSnapshot(run, name, spec));
    deps.snapshotSpecs.remember(run.metadata.uid ?? '', spec);
  });
}

/** A finished run past its retention: deleted, its Runs, children and snapshot by the garbage collector. */
async function deleteWorkflowRun(run: WorkflowRun, deps: ReconcileDeps): Promise<void> {
  try {
    await deps.kube.delete(
      { ...crd('workflowruns', run.metadata.namespace ?? ''), name: run.metadata.name ?? '' },
      { propagationPolicy: 'Background' },
    );
    log.info({ run: `${run.metadata.namespace}/${run.metadata.name}` }, 'deleted after its retention');
  } catch (e) {
    if (statusCode(e) !== 404) throw e;
  }
}

/** The suspended label on or off; returns the object as patched, for the status write that follows. */
async function setSuspendedLabel(
  run: WorkflowRun,
  value: boolean,
  deps: ReconcileDeps,
): Promise<WorkflowRun> {
  const patched = await deps.kube.patch<WorkflowRun>(
    { ...crd('workflowruns', run.metadata.namespace ?? ''), name: run.metadata.name ?? '' },
    { metadata: { labels: { [LABEL_SUSPENDED]: value ? 'true' : null } } },
  );
  deps.caches.workflowRuns.written(patched);
  return patched;
}

/**
 * The status of a Run no agent has claimed (NoAgent; Cancelled when none serves it). The write
 * carries the cached resourceVersion, so it never overwrites a claim: a conflict means an agent
 * took the Run (false: nothing written).
 */
async function writeUnclaimed(run: Run, status: Partial<RunStatus>, deps: ReconcileDeps): Promise<boolean> {
  // A claimed Run is cached with part of its status (runAsObserved): never written back.
  if (!isClaimable(run)) throw new Error(`run ${run.metadata.name}: a claimed Run's status is not written`);
  try {
    await deps.kube.replaceStatus(
      { ...crd('runs', run.metadata.namespace ?? ''), name: run.metadata.name ?? '' },
      { ...run, status: { ...run.status, ...status } },
    );
    return true;
  } catch (e) {
    if (statusCode(e) === 409) return false;
    throw e;
  }
}

/**
 * Creates an object with a deterministic name. AlreadyExists is expected after a crash: the object
 * is ours when it names this run as owner (the next reconcile sees it in the cache); otherwise the
 * name is taken by something else, which is reported.
 */
async function createOrAdopt(
  run: WorkflowRun,
  resource: string,
  create: () => Promise<unknown>,
): Promise<boolean> {
  try {
    await create();
    return true;
  } catch (e) {
    if (statusCode(e) !== 409) throw e;
    log.info(
      { run: run.metadata.name, resource, detail: statusMessage(e) },
      'object exists already; adopting it',
    );
    return false;
  }
}
