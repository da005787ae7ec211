// planResourceDeletion(observed) -> { status, actions }: what happens to a resource that is being
// deleted (docs/specifications.md R10-R12; docs/design.md §4). Pure, like planResourceWorkflow: a
// running configure pipeline is waited for; the delete pipeline runs (retried up to the Promise's
// deleteBackoffLimit, then held until the resource or the Promise changes or the
// manual-reconciliation label is set; suspended and retried like any pipeline); then the Works go
// with what they applied; then the finalizers come off.
import { suspendedResourceLabel } from './suspension.js';
import { workflowRunEnded } from '../api/phases.js';
import type { Condition, ResourceDelete, ResourceStatus, WorkflowRun } from '../api/types.js';
import {
  FINALIZER_DELETE_WORKFLOW,
  FINALIZER_WORKS_CLEANUP,
  LABEL_DELETE_ATTEMPT,
  LABEL_MANUAL_RECONCILIATION,
  LABEL_SUSPENDED,
  LABEL_WORKFLOW_HASH,
  LABEL_WORKFLOW_ROUND,
} from '../labels.js';
import { DEFAULT_DELETE_BACKOFF_LIMIT } from '../limits.js';
import { compactCopy, condition } from '../api/objects.js';
import { buildPipelineRun, deletePipeline, runsOfType, workflowHash } from '../promise/pipeline.js';
import {
  notingMissingWorkflows,
  RESERVED_STATUS_KEYS as RESERVED,
  type ResourceAction,
  type ResourceObserved,
  type ResourcePlan,
} from './resource-plan.js';

const num = (r: WorkflowRun, label: string) => Number(r.metadata.labels?.[label] ?? 0) || 0;

export const planResourceDeletion = notingMissingWorkflows(planDeletion);

function planDeletion(o: ResourceObserved): ResourcePlan {
  const { resource, promise } = o;
  const prev = resource.status ?? {};
  const finalizers = resource.metadata.finalizers ?? [];
  const actions: ResourceAction[] = [];
  const status = (d: ResourceDelete | undefined, message: string, c: Condition | undefined) =>
    deletionStatus(prev, d, message, c);
  const cond = (value: Condition['status'], reason: string, message: string): Condition =>
    condition(
      prev.conditions,
      { type: 'DeleteWorkflowCompleted', status: value, reason, message },
      undefined,
      o.now.toISOString(),
    );

  // A configure pipeline that runs is waited for; a suspended one will not run again.
  const configure = runsOfType(o.runs, 'configure');
  const active = configure.find((r) => !workflowRunEnded(r.status?.phase) && r.status?.phase !== 'Suspended');
  if (active) {
    const message = `deletion waits for configure pipeline run "${active.metadata.name}" to end`;
    return {
      status: status(prev.kruntimes?.delete, message, cond('False', 'WaitingForConfigure', message)),
      actions,
    };
  }
  for (const r of configure)
    if (r.status?.phase === 'Suspended' && !r.spec.cancelRequested)
      actions.push({ type: 'cancelRun', name: r.metadata.name ?? '' });

  let d: ResourceDelete | undefined = prev.kruntimes?.delete;
  const pipeline = deletePipeline(promise);
  if (pipeline && finalizers.includes(FINALIZER_DELETE_WORKFLOW)) {
    const plan = deleteWorkflow(o, d, actions);
    d = o.namespaceTerminating ? skippedInTerminatingNamespace(plan.d, actions) : plan.d;
    if (d.phase !== 'Succeeded' && d.phase !== 'Skipped') {
      const reason = DELETE_REASONS[d.phase ?? 'Running'] ?? 'DeleteWorkflowRunning';
      const message = plan.written ?? d.message ?? `delete pipeline "${pipeline.metadata.name}" is running`;
      const out = status(d, message, cond('False', reason, d.message ?? message));
      Object.assign(out, plan.free);
      return { status: out, actions };
    }
  }

  const done = (message: string) =>
    d?.phase === 'Skipped'
      ? cond('False', 'DeleteWorkflowSkipped', d.message ?? message)
      : d
        ? cond('True', 'DeleteWorkflowSucceeded', message)
        : undefined;
  // Teardown: the Works go (each removes what it applied first), then the finalizers.
  if (finalizers.includes(FINALIZER_WORKS_CLEANUP) && o.works.length > 0) {
    for (const w of o.works)
      if (!w.metadata.deletionTimestamp) actions.push({ type: 'deleteWork', name: w.metadata.name ?? '' });
    const message = `removing ${o.works.length} Work(s) and the objects they applied`;
    return { status: status(d, message, done(message)), actions, requeueAfter: 1000 };
  }
  const rest = finalizers.filter((f) => f !== FINALIZER_DELETE_WORKFLOW && f !== FINALIZER_WORKS_CLEANUP);
  if (rest.length !== finalizers.length) actions.push({ type: 'setFinalizers', finalizers: rest });
  return { status: status(d, 'deleted', done('deleted')), actions };
}

const DELETE_REASONS: Record<string, string> = {
  Running: 'DeleteWorkflowRunning',
  Failed: 'DeleteWorkflowFailed',
  Suspended: 'DeleteWorkflowSuspended',
};

/** The resource's status during its deletion: the delete pipeline's entry and its condition. */
function deletionStatus(
  prev: ResourceStatus,
  d: ResourceDelete | undefined,
  message: string,
  cond: Condition | undefined,
): ResourceStatus {
  const out: ResourceStatus = { ...prev, message };
  out.kruntimes = { ...(prev.kruntimes ?? {}), ...(d ? { delete: d } : {}) };
  const others = (prev.conditions ?? []).filter((c) => c.type !== 'DeleteWorkflowCompleted');
  out.conditions = cond ? [...others, cond] : others;
  return compactCopy(out);
}

/**
 * A namespace being deleted takes no new run: the teardown goes on without the pipeline, said
 * loudly, rather than the namespace's deletion waiting for ever.
 */
function skippedInTerminatingNamespace(d: ResourceDelete, actions: ResourceAction[]): ResourceDelete {
  if (d.phase === 'Succeeded' || d.phase === 'Skipped') return d;
  for (let i = actions.length - 1; i >= 0; i--) if (actions[i]?.type === 'createRun') actions.splice(i, 1);
  const message = 'the namespace is being deleted, so the delete pipeline cannot run in it';
  actions.push({ type: 'event', eventType: 'Warning', reason: 'DeleteWorkflowSkipped', message });
  return { ...d, phase: 'Skipped', message, workflowRunName: undefined };
}

const attemptKey = (x: WorkflowRun) => num(x, LABEL_WORKFLOW_ROUND) * 1000 + num(x, LABEL_DELETE_ATTEMPT);

/** The delete pipeline's round and attempt: start, retry, hold after the last failure, or succeed. */
function deleteWorkflow(
  o: ResourceObserved,
  recorded: ResourceDelete | undefined,
  actions: ResourceAction[],
): { d: ResourceDelete; written?: string; free: Record<string, unknown> } {
  const { resource, promise } = o;
  const hash = workflowHash(resource, promise);
  const runs = runsOfType(o.runs, 'delete');
  // The latest run tells the round and attempt even when its status write was lost in a crash.
  const latest = runs.reduce<WorkflowRun | undefined>(
    (best, r) => (!best || attemptKey(r) > attemptKey(best) ? r : best),
    undefined,
  );
  let d: ResourceDelete = { ...(recorded ?? {}) };
  if (d.phase === 'Skipped') return { d, free: {} };
  if (latest && attemptKey(latest) > (d.round ?? 0) * 1000 + (d.attempt ?? 0))
    d = {
      round: num(latest, LABEL_WORKFLOW_ROUND),
      attempt: num(latest, LABEL_DELETE_ATTEMPT),
      hash: latest.metadata.labels?.[LABEL_WORKFLOW_HASH],
      workflowRunName: latest.metadata.name,
      phase: 'Running',
    };
  const run = runs.find(
    (r) =>
      num(r, LABEL_WORKFLOW_ROUND) === (d.round ?? 0) && num(r, LABEL_DELETE_ATTEMPT) === (d.attempt ?? 0),
  );
  const manual = resource.metadata.labels?.[LABEL_MANUAL_RECONCILIATION] === 'true';
  const changed = d.hash !== hash || manual;
  const start = (round: number, attempt: number) => startDelete(o, hash, round, attempt, actions);
  const labels: Record<string, string | null> = {};
  if (!d.round) d = start(1, 1);
  else if (d.phase === 'Failed' && !run?.status?.phase && d.workflowRunName === undefined) {
    // A failure to make the run (a missing Workflow) waits for a change, as a failed run does.
    if (changed) d = start((d.round ?? 0) + 1, 1);
  } else if (!run) {
    // Recorded as started but not in the cache yet: created again under the same name.
    if (d.phase === 'Running') d = start(d.round ?? 1, d.attempt ?? 1);
    else if (d.phase === 'Failed' && changed) d = start((d.round ?? 0) + 1, 1);
  } else d = followDeleteRun(o, d, run, recorded, { changed, start, labels, actions });
  if (d.phase !== 'Suspended' && resource.metadata.labels?.[LABEL_SUSPENDED] === 'true')
    labels[LABEL_SUSPENDED] = null;
  if (manual && actions.some((a) => a.type === 'createRun')) labels[LABEL_MANUAL_RECONCILIATION] = null;
  if (Object.keys(labels).length > 0) actions.unshift({ type: 'setLabels', labels });
  if (d.phase === 'Suspended' && d.nextRetryAt === undefined) delete d.nextRetryAt;
  // What the delete pipeline wrote to status.yaml shows while the resource exists.
  const free: Record<string, unknown> = {};
  const current = runs.find((r) => r.metadata.name === d.workflowRunName);
  for (const [k, v] of Object.entries(current?.status?.stepStatus ?? {})) if (!RESERVED.has(k)) free[k] = v;
  const written = current ? o.statusMessageOf?.(current) : undefined;
  return { d, written, free };
}

/** Plans the delete pipeline's run for this round and attempt, or why it cannot be made. */
function startDelete(
  o: ResourceObserved,
  hash: string,
  round: number,
  attempt: number,
  actions: ResourceAction[],
): ResourceDelete {
  const pipeline = deletePipeline(o.promise);
  const made = buildPipelineRun(o.resource, o.promise, pipeline as never, {
    round,
    hash,
    earlier: {},
    workflow: o.workflow,
    deleteAttempt: attempt,
  });
  const d: ResourceDelete = { hash, round, attempt, phase: 'Running' };
  if ('error' in made && typeof made.error === 'string')
    return { ...d, phase: 'Failed', message: made.error };
  const wfr = made as WorkflowRun;
  actions.push({ type: 'createRun', pipeline: pipeline?.metadata.name ?? '', run: wfr });
  actions.push({
    type: 'event',
    eventType: 'Normal',
    reason: 'DeletePipelineStarted',
    message: `delete pipeline "${pipeline?.metadata.name}" started (attempt ${attempt}): WorkflowRun "${wfr.metadata.name}"`,
  });
  return { ...d, workflowRunName: wfr.metadata.name };
}

/** The delete pipeline's run exists: it succeeded, is suspended, failed (retried up to the limit) or runs. */
function followDeleteRun(
  o: ResourceObserved,
  d: ResourceDelete,
  run: WorkflowRun,
  recorded: ResourceDelete | undefined,
  c: {
    changed: boolean;
    start: (round: number, attempt: number) => ResourceDelete;
    labels: Record<string, string | null>;
    actions: ResourceAction[];
  },
): ResourceDelete {
  const phase = run.status?.phase;
  if (phase === 'Succeeded') return { ...d, phase: 'Succeeded', message: undefined, nextRetryAt: undefined };
  if (phase === 'Suspended') {
    const job = Object.values(run.status?.jobs ?? {}).find((j) => j.phase === 'Suspended');
    const s = suspendedResourceLabel({
      wasSuspended: recorded?.phase === 'Suspended' && recorded.workflowRunName === run.metadata.name,
      labelled: o.resource.metadata.labels?.[LABEL_SUSPENDED] === 'true',
      run,
    });
    if (s.label) c.labels[LABEL_SUSPENDED] = s.label;
    if (s.resumeRun !== undefined) c.actions.push({ type: 'resumeRun', name: s.resumeRun });
    return {
      ...d,
      phase: 'Suspended',
      message: job?.message ?? run.status?.message,
      nextRetryAt: job?.nextRetryAt,
    };
  }
  if (phase !== 'Failed' && phase !== 'Cancelled')
    return { ...d, phase: 'Running', workflowRunName: run.metadata.name };
  const limit =
    deletePipeline(o.promise)?.spec.jobOptions?.backoffLimit ??
    o.promise.spec.workflows?.resource?.deleteBackoffLimit ??
    DEFAULT_DELETE_BACKOFF_LIMIT;
  const why = run.status?.message ?? `run ${phase}`;
  if ((d.attempt ?? 1) <= limit && d.phase !== 'Failed') return c.start(d.round ?? 1, (d.attempt ?? 1) + 1);
  if (d.phase === 'Failed' && c.changed) return c.start((d.round ?? 0) + 1, 1);
  if (d.phase !== 'Failed')
    c.actions.push({
      type: 'event',
      eventType: 'Warning',
      reason: 'DeleteWorkflowFailed',
      message: `delete pipeline "${deletePipeline(o.promise)?.metadata.name}" failed ${d.attempt} time(s): ${why}`,
    });
  return { ...d, phase: 'Failed', message: `delete pipeline failed after ${d.attempt} attempt(s): ${why}` };
}
