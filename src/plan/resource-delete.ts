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
import { condition } from '../api/objects.js';
import { buildPipelineRun, deletePipeline, runsOfType, workflowHash } from '../promise/pipeline.js';
import {
  notingMissingWorkflows,
  RESERVED_STATUS_KEYS as RESERVED,
  type ResourceAction,
  type ResourceObserved,
  type ResourcePlan,
} from './resource.js';

const num = (r: WorkflowRun, label: string) => Number(r.metadata.labels?.[label] ?? 0) || 0;

export const planResourceDeletion = notingMissingWorkflows(planDeletion);

function planDeletion(o: ResourceObserved): ResourcePlan {
  const { resource, promise } = o;
  const now = o.now.toISOString();
  const prev = resource.status ?? {};
  const finalizers = resource.metadata.finalizers ?? [];
  const actions: ResourceAction[] = [];
  const status = (d: ResourceDelete | undefined, message: string, cond: Condition | undefined) => {
    const out: ResourceStatus = { ...prev, message };
    out.kruntimes = { ...(prev.kruntimes ?? {}), ...(d ? { delete: d } : {}) };
    const others = (prev.conditions ?? []).filter((c) => c.type !== 'DeleteWorkflowCompleted');
    out.conditions = cond ? [...others, cond] : others;
    return JSON.parse(JSON.stringify(out)) as ResourceStatus;
  };
  const cond = (value: Condition['status'], reason: string, message: string): Condition =>
    condition(
      prev.conditions,
      { type: 'DeleteWorkflowCompleted', status: value, reason, message },
      undefined,
      now,
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
    d = plan.d;
    // A namespace being deleted takes no new run: the teardown goes on without the pipeline, said
    // loudly, rather than the namespace's deletion waiting for ever.
    if (o.namespaceTerminating && d.phase !== 'Succeeded' && d.phase !== 'Skipped') {
      for (let i = actions.length - 1; i >= 0; i--)
        if (actions[i]?.type === 'createRun') actions.splice(i, 1);
      const message = 'the namespace is being deleted, so the delete pipeline cannot run in it';
      d = { ...d, phase: 'Skipped', message, workflowRunName: undefined };
      actions.push({ type: 'event', eventType: 'Warning', reason: 'DeleteWorkflowSkipped', message });
    }
    if (d.phase !== 'Succeeded' && d.phase !== 'Skipped') {
      const reason = {
        Running: 'DeleteWorkflowRunning',
        Failed: 'DeleteWorkflowFailed',
        Suspended: 'DeleteWorkflowSuspended',
      }[d.phase ?? 'Running'];
      const message = plan.written ?? d.message ?? `delete pipeline "${pipeline.metadata.name}" is running`;
      const out = status(d, message, cond('False', reason ?? 'DeleteWorkflowRunning', d.message ?? message));
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
    return {
      status: status(d, message, done(message)),
      actions,
      requeueAfter: 1000,
    };
  }
  const rest = finalizers.filter((f) => f !== FINALIZER_DELETE_WORKFLOW && f !== FINALIZER_WORKS_CLEANUP);
  if (rest.length !== finalizers.length) actions.push({ type: 'setFinalizers', finalizers: rest });
  const message = 'deleted';
  return {
    status: status(d, message, done(message)),
    actions,
  };
}

/** The delete pipeline's round and attempt: start, retry, hold after the last failure, or succeed. */
function deleteWorkflow(
  o: ResourceObserved,
  recorded: ResourceDelete | undefined,
  actions: ResourceAction[],
): { d: ResourceDelete; written?: string; free: Record<string, unknown> } {
  const { resource, promise } = o;
  const pipeline = deletePipeline(promise);
  const hash = workflowHash(resource, promise);
  const limit = promise.spec.workflows?.resource?.deleteBackoffLimit ?? DEFAULT_DELETE_BACKOFF_LIMIT;
  const runs = runsOfType(o.runs, 'delete');
  // The latest run tells the round and attempt even when its status write was lost in a crash.
  const latest = runs.reduce<WorkflowRun | undefined>((best, r) => {
    const key = (x: WorkflowRun) => num(x, LABEL_WORKFLOW_ROUND) * 1000 + num(x, LABEL_DELETE_ATTEMPT);
    return !best || key(r) > key(best) ? r : best;
  }, undefined);
  let d: ResourceDelete = { ...(recorded ?? {}) };
  if (d.phase === 'Skipped') return { d, free: {} };
  if (
    latest &&
    num(latest, LABEL_WORKFLOW_ROUND) * 1000 + num(latest, LABEL_DELETE_ATTEMPT) >
      (d.round ?? 0) * 1000 + (d.attempt ?? 0)
  )
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
  const start = (round: number, attempt: number) => {
    const made = buildPipelineRun(resource, promise, pipeline as never, round, hash, {}, o.workflow, attempt);
    d = { hash, round, attempt, phase: 'Running' };
    if ('error' in made && typeof made.error === 'string') {
      d = { ...d, phase: 'Failed', message: made.error };
      return;
    }
    const wfr = made as WorkflowRun;
    d.workflowRunName = wfr.metadata.name;
    actions.push({ type: 'createRun', pipeline: pipeline?.metadata.name ?? '', run: wfr });
    actions.push({
      type: 'event',
      eventType: 'Normal',
      reason: 'DeletePipelineStarted',
      message: `delete pipeline "${pipeline?.metadata.name}" started (attempt ${attempt}): WorkflowRun "${wfr.metadata.name}"`,
    });
  };
  const labels: Record<string, string | null> = {};
  if (!d.round) start(1, 1);
  else if (d.phase === 'Failed' && !run?.status?.phase && d.workflowRunName === undefined) {
    // A failure to make the run (a missing Workflow) waits for a change, as a failed run does.
    if (d.hash !== hash || manual) start((d.round ?? 0) + 1, 1);
  } else if (!run) {
    // Recorded as started but not in the cache yet: created again under the same name.
    if (d.phase === 'Running') start(d.round ?? 1, d.attempt ?? 1);
    else if (d.phase === 'Failed' && (d.hash !== hash || manual)) start((d.round ?? 0) + 1, 1);
  } else {
    const phase = run.status?.phase;
    const job = Object.values(run.status?.jobs ?? {}).find((j) => j.phase === 'Suspended');
    const wasSuspended = recorded?.phase === 'Suspended' && recorded.workflowRunName === run.metadata.name;
    if (phase === 'Succeeded') d = { ...d, phase: 'Succeeded', message: undefined, nextRetryAt: undefined };
    else if (phase === 'Suspended') {
      d = {
        ...d,
        phase: 'Suspended',
        message: job?.message ?? run.status?.message,
        nextRetryAt: job?.nextRetryAt,
      };
      const s = suspendedResourceLabel({
        wasSuspended,
        labelled: resource.metadata.labels?.[LABEL_SUSPENDED] === 'true',
        run,
      });
      if (s.label) labels[LABEL_SUSPENDED] = s.label;
      if (s.resumeRun !== undefined) actions.push({ type: 'resumeRun', name: s.resumeRun });
    } else if (phase === 'Failed' || phase === 'Cancelled') {
      const why = run.status?.message ?? `run ${phase}`;
      if ((d.attempt ?? 1) <= limit && d.phase !== 'Failed') start(d.round ?? 1, (d.attempt ?? 1) + 1);
      else if (d.phase === 'Failed' && (d.hash !== hash || manual)) start((d.round ?? 0) + 1, 1);
      else {
        if (d.phase !== 'Failed')
          actions.push({
            type: 'event',
            eventType: 'Warning',
            reason: 'DeleteWorkflowFailed',
            message: `delete pipeline "${pipeline?.metadata.name}" failed ${d.attempt} time(s): ${why}`,
          });
        d = {
          ...d,
          phase: 'Failed',
          message: `delete pipeline failed after ${d.attempt} attempt(s): ${why}`,
        };
      }
    } else d = { ...d, phase: 'Running', workflowRunName: run.metadata.name };
  }
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
