// A configure pipeline's entry in the resource status, read from its latest run: its phase,
// attempts and message, and when a failed attempt with retries left (jobOptions.backoffLimit) runs
// again; the workflow's state from its entries.
import type { Pipeline, PipelineStatus, WorkflowRun } from '../api/types.js';
import { LABEL_PIPELINE_ATTEMPT } from '../labels.js';
import { PIPELINE_BACKOFF_BASE_MS, PIPELINE_BACKOFF_MAX_MS } from '../limits.js';
import type { State } from './resource-plan.js';

type Phase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Suspended' | 'Cancelled';

export const attemptOf = (r: WorkflowRun) => Number(r.metadata.labels?.[LABEL_PIPELINE_ATTEMPT] ?? 1) || 1;
export const backoffLimitOf = (pipelines: Pipeline[], name: string) =>
  pipelines.find((p) => p.metadata.name === name)?.spec.jobOptions?.backoffLimit ?? 0;

/** When a failed attempt runs again: its end plus a wait that doubles with each attempt. */
function retryAt(run: WorkflowRun, attempt: number): string {
  const wait = Math.min(PIPELINE_BACKOFF_BASE_MS * 2 ** (attempt - 1), PIPELINE_BACKOFF_MAX_MS);
  const ended = Date.parse(run.status?.finishedAt ?? '') || 0;
  return new Date(ended + wait).toISOString();
}

export function stateOf(round: number, entries: PipelineStatus[]): State {
  if (round === 0) return 'none';
  if (entries.some((e) => e.phase === 'Failed' || e.phase === 'Cancelled')) return 'failed';
  if (entries.some((e) => e.phase === 'Suspended')) return 'suspended';
  if (entries.length > 0 && entries.every((e) => e.phase === 'Succeeded')) return 'succeeded';
  return 'running';
}

export function phaseText(state: State): string {
  return {
    none: 'Pending',
    running: 'Running',
    suspended: 'Suspended',
    failed: 'Failed',
    succeeded: 'Succeeded',
  }[state];
}

/** A pipeline's entry from its run, or what was recorded when the run is not (or no longer) seen. */
export function entryOf(
  name: string,
  run: WorkflowRun | undefined,
  recorded: PipelineStatus | undefined,
  backoffLimit: number,
): PipelineStatus {
  if (!run) return recorded ?? { name, phase: 'Pending' };
  const attempt = attemptOf(run);
  // A failed attempt with retries left (jobOptions.backoffLimit) is still running: it waits to go again.
  if (run.status?.phase === 'Failed' && attempt <= backoffLimit)
    return {
      name,
      phase: 'Running',
      workflowRunName: run.metadata.name,
      attempts: attempt,
      nextRetryAt: retryAt(run, attempt),
      message: `attempt ${attempt} failed: ${run.status.message ?? 'failed'}`,
    };
  const s = run.status ?? {};
  const phase: Phase = (s.phase === 'Pending' || !s.phase ? 'Running' : s.phase) as Phase;
  const jobs = Object.values(s.jobs ?? {});
  const suspended = jobs.find((j) => j.phase === 'Suspended');
  const attempts = Math.max(0, ...jobs.map((j) => j.attempts ?? 0));
  const entry: PipelineStatus = { name, phase, workflowRunName: run.metadata.name };
  if (attempts > 1 || suspended) entry.attempts = attempts;
  if (attempt > 1) entry.attempts = Math.max(attempt, entry.attempts ?? 0);
  if (suspended?.nextRetryAt) entry.nextRetryAt = suspended.nextRetryAt;
  if (phase === 'Suspended') entry.message = suspended?.message ?? s.message;
  else if (phase === 'Failed' || phase === 'Cancelled') entry.message = s.message;
  return entry;
}
