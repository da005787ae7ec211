// A call job of a WorkflowRun: a child WorkflowRun made from the called Workflow (read when the job
// becomes runnable, its call graph checked again then); the job follows the child's phase and takes
// its outputs from the child's frozen output contract.
import type { JobSpec, JobStatus, Workflow, WorkflowRun } from '../api/types.js';
import { ExprError, renderTemplate, type Contexts } from '../expr/index.js';
import { formatFieldError } from '../fielderror.js';
import { validateCallGraphSync } from '../graph/callgraph.js';
import { isScalar } from '../helpers.js';
import { childWorkflowRunName } from '../names.js';
import { withValueErrors } from '../render/inputs.js';
import { materialize, resolveInputs } from '../render/materialize.js';
import { buildChild } from './build-objects.js';
import { PREVIOUS_RETRY_MS } from './inline-job.js';
import { runOutputs } from './run-outputs.js';
import { startGate, type CallJobCtx, type Observed } from './run-plan.js';

export function callJob(
  o: Observed,
  jobName: string,
  job: JobSpec,
  before: JobStatus,
  ctx: Contexts,
  j: CallJobCtx,
): JobStatus {
  const childName = childWorkflowRunName(o.run.metadata.name ?? '', jobName);
  const child = j.childrenByName.get(childName);
  if (child) return followChild(child, childName, j);
  const gate = startGate(before, j);
  if (gate === 'wait') return { phase: 'Pending' };
  if (gate) return gate;

  const taken = o.takenByOther?.('WorkflowRun', childName);
  if (taken === 'previous') {
    j.timers.push(PREVIOUS_RETRY_MS);
    return {
      phase: 'Pending',
      message: `waiting for WorkflowRun "${childName}" of a deleted run of this name to go`,
    };
  }
  if (taken)
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

/** A call job whose child exists follows the child's phase; a cancel is passed on to it. */
function followChild(child: WorkflowRun, childName: string, j: CallJobCtx): JobStatus {
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
