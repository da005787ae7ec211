// An inline job of a WorkflowRun: its steps run one by one as Runs. What is known of the job is
// named once (inlineFacts, as Tekton's pipelinerunstate names a task's facts), and its phase follows
// from those facts in one ordered table (inlineJob); the first rule that holds decides.
import { runEnded } from '../api/phases.js';
import type { JobSpec, JobStatus, Run } from '../api/types.js';
import { ExprError, renderTemplate, type Contexts } from '../expr/index.js';
import { LABEL_SUSPENDED } from '../labels.js';
import { runName } from '../names.js';
import { seedFiles } from '../promise/files.js';
import { NO_AGENT, noAgentMessage } from '../runtime/agents.js';
import { isClaimable } from '../runtime/lifecycle.js';
import { renderScript } from '../shell/render.js';
import { buildRun, runContainer, type RunEnv } from './build-objects.js';
import { startGate, type InlineJobCtx, type Observed } from './run-plan.js';
import { decide, suspends, type Decision } from './suspension.js';

type StepSpec = NonNullable<JobSpec['steps']>[number];

/** One step of the current attempt: its Run, when there is one, and that Run's phase. */
interface StepFact {
  step: StepSpec;
  name: string;
  run?: Run;
  phase?: NonNullable<Run['status']>['phase'];
}

/** What is known of an inline job, each fact computed once. */
interface InlineFacts {
  attempt: number;
  steps: StepFact[];
  /** A step wrote suspend or retryAfter and the job is still held (by its label or its retry time). */
  suspension?: Extract<Decision, { suspended: true }>;
  /** A step of this attempt has a Run, or this is a later attempt. */
  started: boolean;
  /** A failure recorded earlier (a render error, a refused Run): final, never retried. */
  failedBefore: boolean;
  /** The first step whose Run failed or timed out. */
  failedStep?: StepFact;
  /** A step's Run was cancelled. */
  cancelledStep: boolean;
  /** A step's Run has not ended yet. */
  active: boolean;
  allSucceeded: boolean;
  /** The step to start now: it has no Run and every step before it succeeded. */
  next?: number;
}

const RUN_FAILED = new Set(['Failed', 'Timeout']);

/** How soon a name still held by a deleted run's object is looked at again. */
export const PREVIOUS_RETRY_MS = 2000;

function inlineFacts(
  o: Observed,
  jobName: string,
  job: JobSpec,
  before: JobStatus,
  j: InlineJobCtx,
): InlineFacts {
  const wfr = o.run.metadata.name ?? '';
  const stepsOf = (attempt: number): StepFact[] =>
    (job.steps ?? []).map((step) => {
      const name = runName(wfr, jobName, step.name, attempt);
      const run = j.runsByName.get(name);
      return { step, name, run, phase: run ? (run.status?.phase ?? 'Pending') : undefined };
    });
  let attempt = Math.max(1, before.attempts ?? 1);
  let steps = stepsOf(attempt);
  // A step that succeeded and wrote suspend or retryAfter holds the job (no later step starts)
  // until its label is removed or its retry time comes: then the job runs again as a new attempt.
  const hold = steps.find((s) => s.phase === 'Succeeded' && suspends(s.run?.status?.control));
  let suspension: InlineFacts['suspension'];
  if (hold?.run?.status?.control) {
    const d = decide(
      hold.run.status.control,
      hold.run.status.completionTime ?? o.now.toISOString(),
      before,
      o.run.metadata.labels?.[LABEL_SUSPENDED] === 'true',
      o.now,
    );
    if (d.suspended) suspension = d;
    else if (!j.cancel) steps = stepsOf(++attempt);
  }
  const next = steps.findIndex((s) => !s.run);
  return {
    attempt,
    steps,
    suspension,
    started: steps.some((s) => s.run) || attempt > 1,
    failedBefore: before.phase === 'Failed',
    failedStep: steps.find((s) => s.phase && RUN_FAILED.has(s.phase)),
    cancelledStep: steps.some((s) => s.phase === 'Cancelled'),
    active: steps.some((s) => s.phase && !runEnded(s.phase)),
    allSucceeded: steps.every((s) => s.phase === 'Succeeded'),
    next: next >= 0 && steps.slice(0, next).every((s) => s.phase === 'Succeeded') ? next : undefined,
  };
}

/** The job's phase from its facts: the first rule that holds decides. */
export function inlineJob(
  o: Observed,
  jobName: string,
  job: JobSpec,
  before: JobStatus,
  ctx: Contexts,
  j: InlineJobCtx,
): JobStatus {
  const f = inlineFacts(o, jobName, job, before, j);
  const st = progress(f);
  if (f.suspension && j.cancel) return { ...st, phase: 'Cancelled', message: 'cancelled while suspended' };
  if (f.suspension) return suspended(st, f.suspension, o, j);
  const gate = f.started ? undefined : startGate(before, j);
  if (gate === 'wait') return st;
  if (gate) return gate;
  if (f.failedStep) return { ...st, phase: 'Failed', message: stepFailure(f.failedStep) };
  if (f.cancelledStep && f.active) return { ...st, phase: 'Running' };
  if (f.cancelledStep) return { ...st, phase: 'Cancelled', message: 'cancelled on request' };
  if (f.allSucceeded) return { ...st, ...succeeded(job, withSteps(ctx, f.steps, f.steps.length)) };
  if (j.cancel) {
    for (const s of f.steps) {
      if (!s.run || runEnded(s.phase)) continue;
      // An agent ends a Run it serves; one that none serves is ended here, unless an agent claims
      // it first (the write carries the Run's resourceVersion).
      if (isClaimable(s.run) && o.agentsServe && o.agentsServe(s.run.spec.runtime) === undefined)
        j.actions.push({
          type: 'cancelUnserved',
          run: s.run,
          message: `cancelled before it started: ${noAgentMessage(s.run.spec.runtime, o.run.metadata.namespace ?? '')}`,
        });
      else if (!s.run.spec.cancelRequested) j.actions.push({ type: 'cancelRun', name: s.name });
    }
    return { ...st, phase: 'Running' };
  }
  if (f.next !== undefined && f.failedBefore) return { ...st, phase: 'Failed', message: before.message };
  const failure = f.next !== undefined ? startStep(o, jobName, job, ctx, f, f.next, j) : undefined;
  if (typeof failure === 'object')
    return { ...st, phase: f.started ? 'Running' : 'Pending', message: failure.waiting };
  if (failure) return { ...st, phase: 'Failed', message: failure };
  return running(o, st, f, j);
}

/** The job's attempt and the steps that have Runs so far, phase still to decide. */
function progress(f: InlineFacts): JobStatus {
  const st: JobStatus = {
    phase: 'Pending',
    ...(f.started ? { attempts: f.attempt } : {}),
    steps: f.steps
      .filter((s) => s.run)
      .map((s) => ({
        name: s.step.name,
        phase: s.phase,
        runName: s.name,
        ...(s.run?.status?.outputs ? { outputs: s.run.status.outputs } : {}),
      })),
  };
  if (st.steps?.length === 0) delete st.steps;
  return st;
}

function suspended(
  st: JobStatus,
  s: NonNullable<InlineFacts['suspension']>,
  o: Observed,
  j: InlineJobCtx,
): JobStatus {
  if (s.retryAt) j.timers.push(Date.parse(s.retryAt) - o.now.getTime());
  return { ...st, phase: 'Suspended', message: s.message, ...(s.retryAt ? { nextRetryAt: s.retryAt } : {}) };
}

/** Why a step failed: the exit code for a plain failure, runtimed's reason and message otherwise. */
function stepFailure(failed: StepFact): string {
  const r = failed.run?.status ?? {};
  const plain = r.reason === 'NonZeroExit' || (!r.reason && r.exitCode !== undefined);
  const how =
    r.phase === 'Timeout'
      ? 'timed out'
      : plain
        ? `failed with exit code ${r.exitCode ?? '?'}`
        : `failed${r.reason ? ` (${r.reason})` : ''}`;
  const detail = !plain && r.message ? `: ${r.message}` : '';
  return `step "${failed.step.name}" ${how}${detail}`;
}

/** The contexts a step's expressions read: the run's, and the outputs of the steps before it. */
function withSteps(ctx: Contexts, steps: StepFact[], upTo: number): Contexts {
  return {
    ...ctx,
    steps: Object.fromEntries(
      steps.slice(0, upTo).map((s) => [s.step.name, { outputs: s.run?.status?.outputs ?? {} }]),
    ),
  };
}

/** Every step succeeded: the job's outputs, rendered from its steps' (or why they cannot be). */
function succeeded(job: JobSpec, ctx: Contexts): JobStatus {
  try {
    const outputs: Record<string, string> = {};
    for (const [k, v] of Object.entries(job.outputs ?? {})) outputs[k] = renderTemplate(v, ctx);
    return { phase: 'Succeeded', ...(Object.keys(outputs).length ? { outputs } : {}) };
  } catch (e) {
    return { phase: 'Failed', message: `outputs: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** Plans the next step's Run; returns why the job fails instead, if it does, or why it waits. */
function startStep(
  o: Observed,
  jobName: string,
  job: JobSpec,
  ctx: Contexts,
  f: InlineFacts,
  next: number,
  j: InlineJobCtx,
): string | { waiting: string } | undefined {
  const s = f.steps[next] as StepFact;
  const taken = o.takenByOther?.('Run', s.name);
  if (taken === 'previous') {
    // The Run of a deleted run of this name, which the garbage collector is about to remove.
    j.timers.push(PREVIOUS_RETRY_MS);
    return { waiting: `waiting for Run "${s.name}" of a deleted run of this name to go` };
  }
  if (taken) return `Run "${s.name}" exists and belongs to another owner`;
  try {
    const c = withSteps(ctx, f.steps, next);
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
        f.steps[next - 1]?.run,
        (n) => j.statuses[n]?.steps,
        (n) => j.runsByName.get(n),
      ),
    };
    j.actions.push({
      type: 'createRun',
      job: jobName,
      run: buildRun(o.run, jobName, job, s.step, s.name, script, env, files, container),
    });
    return undefined;
  } catch (e) {
    if (!(e instanceof ExprError)) throw e;
    return `step "${s.step.name}": ${e.message}`;
  }
}

/** A running job; one whose next Run waits for an agent says why. */
function running(o: Observed, st: JobStatus, f: InlineFacts, j: InlineJobCtx): JobStatus {
  const waiting = f.steps.find((s) => s.run && s.phase === 'Pending');
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
function waitingForAgent(o: Observed, run: Run, j: InlineJobCtx): string | undefined {
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
