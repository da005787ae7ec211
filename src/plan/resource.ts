// planResourceWorkflow(observed) -> { status, actions }: the configure workflow of one resource of a
// Promise's API (docs/specifications.md R1-R9; docs/design.md §4).
// Pure. What has run is read from the resource's status and from its pipeline WorkflowRuns' labels
// (hash and round), so a restarted controller decides the same way and re-runs nothing blindly.
import { workFor } from '../promise/works.js';
import { suspendedResourceLabel } from './suspension.js';
import type {
  Condition,
  PipelineStatus,
  PromiseObject,
  ResourceObject,
  ResourceStatus,
  ResourceWorkflows,
  Work,
  WorkflowRun,
} from '../api/types.js';
import { condition } from '../api/objects.js';
import {
  FINALIZER_DELETE_WORKFLOW,
  FINALIZER_WORKS_CLEANUP,
  LABEL_MANUAL_RECONCILIATION,
  LABEL_PAUSED,
  LABEL_PIPELINE,
  LABEL_SUSPENDED,
  LABEL_WORKFLOW_HASH,
  LABEL_WORKFLOW_ROUND,
} from '../labels.js';
import { DEFAULT_RECONCILE_INTERVAL } from '../limits.js';
import { workName } from '../names.js';
import type { Files } from '../promise/files.js';
import {
  buildPipelineRun,
  configurePipelines,
  deletePipeline,
  runsOfType,
  workflowHash,
  type WorkflowLookup,
} from '../promise/pipeline.js';
import { parseDuration } from '../runtime/duration.js';
import { deepEqual } from '../helpers.js';

export interface ResourceObserved {
  resource: ResourceObject;
  promise: PromiseObject;
  /** WorkflowRuns the resource owns (label kruntimes.io/resource-uid). */
  runs: WorkflowRun[];
  /** Works of the resource (same label). */
  works: Work[];
  /** Workflows by namespace and name, for pipelines that name one (uses). */
  workflow?: WorkflowLookup;
  /** The last message a pipeline run's steps wrote to status.yaml (from its Runs). */
  statusMessageOf?: (run: WorkflowRun) => string | undefined;
  /** The files a finished pipeline run wrote to $KRT_OUTPUT_DIR (from its Runs). */
  filesOf: (run: WorkflowRun) => Files;
  /**
   * Pipelines whose run the API server refused to create in this reconcile, with its reason: they
   * fail (a refusal is not retried), as a WorkflowRun's refused job does.
   */
  refused?: Record<string, string>;
  /** The namespace refused a new run because it is being deleted: no pipeline can run there. */
  namespaceTerminating?: boolean;
  /** The controller's reconciliation interval, when the Promise does not set one. */
  defaultInterval?: string;
  now: Date;
}

export type ResourceAction =
  /** Labels of the resource to set (a value) or remove (null); applied before the status. */
  | { type: 'setLabels'; labels: Record<string, string | null> }
  /** The resource's whole finalizer list, written with its resourceVersion; before anything it guards. */
  | { type: 'setFinalizers'; finalizers: string[] }
  /** Deletes a Work (its own finalizer removes what it applied first). */
  | { type: 'deleteWork'; name: string }
  | { type: 'createRun'; pipeline: string; run: WorkflowRun }
  | { type: 'cancelRun'; name: string }
  /** Removes the suspended label of a pipeline run: its suspended job runs again. */
  | { type: 'resumeRun'; name: string }
  | { type: 'writeWork'; work: Work }
  | { type: 'event'; eventType: 'Normal' | 'Warning'; reason: string; message: string };

export interface ResourcePlan {
  status: ResourceStatus;
  actions: ResourceAction[];
  /** Plan again after this many ms: the periodic reconciliation. */
  requeueAfter?: number;
  /**
   * Workflows a pipeline failed on because the lookup did not find them. A lookup is a cache that
   * can lag a Workflow created just before, so the caller confirms with the API server first.
   */
  missingWorkflows?: { namespace: string; name: string }[];
}

/** Plans with a lookup that notes the Workflows it did not find, and names them in the plan. */
export function notingMissingWorkflows(
  plan: (o: ResourceObserved) => ResourcePlan,
): (o: ResourceObserved) => ResourcePlan {
  return (o) => {
    const missed: { namespace: string; name: string }[] = [];
    const workflow: WorkflowLookup = (namespace, name) => {
      const wf = o.workflow?.(namespace, name);
      if (!wf) missed.push({ namespace, name });
      return wf;
    };
    const out = plan({ ...o, workflow });
    return missed.length > 0 ? { ...out, missingWorkflows: missed } : out;
  };
}

type Phase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Suspended' | 'Cancelled';
type State = 'none' | 'running' | 'suspended' | 'failed' | 'succeeded';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Keys of the status kruntimes owns; status.yaml's other keys are merged beside them. */
export const RESERVED_STATUS_KEYS = new Set(['kruntimes', 'conditions', 'message', 'observedGeneration']);

const roundOf = (r: WorkflowRun) => Number(r.metadata.labels?.[LABEL_WORKFLOW_ROUND] ?? 0) || 0;

export const planResourceWorkflow = notingMissingWorkflows(planConfigure);

function planConfigure(observed: ResourceObserved): ResourcePlan {
  const o = { ...observed, runs: runsOfType(observed.runs, 'configure') };
  const { resource, promise } = o;
  const now = o.now.toISOString();
  const pipelines = configurePipelines(promise);
  const hash = workflowHash(resource, promise);
  const prev = resource.status ?? {};
  const recorded: ResourceWorkflows = prev.kruntimes?.workflows ?? {};
  const labels = resource.metadata.labels ?? {};
  const manual = labels[LABEL_MANUAL_RECONCILIATION] === 'true';
  // Paused: nothing new starts (no round, no next pipeline, no resume, no Work); what runs goes on.
  const paused = labels[LABEL_PAUSED] === 'true';
  const actions: ResourceAction[] = [];
  const setLabels: Record<string, string | null> = {};

  // The round is the later of the recorded one and any run's: a crash between creating a run and
  // recording it loses nothing.
  const round = Math.max(recorded.round ?? 0, ...o.runs.map(roundOf));
  const inRound = o.runs.filter((r) => roundOf(r) === round);
  const runOf = new Map(inRound.map((r) => [r.metadata.labels?.[LABEL_PIPELINE] ?? '', r]));
  const fresh = round !== (recorded.round ?? 0);
  const roundHash = fresh ? inRound[0]?.metadata.labels?.[LABEL_WORKFLOW_HASH] : recorded.hash;
  const names =
    !fresh && recorded.pipelines?.length
      ? recorded.pipelines.map((p) => p.name ?? '')
      : pipelines.map((p) => p.metadata.name);
  const before = new Map((fresh ? [] : (recorded.pipelines ?? [])).map((p) => [p.name ?? '', p]));
  let entries = names.map((n) => entryOf(n, runOf.get(n), before.get(n)));
  // Each pipeline that succeeded in this round has its Work: what it wrote, applied by the controller.
  const works: ResourceAction[] = [];
  for (const [i, e] of entries.entries()) {
    const run = runOf.get(e.name ?? '');
    if (e.phase !== 'Succeeded' || !run) continue;
    // Made from this run already: its files are not read and parsed again on every reconcile.
    const name = workName(resource.metadata.name ?? '', e.name ?? '');
    if (o.works.some((w) => w.metadata.name === name && w.spec.workflowRunName === run.metadata.name))
      continue;
    const work = workFor(resource, promise, e.name ?? '', run, o.filesOf(run));
    if ('error' in work) {
      entries[i] = { ...e, phase: 'Failed', message: work.error };
      continue;
    }
    const existing = o.works.find((w) => w.metadata.name === work.metadata.name);
    if (!existing || !deepEqual(existing.spec, work.spec)) works.push({ type: 'writeWork', work });
  }

  let state = stateOf(round, entries);

  const interval = intervalMs(promise, o.defaultInterval);
  const completed = Date.parse(recorded.completedAt ?? '');
  const periodicDue =
    (state === 'succeeded' || state === 'failed') &&
    !fresh &&
    Number.isFinite(completed) &&
    o.now.getTime() >= completed + interval;
  const trigger = pipelines.length > 0 && (state === 'none' || roundHash !== hash || manual || periodicDue);

  let workflows: ResourceWorkflows = {
    ...(fresh ? {} : recorded),
    hash: roundHash ?? recorded.hash,
    round,
  };
  let observedGeneration = prev.observedGeneration;
  if (fresh) workflows.startedAt = inRound[0]?.metadata.creationTimestamp?.toString() ?? now;

  // A new reconciliation while a pipeline runs waits for it to end (once, however many came).
  const active = state === 'running' && entries.some((e) => e.phase === 'Running');
  if (trigger && !active && !paused) {
    // A new reconciliation while suspended starts from the beginning: the suspended run ends.
    for (const e of entries)
      if (e.phase === 'Suspended' && e.workflowRunName && !runOf.get(e.name ?? '')?.spec.cancelRequested)
        actions.push({ type: 'cancelRun', name: e.workflowRunName });
    const next = round + 1;
    entries = pipelines.map((p) => ({ name: p.metadata.name, phase: 'Pending' }));
    workflows = { hash, round: next, startedAt: now };
    observedGeneration = resource.metadata.generation;
    startPipeline(o, 0, next, hash, entries, new Map(), actions);
    if (manual) setLabels[LABEL_MANUAL_RECONCILIATION] = null;
    state = stateOf(next, entries);
  } else if (state === 'running' && !paused) {
    // The first pipeline not yet Succeeded starts once every earlier one has; one recorded as
    // started whose run the cache does not show yet is created again (its name is deterministic).
    const i = entries.findIndex((e) => e.phase !== 'Succeeded');
    const e = entries[i];
    if (e && !runOf.get(e.name ?? '') && (e.phase === 'Pending' || e.phase === 'Running'))
      startPipeline(o, i, round, workflows.hash ?? hash, entries, runOf, actions);
    state = stateOf(round, entries);
  }

  const labelled = labels[LABEL_SUSPENDED] === 'true';
  if (state === 'suspended') {
    const e = entries.find((x) => x.phase === 'Suspended') as PipelineStatus;
    const s = suspendedResourceLabel({
      wasSuspended: before.get(e.name ?? '')?.phase === 'Suspended',
      labelled,
      run: runOf.get(e.name ?? ''),
    });
    if (s.label) setLabels[LABEL_SUSPENDED] = s.label;
    if (s.resumeRun !== undefined && !paused) actions.push({ type: 'resumeRun', name: s.resumeRun });
  } else if (labelled) setLabels[LABEL_SUSPENDED] = null;
  // The finalizers go on before a Work exists, so nothing it applies can be orphaned.
  const finalizers = wantedFinalizers(resource, promise, o.works.length > 0 || works.length > 0);
  if (finalizers) actions.unshift({ type: 'setFinalizers', finalizers });
  if (Object.keys(setLabels).length > 0) actions.unshift({ type: 'setLabels', labels: setLabels });
  if (!paused) actions.push(...works);

  workflows.phase = phaseText(state);
  workflows.pipelines = entries;
  const ended = state === 'succeeded' || state === 'failed';
  const sameEnd = !fresh && recorded.phase === workflows.phase && recorded.round === workflows.round;
  if (ended) workflows.completedAt = sameEnd && recorded.completedAt ? recorded.completedAt : now;
  else delete workflows.completedAt;

  const status = resourceStatus(o, state, workflows, observedGeneration, trigger && active, paused);
  announce(recorded, workflows, actions);
  const plan: ResourcePlan = { status: JSON.parse(JSON.stringify(status)) as ResourceStatus, actions };
  if (ended && pipelines.length > 0 && !paused) {
    const at = Date.parse(workflows.completedAt ?? now) + interval - o.now.getTime();
    plan.requeueAfter = Math.min(Math.max(0, at), DAY_MS);
  }
  return plan;
}

/**
 * The resource's finalizers as they should be while it lives, or undefined when they are: the delete
 * workflow's while the Promise has a delete pipeline, the Works' once it has Works.
 */
export function wantedFinalizers(
  resource: ResourceObject,
  promise: PromiseObject,
  hasWorks: boolean,
): string[] | undefined {
  const now = resource.metadata.finalizers ?? [];
  const want = new Set(now);
  if (deletePipeline(promise)) want.add(FINALIZER_DELETE_WORKFLOW);
  else want.delete(FINALIZER_DELETE_WORKFLOW);
  if (hasWorks) want.add(FINALIZER_WORKS_CLEANUP);
  const list = [...want];
  return list.length === now.length && list.every((f) => now.includes(f)) ? undefined : list;
}

function intervalMs(promise: PromiseObject, fallback?: string): number {
  for (const text of [promise.spec.reconcileInterval, fallback, DEFAULT_RECONCILE_INTERVAL]) {
    if (!text) continue;
    const d = parseDuration(text);
    if ('ms' in d) return d.ms;
  }
  return 10 * 60 * 60 * 1000;
}

function stateOf(round: number, entries: PipelineStatus[]): State {
  if (round === 0) return 'none';
  if (entries.some((e) => e.phase === 'Failed' || e.phase === 'Cancelled')) return 'failed';
  if (entries.some((e) => e.phase === 'Suspended')) return 'suspended';
  if (entries.length > 0 && entries.every((e) => e.phase === 'Succeeded')) return 'succeeded';
  return 'running';
}

function phaseText(state: State): string {
  return {
    none: 'Pending',
    running: 'Running',
    suspended: 'Suspended',
    failed: 'Failed',
    succeeded: 'Succeeded',
  }[state];
}

/** A pipeline's entry from its run, or what was recorded when the run is not (or no longer) seen. */
function entryOf(
  name: string,
  run: WorkflowRun | undefined,
  recorded: PipelineStatus | undefined,
): PipelineStatus {
  if (!run) return recorded ?? { name, phase: 'Pending' };
  const s = run.status ?? {};
  const phase: Phase = (s.phase === 'Pending' || !s.phase ? 'Running' : s.phase) as Phase;
  const jobs = Object.values(s.jobs ?? {});
  const suspended = jobs.find((j) => j.phase === 'Suspended');
  const attempts = Math.max(0, ...jobs.map((j) => j.attempts ?? 0));
  const entry: PipelineStatus = { name, phase, workflowRunName: run.metadata.name };
  if (attempts > 1 || suspended) entry.attempts = attempts;
  if (suspended?.nextRetryAt) entry.nextRetryAt = suspended.nextRetryAt;
  if (phase === 'Suspended') entry.message = suspended?.message ?? s.message;
  else if (phase === 'Failed' || phase === 'Cancelled') entry.message = s.message;
  return entry;
}

/** Creates the WorkflowRun of pipeline `i`, with what the pipelines before it wrote. */
function startPipeline(
  o: ResourceObserved,
  i: number,
  round: number,
  hash: string,
  entries: PipelineStatus[],
  runOf: Map<string, WorkflowRun>,
  actions: ResourceAction[],
): void {
  const pipelines = configurePipelines(o.promise);
  const entry = entries[i] as PipelineStatus;
  const pipeline = pipelines.find((p) => p.metadata.name === entry.name);
  if (!pipeline) {
    entries[i] = {
      ...entry,
      phase: 'Failed',
      message: `pipeline "${entry.name}" is no longer in the Promise`,
    };
    return;
  }
  const refusal = o.refused?.[pipeline.metadata.name];
  if (refusal !== undefined) {
    entries[i] = { name: entry.name, phase: 'Failed', message: refusal };
    return;
  }
  const earlier: Record<string, Files> = {};
  for (const e of entries.slice(0, i)) {
    const run = runOf.get(e.name ?? '');
    if (run) earlier[e.name ?? ''] = o.filesOf(run);
  }
  const run = buildPipelineRun(o.resource, o.promise, pipeline, round, hash, earlier, o.workflow);
  if ('error' in run && typeof run.error === 'string') {
    entries[i] = { ...entry, phase: 'Failed', message: run.error };
    return;
  }
  const made = run as WorkflowRun;
  actions.push({ type: 'createRun', pipeline: pipeline.metadata.name, run: made });
  entries[i] = { name: entry.name, phase: 'Running', workflowRunName: made.metadata.name };
}

function resourceStatus(
  o: ResourceObserved,
  state: State,
  workflows: ResourceWorkflows,
  observedGeneration: number | undefined,
  waiting: boolean,
  paused: boolean,
): ResourceStatus {
  const prev = o.resource.status ?? {};
  const now = o.now.toISOString();
  const entries = workflows.pipelines ?? [];
  const current = new Set(entries.map((e) => e.workflowRunName));
  // What status.yaml said, the later pipeline winning: free keys merged, the message shown.
  const free: Record<string, unknown> = {};
  let written: string | undefined;
  for (const e of entries) {
    const run = o.runs.find((r) => r.metadata.name === e.workflowRunName);
    if (!run || !current.has(run.metadata.name) || run.status?.phase !== 'Succeeded') continue;
    for (const [k, v] of Object.entries(run.status.stepStatus ?? {}))
      if (!RESERVED_STATUS_KEYS.has(k)) free[k] = v;
    if (run.status.message) written = run.status.message;
  }
  const at = (phase: string) => entries.find((e) => e.phase === phase);
  const failed = at('Failed') ?? at('Cancelled');
  const suspended = at('Suspended');
  const running = at('Running');
  const message =
    state === 'failed'
      ? `pipeline "${failed?.name}" failed${failed?.message ? `: ${failed.message}` : ''}`
      : state === 'suspended'
        ? `pipeline "${suspended?.name}" is suspended${suspended?.message ? `: ${suspended.message}` : ''}`
        : state === 'running' && waiting
          ? `a new reconciliation waits for pipeline "${running?.name}" to end`
          : (written ??
            (state === 'running'
              ? `pipeline "${running?.name ?? entries.find((e) => e.phase === 'Pending')?.name}" is running`
              : state === 'succeeded'
                ? 'configure workflow succeeded'
                : entries.length === 0
                  ? 'the Promise has no configure pipelines'
                  : 'waiting for the configure workflow'));
  const gen = observedGeneration;
  const cond = (type: string, status: Condition['status'], reason: string, text: string): Condition =>
    condition(prev.conditions, { type, status, reason, message: text }, gen, now);
  const configure =
    state === 'succeeded'
      ? cond(
          'ConfigureWorkflowCompleted',
          'True',
          'PipelinesExecutedSuccessfully',
          'every pipeline succeeded',
        )
      : state === 'failed'
        ? cond('ConfigureWorkflowCompleted', 'False', 'ConfigureWorkflowFailed', message)
        : cond('ConfigureWorkflowCompleted', 'False', 'PipelinesInProgress', message);
  const reconciled =
    state === 'succeeded'
      ? cond('Reconciled', 'True', 'Reconciled', 'the configure workflow succeeded')
      : state === 'suspended'
        ? // Unknown, as Kratix says it: a suspended workflow has not failed, it waits.
          cond('Reconciled', 'Unknown', 'WorkflowSuspended', message)
        : state === 'failed'
          ? cond('Reconciled', 'False', 'WorkflowFailed', message)
          : cond('Reconciled', 'Unknown', 'WorkflowRunning', message);
  const works = worksCondition(o, entries, cond);
  const ready =
    configure.status === 'True' && works.status === 'True'
      ? cond('Ready', 'True', 'Ready', message)
      : cond(
          'Ready',
          'False',
          state === 'succeeded' ? (works.reason ?? 'WorksPending') : (reconciled.reason ?? ''),
          message,
        );
  const out: ResourceStatus = { ...prev, ...free };
  out.kruntimes = { workflows };
  out.message = message;
  out.conditions = [configure, reconciled, works, ready];
  // Shown only while it holds: the label says why nothing new starts.
  if (paused)
    out.conditions.push(
      cond(
        'Paused',
        'True',
        'PausedByLabel',
        `reconciliation is paused by the label ${LABEL_PAUSED}: a running pipeline goes on, nothing new starts`,
      ),
    );
  if (observedGeneration !== undefined) out.observedGeneration = observedGeneration;
  return out;
}

function worksCondition(
  o: ResourceObserved,
  entries: PipelineStatus[],
  cond: (type: string, status: Condition['status'], reason: string, text: string) => Condition,
): Condition {
  const names = new Set(entries.map((e) => e.name));
  const works = o.works.filter((w) => names.has(w.spec.pipeline));
  const failed = works.find((w) =>
    w.status?.conditions?.some((c) => c.type === 'Applied' && c.status === 'False'),
  );
  if (failed)
    return cond(
      'WorksSucceeded',
      'False',
      'WorksFailed',
      `Work "${failed.metadata.name}": ${failed.status?.message ?? ''}`,
    );
  const pending = works.find(
    (w) =>
      w.status?.observedGeneration !== w.metadata.generation ||
      !w.status?.conditions?.some((c) => c.type === 'Applied' && c.status === 'True'),
  );
  if (pending)
    return cond(
      'WorksSucceeded',
      'Unknown',
      'WorksPending',
      `Work "${pending.metadata.name}" is being applied`,
    );
  return cond('WorksSucceeded', 'True', 'WorksApplied', `${works.length} Work(s) applied`);
}

/** Events on the resource for each pipeline start, success, suspension, retry and failure. */
function announce(recorded: ResourceWorkflows, now: ResourceWorkflows, actions: ResourceAction[]): void {
  const sameRound = recorded.round === now.round;
  const was = new Map((sameRound ? (recorded.pipelines ?? []) : []).map((p) => [p.name ?? '', p]));
  const event = (eventType: 'Normal' | 'Warning', reason: string, message: string) =>
    actions.push({ type: 'event', eventType, reason, message });
  for (const p of now.pipelines ?? []) {
    const old = was.get(p.name ?? '');
    if (
      p.phase === old?.phase &&
      p.nextRetryAt === old?.nextRetryAt &&
      p.workflowRunName === old?.workflowRunName
    )
      continue;
    if (p.phase === 'Running' && (old?.phase !== 'Running' || p.workflowRunName !== old.workflowRunName))
      event(
        'Normal',
        old?.phase === 'Suspended' ? 'PipelineResumed' : 'PipelineStarted',
        `pipeline "${p.name}" started: WorkflowRun "${p.workflowRunName}"`,
      );
    else if (p.phase === 'Succeeded') event('Normal', 'PipelineSucceeded', `pipeline "${p.name}" succeeded`);
    else if (p.phase === 'Failed' || p.phase === 'Cancelled')
      event(
        'Warning',
        'PipelineFailed',
        `pipeline "${p.name}" ${p.phase === 'Failed' ? 'failed' : 'was cancelled'}: ${p.message ?? ''}`,
      );
    else if (p.phase === 'Suspended')
      event(
        'Normal',
        p.nextRetryAt ? 'PipelineRetryScheduled' : 'PipelineSuspended',
        p.nextRetryAt
          ? `pipeline "${p.name}" runs again at ${p.nextRetryAt} (attempt ${p.attempts ?? 1}): ${p.message ?? ''}`
          : `pipeline "${p.name}" is suspended: ${p.message ?? ''}`,
      );
  }
}
