// planWorkflowRun(observed) -> { status, actions }: the semantics of one WorkflowRun's direct
// jobs (first seed, "Controller Responsibilities"; docs/design.md §2 "Decided where the seed is open").
// Pure: the controller loads what is observed, applies the actions, and requeues.
import { jobEnded, runEnded, workflowRunEnded } from '../api/phases.js';
import type {
  JobSpec,
  JobStatus,
  Run,
  Workflow,
  WorkflowRun,
  WorkflowRunSpec,
  WorkflowRunStatus,
} from '../api/types.js';
import { ExprError, renderTemplate, type Contexts } from '../expr/index.js';
import { renderScript } from '../shell/render.js';
import { formatFieldError } from '../fielderror.js';
import { validateCallGraphSync } from '../graph/callgraph.js';
import { topologicalOrder, upstreamJobs } from '../graph/jobs.js';
import { LABEL_SUSPENDED } from '../labels.js';
import { MAX_OUTPUTS, OUTPUT_ANNOTATION_PREFIX } from '../limits.js';
import { childWorkflowRunName, runName, snapshotName } from '../names.js';
import { materialize, resolveInputs } from '../render/materialize.js';
import { isScalar } from '../helpers.js';
import { withValueErrors } from '../render/inputs.js';
import { NO_AGENT, noAgentMessage } from '../runtime/agents.js';
import { decide, suspends, type Decision } from './suspension.js';
import { buildChild, buildRun, runContainer, type RunEnv } from './objects.js';
import { seedFiles } from '../promise/files.js';
import { succeededCondition } from './conditions.js';

export interface Observed {
  run: WorkflowRun;
  /** The spec frozen in the snapshot ControllerRevision, when it exists. */
  snapshot?: WorkflowRunSpec;
  /** Direct child Runs (label kruntimes.io/workflowrun-uid). */
  runs: Run[];
  /** Direct child WorkflowRuns (label kruntimes.io/parent-uid). */
  children: WorkflowRun[];
  /** Workflows of the namespace, read when a call job becomes runnable (late binding). */
  workflow: (name: string) => Workflow | undefined;
  /**
   * Whether a WorkflowRun or Run of this name exists in the namespace without being this run's: a
   * deterministic name taken by another owner fails the job instead of being retried for ever.
   */
  takenByOther?: (kind: 'WorkflowRun' | 'Run', name: string) => boolean;
  /**
   * Until when (ms since the epoch) a live runtimed serves a runtime in this run's namespace, or
   * undefined when none does. Without it, every runtime counts as served.
   */
  agentsServe?: (runtime: string) => number | undefined;
  /** Seconds a finished root run is kept when its spec does not say (the controller's default). */
  defaultTtlSeconds?: number;
  now: Date;
}

export type Action =
  | { type: 'createSnapshot'; name: string; spec: WorkflowRunSpec }
  | { type: 'createRun'; job: string; run: Run }
  | { type: 'createChild'; job: string; child: WorkflowRun }
  | { type: 'cancelRun'; name: string }
  | { type: 'cancelChild'; name: string }
  /** An unclaimed Run that no live agent can take says so: phase Pending, reason NoAgent. */
  | { type: 'markNoAgent'; run: Run; message: string }
  /** Adds or removes the kruntimes.io/workflow-suspended label; it comes before the status write. */
  | { type: 'setSuspendedLabel'; value: boolean }
  /** The run's time after it finished is up: it goes, with everything it made (garbage collector). */
  | { type: 'deleteWorkflowRun' };

export interface Plan {
  status: WorkflowRunStatus;
  actions: Action[];
  /**
   * Plan again after this many ms even if nothing changes: a Run waits for an agent whose Lease
   * expires then, and nothing else would tell.
   */
  requeueAfter?: number;
  /**
   * Workflows a call job failed on because the lookup did not find them. A lookup is a cache that
   * can lag a Workflow created just before its run, so the caller confirms with the API server
   * before it writes such a failure.
   */
  missingWorkflows?: string[];
}

const RUN_FAILED = new Set(['Failed', 'Timeout']);

export function planWorkflowRun(o: Observed): Plan {
  const { run } = o;
  const uid = run.metadata.uid ?? '';
  const previous = run.status ?? {};
  const actions: Action[] = [];
  const name = run.metadata.name ?? '';
  const snapName = snapshotName(name, uid);
  if (!o.snapshot) {
    actions.push({ type: 'createSnapshot', name: snapName, spec: run.spec });
    return {
      status: {
        ...previous,
        phase: previous.phase ?? 'Pending',
        snapshotName: snapName,
        observedGeneration: run.metadata.generation,
      },
      actions,
    };
  }
  const jobs = o.snapshot.jobs;
  const cancel = run.spec.cancelRequested === true;
  const now = o.now.toISOString();
  const runsByName = new Map(o.runs.map((r) => [r.metadata.name ?? '', r]));
  const childrenByName = new Map(o.children.map((c) => [c.metadata.name ?? '', c]));
  const statuses: Record<string, JobStatus> = {};
  const outputsOf = (j: string) => statuses[j]?.outputs ?? {};
  const timers: number[] = [];
  const missing = new Set<string>();

  for (const jobName of topologicalOrder(jobs)) {
    const job = jobs[jobName] as JobSpec;
    const before = previous.jobs?.[jobName] ?? {};
    const needs = job.needs ?? [];
    const blocked = needs.find((n) => ['Failed', 'Skipped', 'Cancelled'].includes(statuses[n]?.phase ?? ''));
    const ready = needs.every((n) => statuses[n]?.phase === 'Succeeded');
    const ctx: Contexts = {
      jobs: Object.fromEntries([...upstreamJobs(jobs, jobName)].map((n) => [n, { outputs: outputsOf(n) }])),
    };
    const st: JobStatus =
      job.uses !== undefined
        ? callJob(o, jobName, job, before, ctx, { blocked, ready, cancel, childrenByName, actions, missing })
        : inlineJob(o, jobName, job, before, ctx, {
            blocked,
            ready,
            cancel,
            runsByName,
            actions,
            timers,
            statuses,
          });
    if (st.phase && st.phase !== 'Pending' && !st.startedAt) st.startedAt = before.startedAt ?? now;
    if (jobEnded(st.phase) && !st.finishedAt) st.finishedAt = before.finishedAt ?? now;
    statuses[jobName] = st;
  }

  const all = Object.values(statuses);
  const done = all.filter((s) => jobEnded(s.phase)).length;
  let phase: WorkflowRunStatus['phase'];
  let message: string | undefined;
  if (done === all.length) {
    if (all.every((s) => s.phase === 'Succeeded')) phase = 'Succeeded';
    else if (cancel) phase = 'Cancelled';
    else phase = 'Failed';
  } else if (all.some((s) => s.phase === 'Suspended')) phase = 'Suspended';
  else phase = all.some((s) => s.phase !== 'Pending') ? 'Running' : 'Pending';

  const status: WorkflowRunStatus = {
    phase,
    progress: `${done}/${all.length}`,
    snapshotName: snapName,
    jobs: statuses,
    observedGeneration: run.metadata.generation,
    startedAt: previous.startedAt ?? (phase !== 'Pending' ? now : undefined),
  };
  if (phase === 'Succeeded') {
    const outputs = runOutputs(run, statuses);
    if ('error' in outputs) {
      status.phase = 'Failed';
      message = outputs.error;
    } else if (Object.keys(outputs.values).length > 0) status.outputs = outputs.values;
  } else if (phase === 'Failed') {
    const failed = Object.entries(statuses).find(([, s]) => s.phase === 'Failed');
    message = failed ? `job "${failed[0]}" failed: ${failed[1].message ?? ''}`.replace(/: $/, '') : undefined;
  } else if (phase === 'Cancelled') message = 'cancelled on request';
  else if (phase === 'Suspended') {
    const [name, s] = Object.entries(statuses).find(([, x]) => x.phase === 'Suspended') ?? [];
    message = `job "${name}" is suspended: ${s?.message ?? ''}`;
  } else {
    const waiting = Object.entries(statuses).find(([, s]) => s.phase === 'Running' && s.message);
    if (waiting) message = `job "${waiting[0]}": ${waiting[1].message ?? ''}`;
  }
  // What steps wrote to $KRT_STATUS: its message shows when nothing more pressing does.
  const written = stepStatusOf(o.runs, statuses);
  if (written.message && (phase === 'Succeeded' || (phase === 'Running' && !message)))
    message = written.message;
  if (Object.keys(written.values).length) status.stepStatus = written.values;
  if (message) status.message = message;
  if (workflowRunEnded(status.phase)) status.finishedAt = previous.finishedAt ?? now;
  status.conditions = [succeededCondition(status, previous.conditions, run.metadata.generation, now)];
  // The label marks a run one of whose own jobs is suspended; removing it resumes the job.
  const suspendedHere = Object.entries(statuses).some(
    ([name, x]) => x.phase === 'Suspended' && jobs[name]?.uses === undefined,
  );
  if (suspendedHere !== (run.metadata.labels?.[LABEL_SUSPENDED] === 'true'))
    actions.unshift({ type: 'setSuspendedLabel', value: suspendedHere });
  const expiry = retentionEnds(o, status);
  if (expiry !== undefined) {
    if (o.now.getTime() >= expiry) actions.push({ type: 'deleteWorkflowRun' });
    else timers.push(expiry - o.now.getTime());
  }
  const plan: Plan = { status: stripUndefined(status), actions };
  // A timer is a wake-up, not a promise: a long one is cut to a day and planned again then.
  if (timers.length > 0) plan.requeueAfter = Math.min(Math.max(0, Math.min(...timers)), DAY_MS);
  if (missing.size > 0) plan.missingWorkflows = [...missing];
  return plan;
}

const DAY_MS = 24 * 60 * 60 * 1000;

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

interface JobCtx {
  blocked: string | undefined;
  ready: boolean;
  cancel: boolean;
  actions: Action[];
}

function inlineJob(
  o: Observed,
  jobName: string,
  job: JobSpec,
  before: JobStatus,
  ctx: Contexts,
  j: JobCtx & { runsByName: Map<string, Run>; timers: number[]; statuses: Record<string, JobStatus> },
): JobStatus {
  const wfr = o.run.metadata.name ?? '';
  const steps = job.steps ?? [];
  const attemptRuns = (attempt: number) =>
    steps.map((s) => {
      const name = runName(wfr, jobName, s.name, attempt);
      const r = j.runsByName.get(name);
      return { step: s, name, run: r, phase: r ? (r.status?.phase ?? 'Pending') : undefined };
    });
  let attempt = Math.max(1, before.attempts ?? 1);
  let stepStatus = attemptRuns(attempt);
  // A step that succeeded and wrote suspend or retryAfter holds the job (no later step starts)
  // until its label is removed or its retry time comes: then the job runs again as a new attempt.
  const hold = stepStatus.find((s) => s.phase === 'Succeeded' && suspends(s.run?.status?.control));
  let suspension: Extract<Decision, { suspended: true }> | undefined;
  if (hold?.run?.status?.control) {
    const d = decide(
      hold.run.status.control,
      hold.run.status.completionTime ?? o.now.toISOString(),
      before,
      o.run.metadata.labels?.[LABEL_SUSPENDED] === 'true',
      o.now,
    );
    if (d.suspended) suspension = d;
    else if (!j.cancel) stepStatus = attemptRuns(++attempt);
  }
  const st: JobStatus = {
    phase: 'Pending',
    ...(stepStatus.some((s) => s.run) || attempt > 1 ? { attempts: attempt } : {}),
    steps: stepStatus
      .filter((s) => s.run)
      .map((s) => ({
        name: s.step.name,
        phase: s.phase,
        runName: s.name,
        ...(s.run?.status?.outputs ? { outputs: s.run.status.outputs } : {}),
      })),
  };
  if (st.steps?.length === 0) delete st.steps;
  if (suspension) {
    if (j.cancel) return { ...st, phase: 'Cancelled', message: 'cancelled while suspended' };
    if (suspension.retryAt) j.timers.push(Date.parse(suspension.retryAt) - o.now.getTime());
    return {
      ...st,
      phase: 'Suspended',
      message: suspension.message,
      ...(suspension.retryAt ? { nextRetryAt: suspension.retryAt } : {}),
    };
  }
  const started = stepStatus.some((s) => s.run) || attempt > 1;
  // A deterministic failure recorded earlier (a render error) is not retried.
  if (!started && before.phase === 'Failed') return { phase: 'Failed', message: before.message };
  if (!started) {
    // In a cancelled run, a job that never started is Cancelled, whatever its needs became.
    if (j.cancel) return { phase: 'Cancelled', message: 'cancelled before it started' };
    if (j.blocked) return { phase: 'Skipped', message: `needs job "${j.blocked}", which did not succeed` };
    if (!j.ready) return st;
  }
  const failed = stepStatus.find((s) => s.phase && RUN_FAILED.has(s.phase));
  if (failed) {
    const r = failed.run?.status ?? {};
    // The exit code says it all for a plain failure; other reasons (OutputsInvalid, Signaled, ...)
    // carry runtimed's message.
    const plain = r.reason === 'NonZeroExit' || (!r.reason && r.exitCode !== undefined);
    const how =
      r.phase === 'Timeout'
        ? 'timed out'
        : plain
          ? `failed with exit code ${r.exitCode ?? '?'}`
          : `failed${r.reason ? ` (${r.reason})` : ''}`;
    const detail = !plain && r.message ? `: ${r.message}` : '';
    return { ...st, phase: 'Failed', message: `step "${failed.step.name}" ${how}${detail}` };
  }
  if (stepStatus.some((s) => s.phase === 'Cancelled')) {
    const active = stepStatus.some((s) => s.phase && !runEnded(s.phase));
    return active
      ? { ...st, phase: 'Running' }
      : { ...st, phase: 'Cancelled', message: 'cancelled on request' };
  }
  const stepCtx = (upTo: number): Contexts => ({
    ...ctx,
    steps: Object.fromEntries(
      stepStatus.slice(0, upTo).map((s) => [s.step.name, { outputs: s.run?.status?.outputs ?? {} }]),
    ),
  });
  if (stepStatus.every((s) => s.phase === 'Succeeded')) {
    try {
      const outputs: Record<string, string> = {};
      for (const [k, v] of Object.entries(job.outputs ?? {}))
        outputs[k] = renderTemplate(v, stepCtx(steps.length));
      return { ...st, phase: 'Succeeded', ...(Object.keys(outputs).length ? { outputs } : {}) };
    } catch (e) {
      return { ...st, phase: 'Failed', message: `outputs: ${e instanceof Error ? e.message : String(e)}` };
    }
  }
  if (j.cancel) {
    for (const s of stepStatus)
      if (s.run && !s.run.spec.cancelRequested && !runEnded(s.phase))
        j.actions.push({ type: 'cancelRun', name: s.name });
    return { ...st, phase: 'Running' };
  }
  // The next step starts when every earlier step has succeeded.
  const next = stepStatus.findIndex((s) => !s.run);
  if (next >= 0 && stepStatus.slice(0, next).every((s) => s.phase === 'Succeeded')) {
    const s = stepStatus[next] as (typeof stepStatus)[number];
    // A failure recorded for this job (the API refused its next Run) is final: not retried.
    if (before.phase === 'Failed') return { ...st, phase: 'Failed', message: before.message };
    if (o.takenByOther?.('Run', s.name))
      return { ...st, phase: 'Failed', message: `Run "${s.name}" exists and belongs to another owner` };
    try {
      const c = stepCtx(next);
      const script = s.step.run === undefined ? undefined : renderScript(s.step.run, c);
      const container = runContainer(job, s.step, (v) => renderTemplate(v, c));
      const env: RunEnv = Object.entries(s.step.env ?? {}).map(([k, v]) => ({
        name: k,
        value: renderTemplate(v, c),
      }));
      // Only the reference travels: runtimed reads the value when the step starts.
      for (const [k, ref] of Object.entries(s.step.secretEnv ?? {}))
        env.push({ name: k, valueFrom: { secretKeyRef: ref } });
      const files = {
        input: o.snapshot?.inputFiles ?? {},
        output: seedFiles(
          o.snapshot?.jobs ?? {},
          jobName,
          stepStatus[next - 1]?.run,
          (n) => j.statuses[n]?.steps,
          (n) => j.runsByName.get(n),
        ),
      };
      j.actions.push({
        type: 'createRun',
        job: jobName,
        run: buildRun(o.run, jobName, job, s.step, s.name, script, env, files, container),
      });
    } catch (e) {
      if (!(e instanceof ExprError)) throw e;
      return { ...st, phase: 'Failed', message: `step "${s.step.name}": ${e.message}` };
    }
  }
  const waiting = stepStatus.find((s) => s.run && s.phase === 'Pending');
  const message = waiting?.run ? waitingForAgent(o, waiting.run, j) : undefined;
  return {
    ...st,
    phase: 'Running',
    ...(message ? { message: `step "${waiting?.step.name}": ${message}` } : {}),
  };
}

/**
 * An unclaimed Run that no live agent serves is marked so (once), and its job says why it waits.
 * While an agent serves it, the plan is made again when that agent's Lease would expire.
 */
function waitingForAgent(o: Observed, run: Run, j: JobCtx & { timers: number[] }): string | undefined {
  if (!o.agentsServe) return undefined;
  const until = o.agentsServe(run.spec.runtime);
  if (until !== undefined) {
    j.timers.push(until - o.now.getTime() + 1000);
    return undefined;
  }
  const message = noAgentMessage(run.spec.runtime, o.run.metadata.namespace ?? '');
  const s = run.status;
  if (!(s?.phase === 'Pending' && s.reason === NO_AGENT && s.message === message))
    j.actions.push({ type: 'markNoAgent', run, message });
  return `${NO_AGENT}: ${message}`;
}

function callJob(
  o: Observed,
  jobName: string,
  job: JobSpec,
  before: JobStatus,
  ctx: Contexts,
  j: JobCtx & { childrenByName: Map<string, WorkflowRun>; missing: Set<string> },
): JobStatus {
  const childName = childWorkflowRunName(o.run.metadata.name ?? '', jobName);
  const child = j.childrenByName.get(childName);
  if (child) {
    const base: JobStatus = { workflowRunName: childName, attempts: 1 };
    const phase = child.status?.phase;
    if (phase === 'Succeeded') {
      const outputs = runOutputs(child, child.status?.jobs ?? {});
      if ('error' in outputs) return { ...base, phase: 'Failed', message: outputs.error };
      return {
        ...base,
        phase: 'Succeeded',
        ...(Object.keys(outputs.values).length ? { outputs: outputs.values } : {}),
      };
    }
    if (phase === 'Failed')
      return {
        ...base,
        phase: 'Failed',
        message: `workflow run "${childName}" failed${child.status?.message ? `: ${child.status.message}` : ''}`,
      };
    if (phase === 'Cancelled')
      return { ...base, phase: 'Cancelled', message: `workflow run "${childName}" was cancelled` };
    if (phase === 'Suspended') {
      // Resumed on the child, which owns the suspended job; this job follows it.
      if (j.cancel && !child.spec.cancelRequested) j.actions.push({ type: 'cancelChild', name: childName });
      return {
        ...base,
        phase: 'Suspended',
        message: child.status?.message ?? `workflow run "${childName}" is suspended`,
      };
    }
    if (j.cancel && !child.spec.cancelRequested) j.actions.push({ type: 'cancelChild', name: childName });
    return { ...base, phase: 'Running' };
  }
  if (before.phase === 'Failed') return { phase: 'Failed', message: before.message };
  if (j.cancel) return { phase: 'Cancelled', message: 'cancelled before it started' };
  if (j.blocked) return { phase: 'Skipped', message: `needs job "${j.blocked}", which did not succeed` };
  if (!j.ready) return { phase: 'Pending' };

  if (o.takenByOther?.('WorkflowRun', childName))
    return { phase: 'Failed', message: `WorkflowRun "${childName}" exists and belongs to another owner` };
  // Runnable: read the Workflow now (late binding) and check its graph with the shared text.
  const uses = job.uses as string;
  const graph = validateCallGraphSync(uses, o.workflow);
  if (graph.error) {
    if (graph.kind === 'notFound') j.missing.add(graph.path?.at(-1) ?? uses);
    return { phase: 'Failed', message: graph.error };
  }
  const template = o.workflow(uses) as Workflow;
  try {
    const given: Record<string, string> = {};
    for (const [k, v] of Object.entries(job.with ?? {})) {
      // Admission refuses anything else; a namespace without admission still gets a clear failure.
      if (!isScalar(v))
        return {
          phase: 'Failed',
          message: withValueErrors(v, `jobs.${jobName}.with.${k}`).map(formatFieldError).join('; '),
        };
      given[k] = typeof v === 'string' ? renderTemplate(v, ctx) : String(v);
    }
    const inputs = resolveInputs(template, given, `jobs.${jobName}.with`);
    if ('errors' in inputs)
      return { phase: 'Failed', message: inputs.errors.map(formatFieldError).join('; ') };
    const rendered = materialize(template, inputs.values);
    j.actions.push({
      type: 'createChild',
      job: jobName,
      child: buildChild(o.run, jobName, childName, uses, rendered),
    });
  } catch (e) {
    if (!(e instanceof ExprError)) throw e;
    return { phase: 'Failed', message: e.message };
  }
  return { phase: 'Running', workflowRunName: childName, attempts: 1 };
}

/** Evaluates a run's frozen output annotations against job statuses (its own, or a child's). */
export function runOutputs(
  run: Pick<WorkflowRun, 'metadata'>,
  jobs: Record<string, JobStatus>,
): { values: Record<string, string> } | { error: string } {
  const values: Record<string, string> = {};
  const ctx: Contexts = {
    jobs: Object.fromEntries(Object.entries(jobs).map(([k, s]) => [k, { outputs: s.outputs ?? {} }])),
  };
  for (const [key, expr] of Object.entries(run.metadata.annotations ?? {}).sort(([a], [b]) =>
    a.localeCompare(b),
  )) {
    if (!key.startsWith(OUTPUT_ANNOTATION_PREFIX)) continue;
    const name = key.slice(OUTPUT_ANNOTATION_PREFIX.length);
    try {
      values[name] = renderTemplate(expr, ctx);
    } catch (e) {
      return {
        error: `output "${name}" of workflow run "${run.metadata.name}": ${e instanceof Error ? e.message : String(e)}`,
      };
    }
  }
  return { values };
}

function stripUndefined<T extends object>(o: T): T {
  return JSON.parse(JSON.stringify(o)) as T;
}

/**
 * The run as it would be had these jobs failed: how a refusal to create a job's Run or child run
 * (an admission denial, an invalid object) enters the plan. The planner keeps a recorded failure
 * instead of creating again, so it is not retried, and dependents are Skipped as for any failure.
 */
export function withFailedJobs(run: WorkflowRun, failures: Record<string, string>): WorkflowRun {
  const jobs = { ...(run.status?.jobs ?? {}) };
  for (const [job, message] of Object.entries(failures))
    jobs[job] = { ...jobs[job], phase: 'Failed', message };
  return { ...run, status: { ...run.status, jobs } };
}

/**
 * What the Runs of this run wrote to $KRT_STATUS, in the order they completed: the last `message`,
 * and the other keys, a later step's value winning.
 */
function stepStatusOf(
  runs: Run[],
  statuses: Record<string, JobStatus>,
): { message?: string; values: Record<string, string> } {
  const current = new Set(Object.values(statuses).flatMap((s) => (s.steps ?? []).map((x) => x.runName)));
  return writtenStatus(runs.filter((r) => current.has(r.metadata.name)));
}

/** What these Runs wrote to $KRT_STATUS, in the order they completed, a later value winning. */
export function writtenStatus(runs: Run[]): { message?: string; values: Record<string, string> } {
  const written = runs
    .filter((r) => r.status?.stepStatus)
    .sort((a, b) => (a.status?.completionTime ?? '').localeCompare(b.status?.completionTime ?? ''));
  const values: Record<string, string> = {};
  let message: string | undefined;
  for (const r of written)
    for (const [k, v] of Object.entries(r.status?.stepStatus ?? {})) {
      if (k === 'message') message = v;
      // Bounded like one step's: keys beyond the limit are dropped, the first ones kept.
      else if (k in values || Object.keys(values).length < MAX_OUTPUTS) values[k] = v;
    }
  return { message, values };
}
