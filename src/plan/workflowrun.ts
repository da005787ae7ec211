// planWorkflowRun(observed) -> { status, actions }: the semantics of one WorkflowRun's direct
// jobs (docs/specifications.md W5, W7-W11; docs/design.md §2). Each job is planned by
// its kind (inline-job.ts, call-job.ts) in the order of its needs; the run's phase and message follow
// from its jobs'. Pure: the controller loads what is observed, applies the actions, and requeues.
import { jobEnded, workflowRunEnded } from '../api/phases.js';
import { compactCopy, metadataWithoutManagedFields, type SharedValues } from '../api/objects.js';
import type { JobSpec, JobStatus, WorkflowRun, WorkflowRunStatus } from '../api/types.js';
import type { Contexts } from '../expr/index.js';
import { topologicalOrder, upstreamJobs } from '../graph/jobs.js';
import { LABEL_SUSPENDED } from '../labels.js';
import { snapshotName } from '../names.js';
import { callJob } from './call-job.js';
import { succeededCondition } from './conditions.js';
import { inlineJob } from './inline-job.js';
import { runOutputs, stepStatusOf } from './run-outputs.js';
import type { Action, Observed, Plan } from './run-plan.js';

export type { Action, Observed, Plan } from './run-plan.js';

/**
 * A run whose status says it ended, for the generation it has: nothing of it changes any more, so
 * it is planned only for its retention, and its caches need not hold what running it took.
 */
export function settled(run: WorkflowRun): boolean {
  const s = run.status;
  return (
    workflowRunEnded(s?.phase) && Boolean(s?.finishedAt) && s?.observedGeneration === run.metadata.generation
  );
}

/**
 * What a cache keeps of a WorkflowRun: a settled one without its steps, inputs and input files, and
 * of its status only what is read once it ended (its phase, message, outputs and what its steps
 * wrote, for its caller or resource; each job's phase, attempts, outputs and step Runs, for a
 * resource's pipeline entries and files; finishedAt, for its retention). A settled root run (no
 * owner: neither a caller nor a resource reads it) keeps only what its retention reads. Its
 * conditions, progress and times are not, and its status is never written from this copy: planned
 * again, a settled run keeps it as it is. Kept for as long as its retention lasts, it is compacted,
 * and its spec (the same for every run of one workflow) shared through `values`.
 */
export function workflowRunAsObserved(run: WorkflowRun, values?: SharedValues): WorkflowRun {
  const metadata = metadataWithoutManagedFields(run.metadata);
  if (!settled(run)) return { ...run, metadata };
  const { cancelRequested, ttlSecondsAfterFinished } = run.spec;
  const jobs = Object.fromEntries(
    Object.entries(run.spec.jobs).map(([name, j]) => [
      name,
      {
        ...(j.needs ? { needs: j.needs } : {}),
        ...(j.uses !== undefined ? { uses: j.uses } : {}),
      } as JobSpec,
    ]),
  );
  const root = !run.metadata.ownerReferences?.length;
  const kept = compactCopy({
    ...run,
    // The start of a resource's round is its pipeline runs' creation; nothing reads a root run's.
    metadata: root ? { ...metadata, creationTimestamp: undefined } : metadata,
    spec: {
      jobs,
      ...(cancelRequested !== undefined ? { cancelRequested } : {}),
      ...(ttlSecondsAfterFinished !== undefined ? { ttlSecondsAfterFinished } : {}),
    },
    status: settledStatus(run.status ?? {}, root),
  });
  if (values) kept.spec = values.share(kept.spec);
  return kept;
}

function settledStatus(s: WorkflowRunStatus, root: boolean): WorkflowRunStatus {
  const { phase, message, finishedAt, observedGeneration, outputs, stepStatus } = s;
  if (root) return defined({ phase, message, finishedAt, observedGeneration });
  const jobs = s.jobs
    ? Object.fromEntries(
        Object.entries(s.jobs).map(([name, j]) => [
          name,
          defined({
            phase: j.phase,
            attempts: j.attempts,
            outputs: j.outputs,
            steps: j.steps?.map((step) => (step.runName ? { runName: step.runName } : {})),
          }),
        ]),
      )
    : undefined;
  return defined({ phase, message, finishedAt, observedGeneration, outputs, stepStatus, jobs });
}

export function planWorkflowRun(o: Observed): Plan {
  const { run } = o;
  const previous = run.status ?? {};
  if (settled(run)) return retentionPlan(o, previous);
  const snapName = snapshotName(run.metadata.name ?? '', run.metadata.uid ?? '');
  if (!o.snapshot) {
    const status = { ...previous, phase: previous.phase ?? 'Pending', snapshotName: snapName };
    return {
      status: { ...status, observedGeneration: run.metadata.generation },
      actions: [{ type: 'createSnapshot', name: snapName, spec: run.spec }],
    };
  }
  const actions: Action[] = [];
  const timers: number[] = [];
  const missing = new Set<string>();
  const statuses = planJobs(o, o.snapshot.jobs, actions, timers, missing);
  const status = runStatus(o, statuses, snapName);
  // The label marks a run one of whose own jobs is suspended; removing it resumes the job.
  const suspendedHere = Object.entries(statuses).some(
    ([name, x]) => x.phase === 'Suspended' && o.snapshot?.jobs[name]?.uses === undefined,
  );
  if (suspendedHere !== (run.metadata.labels?.[LABEL_SUSPENDED] === 'true'))
    actions.unshift({ type: 'setSuspendedLabel', value: suspendedHere });
  const plan: Plan = { status: compactCopy(status), actions };
  retain(o, status, plan, timers);
  // A timer is a wake-up, not a promise: a long one is cut to a day and planned again then.
  if (timers.length > 0) plan.requeueAfter = Math.min(Math.max(0, Math.min(...timers)), DAY_MS);
  if (missing.size > 0) plan.missingWorkflows = [...missing];
  return plan;
}

/** Every job's status, planned in the order of its needs (a job reads its upstream jobs' outputs). */
function planJobs(
  o: Observed,
  jobs: Record<string, JobSpec>,
  actions: Action[],
  timers: number[],
  missing: Set<string>,
): Record<string, JobStatus> {
  const cancel = o.run.spec.cancelRequested === true;
  const now = o.now.toISOString();
  const runsByName = new Map(o.runs.map((r) => [r.metadata.name ?? '', r]));
  const childrenByName = new Map(o.children.map((c) => [c.metadata.name ?? '', c]));
  const statuses: Record<string, JobStatus> = {};
  for (const jobName of topologicalOrder(jobs)) {
    const job = jobs[jobName] as JobSpec;
    const before = o.run.status?.jobs?.[jobName] ?? {};
    const needs = job.needs ?? [];
    const blocked = needs.find((n) => ['Failed', 'Skipped', 'Cancelled'].includes(statuses[n]?.phase ?? ''));
    const ready = needs.every((n) => statuses[n]?.phase === 'Succeeded');
    const upstream = [...upstreamJobs(jobs, jobName)];
    const ctx: Contexts = {
      jobs: Object.fromEntries(upstream.map((n) => [n, { outputs: statuses[n]?.outputs ?? {} }])),
    };
    const j = { blocked, ready, cancel, actions };
    const st: JobStatus =
      job.uses !== undefined
        ? callJob(o, jobName, job, before, ctx, { ...j, childrenByName, missing, timers })
        : inlineJob(o, jobName, job, before, ctx, { ...j, runsByName, timers, statuses });
    if (st.phase && st.phase !== 'Pending' && !st.startedAt) st.startedAt = before.startedAt ?? now;
    if (jobEnded(st.phase) && !st.finishedAt) st.finishedAt = before.finishedAt ?? now;
    statuses[jobName] = st;
  }
  return statuses;
}

/** The run's phase from its jobs': all ended, some suspended, some started, or none yet. */
function runPhase(all: JobStatus[], cancel: boolean): NonNullable<WorkflowRunStatus['phase']> {
  if (all.every((s) => jobEnded(s.phase))) {
    if (all.every((s) => s.phase === 'Succeeded')) return 'Succeeded';
    return cancel ? 'Cancelled' : 'Failed';
  }
  if (all.some((s) => s.phase === 'Suspended')) return 'Suspended';
  return all.some((s) => s.phase !== 'Pending') ? 'Running' : 'Pending';
}

/** The message `kubectl get` shows for a run in this phase: the job that decides it, and why. */
function runMessage(phase: string, statuses: Record<string, JobStatus>): string | undefined {
  const first = (p: (s: JobStatus) => boolean) => Object.entries(statuses).find(([, s]) => p(s));
  if (phase === 'Failed') {
    const failed = first((s) => s.phase === 'Failed');
    return failed ? `job "${failed[0]}" failed: ${failed[1].message ?? ''}`.replace(/: $/, '') : undefined;
  }
  if (phase === 'Cancelled') return 'cancelled on request';
  if (phase === 'Suspended') {
    const [name, s] = first((x) => x.phase === 'Suspended') ?? [];
    return `job "${name}" is suspended: ${s?.message ?? ''}`;
  }
  if (phase === 'Succeeded') return undefined;
  const waiting = first((s) => s.phase === 'Running' && Boolean(s.message));
  return waiting ? `job "${waiting[0]}": ${waiting[1].message ?? ''}` : undefined;
}

function runStatus(o: Observed, statuses: Record<string, JobStatus>, snapName: string): WorkflowRunStatus {
  const { run } = o;
  const previous = run.status ?? {};
  const now = o.now.toISOString();
  const all = Object.values(statuses);
  const phase = runPhase(all, run.spec.cancelRequested === true);
  const status: WorkflowRunStatus = {
    phase,
    progress: `${all.filter((s) => jobEnded(s.phase)).length}/${all.length}`,
    snapshotName: snapName,
    jobs: statuses,
    observedGeneration: run.metadata.generation,
    startedAt: previous.startedAt ?? (phase !== 'Pending' ? now : undefined),
  };
  let message = runMessage(phase, statuses);
  if (phase === 'Succeeded') {
    const outputs = runOutputs(run, statuses);
    if ('error' in outputs) {
      status.phase = 'Failed';
      message = outputs.error;
    } else if (Object.keys(outputs.values).length > 0) status.outputs = outputs.values;
  }
  // What steps wrote to $KRT_STATUS: its message shows when nothing more pressing does.
  const written = stepStatusOf(o.runs, statuses);
  if (written.message && (phase === 'Succeeded' || (phase === 'Running' && !message)))
    message = written.message;
  if (Object.keys(written.values).length) status.stepStatus = written.values;
  if (message) status.message = message;
  if (workflowRunEnded(status.phase)) status.finishedAt = previous.finishedAt ?? now;
  status.conditions = [succeededCondition(status, previous.conditions, run.metadata.generation, now)];
  return status;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** A settled run: its status as it is, and its deletion once its retention ends. */
function retentionPlan(o: Observed, status: WorkflowRunStatus): Plan {
  const plan: Plan = { status, actions: [] };
  const timers: number[] = [];
  retain(o, status, plan, timers);
  if (timers.length > 0) plan.requeueAfter = Math.min(Math.max(0, Math.min(...timers)), DAY_MS);
  return plan;
}

/** The deletion of a finished root run whose retention ended, or a timer until it does. */
function retain(o: Observed, status: WorkflowRunStatus, plan: Plan, timers: number[]): void {
  const expiry = retentionEnds(o, status);
  if (expiry === undefined) return;
  if (o.now.getTime() >= expiry) plan.actions.push({ type: 'deleteWorkflowRun' });
  else timers.push(expiry - o.now.getTime());
}

/**
 * When a finished root run is deleted: `finishedAt` plus its ttlSecondsAfterFinished or the
 * controller's default. Child runs have none of their own: they go with their root.
 */
function retentionEnds(o: Observed, status: WorkflowRunStatus): number | undefined {
  if (!workflowRunEnded(status.phase) || !status.finishedAt) return undefined;
  if (o.run.metadata.ownerReferences?.some((r) => r.kind === 'WorkflowRun')) return undefined;
  const ttl = o.run.spec.ttlSecondsAfterFinished ?? o.defaultTtlSeconds;
  return ttl === undefined ? undefined : Date.parse(status.finishedAt) + ttl * 1000;
}

/** The object without its undefined fields (one level; its values are kept as they are). */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/**
 * The run as it would be had these jobs failed: how a refusal to create a job's Run or child run
 * (an admission denial, an invalid object) enters the plan. The planner keeps a recorded failure
 * instead of creating again, so it is not retried, and dependents are Skipped as for any failure.
 */
export function withFailedJobs(run: WorkflowRun, failures: Record<string, string>): WorkflowRun {
  // Nothing refused: the run as it is (a settled root run is cached without its jobs).
  if (Object.keys(failures).length === 0) return run;
  const jobs = { ...(run.status?.jobs ?? {}) };
  for (const [job, message] of Object.entries(failures))
    jobs[job] = { ...jobs[job], phase: 'Failed', message };
  return { ...run, status: { ...run.status, jobs } };
}
