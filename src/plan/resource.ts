// planResourceWorkflow(observed) -> { status, actions }: the configure workflow of one resource of a
// Promise's API (docs/specifications.md R1-R9; docs/design.md §4).
// Pure. What has run is read from the resource's status and from its pipeline WorkflowRuns' labels
// (hash and round), so a restarted controller decides the same way and re-runs nothing blindly.
import { workFor } from '../promise/works.js';
import { suspendedResourceLabel } from './suspension.js';
import type {
  Pipeline,
  PipelineStatus,
  PromiseObject,
  ResourceObject,
  ResourceWorkflows,
  WorkflowRun,
} from '../api/types.js';
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
import { compactCopy } from '../api/objects.js';
import { DEFAULT_RECONCILE_INTERVAL } from '../limits.js';
import { workName } from '../names.js';
import type { Files } from '../promise/files.js';
import {
  buildPipelineRun,
  configurePipelines,
  deletePipeline,
  runsOfType,
  workflowHash,
} from '../promise/pipeline.js';
import { parseDuration } from '../runtime/duration.js';
import { deepEqual } from '../helpers.js';
import {
  notingMissingWorkflows,
  type ResourceAction,
  type ResourceObserved,
  type ResourcePlan,
  type State,
} from './resource-plan.js';
import { announce, announceConditions, resourceStatus } from './resource-status.js';
import { attemptOf, backoffLimitOf, entryOf, phaseText, stateOf } from './resource-pipelines.js';

export {
  notingMissingWorkflows,
  RESERVED_STATUS_KEYS,
  type ResourceAction,
  type ResourceObserved,
  type ResourcePlan,
} from './resource-plan.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const roundOf = (r: WorkflowRun) => Number(r.metadata.labels?.[LABEL_WORKFLOW_ROUND] ?? 0) || 0;
export const planResourceWorkflow = notingMissingWorkflows(planConfigure);

function planConfigure(observed: ResourceObserved): ResourcePlan {
  const o = { ...observed, runs: runsOfType(observed.runs, 'configure') };
  const { resource, promise } = o;
  const now = o.now.toISOString();
  const pipelines = configurePipelines(promise);
  const hash = workflowHash(resource, promise);
  const recorded: ResourceWorkflows = resource.status?.kruntimes?.workflows ?? {};
  const labels = resource.metadata.labels ?? {};
  const manual = labels[LABEL_MANUAL_RECONCILIATION] === 'true';
  // Paused: nothing new starts (no round, no next pipeline, no resume, no Work); what runs goes on.
  const paused = labels[LABEL_PAUSED] === 'true';
  const actions: ResourceAction[] = [];
  const setLabels: Record<string, string | null> = {};
  const r = currentRound(o, pipelines, recorded);
  const works = worksToWrite(o, r);
  let state = stateOf(r.round, r.entries);
  const interval = intervalMs(promise, o.defaultInterval);
  const trigger =
    pipelines.length > 0 &&
    (state === 'none' || r.hash !== hash || manual || periodicDue(recorded, state, r.fresh, interval, o.now));
  let workflows: ResourceWorkflows = {
    ...(r.fresh ? {} : recorded),
    hash: r.hash ?? recorded.hash,
    round: r.round,
  };
  let observedGeneration = resource.status?.observedGeneration;
  if (r.fresh) workflows.startedAt = r.startedAt ?? now;
  // A new reconciliation while a pipeline runs waits for it to end (once, however many came).
  const active = state === 'running' && r.entries.some((e) => e.phase === 'Running');
  if (trigger && !active && !paused) {
    workflows = startRound(o, r, pipelines, hash, actions);
    observedGeneration = resource.metadata.generation;
    if (manual) setLabels[LABEL_MANUAL_RECONCILIATION] = null;
    state = stateOf(workflows.round ?? 0, r.entries);
  } else if (state === 'running' && !paused) {
    continueRound(o, r, workflows.hash ?? hash, actions);
    state = stateOf(r.round, r.entries);
  }
  suspendedLabel(state, r, labels[LABEL_SUSPENDED] === 'true', paused, setLabels, actions);
  // The finalizers go on before a Work exists, so nothing it applies can be orphaned.
  const finalizers = wantedFinalizers(resource, promise, o.works.length > 0 || works.length > 0);
  if (finalizers) actions.unshift({ type: 'setFinalizers', finalizers });
  if (Object.keys(setLabels).length > 0) actions.unshift({ type: 'setLabels', labels: setLabels });
  if (!paused) actions.push(...works);
  const ended = finish(workflows, state, r, recorded, now);
  const status = resourceStatus(o, state, workflows, observedGeneration, trigger && active, paused);
  announce(recorded, workflows, actions);
  announceConditions(resource.status?.conditions, status.conditions, actions);
  const plan: ResourcePlan = { status: compactCopy(status), actions };
  if (ended && pipelines.length > 0 && !paused) {
    const at = Date.parse(workflows.completedAt ?? now) + interval - o.now.getTime();
    plan.requeueAfter = Math.min(Math.max(0, at), DAY_MS);
  }
  const retry = r.entries.find((e) => e.phase === 'Running' && e.nextRetryAt);
  if (retry && !paused)
    plan.requeueAfter = Math.max(0, Date.parse(retry.nextRetryAt ?? '') - o.now.getTime());
  return plan;
}

/**
 * A round that runs goes on: the first pipeline not yet Succeeded starts once every earlier one has,
 * or again when its retry is due; one recorded as started whose run the cache does not show yet is
 * created again (its name is deterministic).
 */
function continueRound(o: ResourceObserved, r: Round, hash: string, actions: ResourceAction[]): void {
  const i = r.entries.findIndex((e) => e.phase !== 'Succeeded');
  const e = r.entries[i];
  if (e && !r.runOf.get(e.name ?? '') && (e.phase === 'Pending' || e.phase === 'Running'))
    startPipeline(o, i, r.round, hash, r.entries, r.runOf, actions);
  else if (e?.phase === 'Running' && e.nextRetryAt && o.now.getTime() >= Date.parse(e.nextRetryAt))
    startPipeline(o, i, r.round, hash, r.entries, r.runOf, actions, (e.attempts ?? 1) + 1);
}

/** What the current round of the configure workflow has done, from the status and the runs. */
interface Round {
  round: number;
  /** Its runs are newer than the status: the round was started and not yet recorded. */
  fresh: boolean;
  /** The workflow hash the round runs with. */
  hash?: string;
  startedAt?: string;
  runOf: Map<string, WorkflowRun>;
  /** The pipelines as the status recorded them in this round. */
  before: Map<string, PipelineStatus>;
  entries: PipelineStatus[];
}

function currentRound(o: ResourceObserved, pipelines: Pipeline[], recorded: ResourceWorkflows): Round {
  // The round is the later of the recorded one and any run's: a crash between creating a run and
  // recording it loses nothing.
  const round = Math.max(recorded.round ?? 0, ...o.runs.map(roundOf));
  const inRound = o.runs.filter((r) => roundOf(r) === round).sort((a, b) => attemptOf(a) - attemptOf(b));
  // A pipeline retried by its backoffLimit has a run per attempt: the latest is the one that counts.
  const runOf = new Map(inRound.map((r) => [r.metadata.labels?.[LABEL_PIPELINE] ?? '', r]));
  const fresh = round !== (recorded.round ?? 0);
  const names =
    !fresh && recorded.pipelines?.length
      ? recorded.pipelines.map((p) => p.name ?? '')
      : pipelines.map((p) => p.metadata.name);
  const before = new Map((fresh ? [] : (recorded.pipelines ?? [])).map((p) => [p.name ?? '', p]));
  return {
    round,
    fresh,
    hash: fresh ? inRound[0]?.metadata.labels?.[LABEL_WORKFLOW_HASH] : recorded.hash,
    startedAt: inRound[0]?.metadata.creationTimestamp?.toString(),
    runOf,
    before,
    entries: names.map((n) => entryOf(n, runOf.get(n), before.get(n), backoffLimitOf(pipelines, n))),
  };
}

/**
 * The Works of the pipelines that succeeded in this round (what they wrote, applied by the
 * controller); a pipeline whose documents cannot become a Work fails.
 */
function worksToWrite(o: ResourceObserved, r: Round): ResourceAction[] {
  const works: ResourceAction[] = [];
  for (const [i, e] of r.entries.entries()) {
    const run = r.runOf.get(e.name ?? '');
    if (e.phase !== 'Succeeded' || !run) continue;
    // Made from this run already: its files are not read and parsed again on every reconcile.
    const name = workName(o.resource.metadata.name ?? '', e.name ?? '');
    if (o.works.some((w) => w.metadata.name === name && w.spec.workflowRunName === run.metadata.name))
      continue;
    const work = workFor(o.resource, o.promise, e.name ?? '', run, o.filesOf(run));
    if ('error' in work) {
      r.entries[i] = { ...e, phase: 'Failed', message: work.error };
      continue;
    }
    const existing = o.works.find((w) => w.metadata.name === work.metadata.name);
    if (!existing || !deepEqual(existing.spec, work.spec)) works.push({ type: 'writeWork', work });
  }
  return works;
}

/** The regular reconciliation: an ended workflow runs again once the interval has passed. */
function periodicDue(recorded: ResourceWorkflows, state: State, fresh: boolean, interval: number, now: Date) {
  const completed = Date.parse(recorded.completedAt ?? '');
  return (
    (state === 'succeeded' || state === 'failed') &&
    !fresh &&
    Number.isFinite(completed) &&
    now.getTime() >= completed + interval
  );
}

/** A new round from the first pipeline; a suspended run of the old round is cancelled (R7). */
function startRound(
  o: ResourceObserved,
  r: Round,
  pipelines: Pipeline[],
  hash: string,
  actions: ResourceAction[],
): ResourceWorkflows {
  for (const e of r.entries)
    if (e.phase === 'Suspended' && e.workflowRunName && !r.runOf.get(e.name ?? '')?.spec.cancelRequested)
      actions.push({ type: 'cancelRun', name: e.workflowRunName });
  const next = r.round + 1;
  r.entries = pipelines.map((p) => ({ name: p.metadata.name, phase: 'Pending' }));
  startPipeline(o, 0, next, hash, r.entries, new Map(), actions);
  return { hash, round: next, startedAt: o.now.toISOString() };
}

/** The suspended label on the resource while its workflow is suspended; its removal resumes (R5). */
function suspendedLabel(
  state: State,
  r: Round,
  labelled: boolean,
  paused: boolean,
  setLabels: Record<string, string | null>,
  actions: ResourceAction[],
): void {
  if (state !== 'suspended') {
    if (labelled) setLabels[LABEL_SUSPENDED] = null;
    return;
  }
  const e = r.entries.find((x) => x.phase === 'Suspended') as PipelineStatus;
  const s = suspendedResourceLabel({
    wasSuspended: r.before.get(e.name ?? '')?.phase === 'Suspended',
    labelled,
    run: r.runOf.get(e.name ?? ''),
  });
  if (s.label) setLabels[LABEL_SUSPENDED] = s.label;
  if (s.resumeRun !== undefined && !paused) actions.push({ type: 'resumeRun', name: s.resumeRun });
}

/** The workflow's phase, pipelines and completion time; returns whether it has ended. */
function finish(
  workflows: ResourceWorkflows,
  state: State,
  r: Round,
  recorded: ResourceWorkflows,
  now: string,
): boolean {
  workflows.phase = phaseText(state);
  workflows.pipelines = r.entries;
  const ended = state === 'succeeded' || state === 'failed';
  const sameEnd = !r.fresh && recorded.phase === workflows.phase && recorded.round === workflows.round;
  if (ended) workflows.completedAt = sameEnd && recorded.completedAt ? recorded.completedAt : now;
  else delete workflows.completedAt;
  return ended;
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

/** Creates the WorkflowRun of pipeline `i`, with what the pipelines before it wrote. */
function startPipeline(
  o: ResourceObserved,
  i: number,
  round: number,
  hash: string,
  entries: PipelineStatus[],
  runOf: Map<string, WorkflowRun>,
  actions: ResourceAction[],
  attempt = 1,
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
  const run = buildPipelineRun(o.resource, o.promise, pipeline, {
    round,
    hash,
    earlier,
    workflow: o.workflow,
    configureAttempt: attempt,
  });
  if ('error' in run && typeof run.error === 'string') {
    entries[i] = { ...entry, phase: 'Failed', message: run.error };
    return;
  }
  const made = run as WorkflowRun;
  actions.push({ type: 'createRun', pipeline: pipeline.metadata.name, run: made });
  entries[i] = {
    name: entry.name,
    phase: 'Running',
    workflowRunName: made.metadata.name,
    ...(attempt > 1 ? { attempts: attempt } : {}),
  };
}
