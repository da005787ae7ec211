// Workflow control on any job (docs/specifications.md R5-R7; docs/design.md §4): what
// a job does after a step that wrote `suspend` or `retryAfter` to $KRT_CONTROL. Pure: the timer
// lives in the job's status (nextRetryAt), the resume signal is the WorkflowRun's label, so a
// restarted or new leader decides the same way.
import type { JobStatus, RunStatus } from '../api/types.js';
import { LABEL_SUSPENDED } from '../labels.js';
import { parseDuration } from '../runtime/duration.js';

type Control = NonNullable<RunStatus['control']>;

export type Decision =
  /** Stay suspended; look again at `retryAt` if there is one. */
  | { suspended: true; message: string; retryAt?: string }
  /** Execute the job again from its first step, as the next attempt. */
  | { suspended: false };

/** Whether a step's control suspends its job: retryAfter (which wins over suspend) or suspend. */
export function suspends(control: Control | undefined): boolean {
  return control?.retryAfter !== undefined || control?.suspend === true;
}

/**
 * The job's step `completed` at `completedAt` wrote `control`. `before` is the job's recorded status
 * and `labelled` whether the WorkflowRun carries the suspended label. A job already recorded as
 * Suspended whose label is gone was resumed; a retry whose time has come runs again.
 */
export function decide(
  control: Control,
  completedAt: string,
  before: JobStatus,
  labelled: boolean,
  now: Date,
): Decision {
  const recorded = before.phase === 'Suspended';
  if (recorded && !labelled) return { suspended: false };
  if (control.retryAfter !== undefined) {
    const d = parseDuration(control.retryAfter);
    // runtimed refuses a bad duration; one that got here anyway retries at once rather than never.
    const ms = 'ms' in d ? d.ms : 0;
    const retryAt = (recorded && before.nextRetryAt) || new Date(Date.parse(completedAt) + ms).toISOString();
    if (now.getTime() >= Date.parse(retryAt)) return { suspended: false };
    return { suspended: true, retryAt, message: control.message ?? `retrying after ${control.retryAfter}` };
  }
  return { suspended: true, message: control.message ?? 'suspended' };
}

/**
 * A resource whose pipeline run is suspended (configure or delete): the suspended label goes on the
 * resource when the run first suspends (before its status says so), so a label missing later can
 * only be a user's resume, which is passed on to the run (its label removed).
 */
export function suspendedResourceLabel(s: {
  /** The status already recorded this run as Suspended. */
  wasSuspended: boolean;
  /** The resource carries the suspended label now. */
  labelled: boolean;
  run: { metadata: { name?: string; labels?: Record<string, string> } } | undefined;
}): { label?: 'true'; resumeRun?: string } {
  if (!s.wasSuspended && !s.labelled) return { label: 'true' };
  if (s.wasSuspended && !s.labelled && s.run?.metadata.labels?.[LABEL_SUSPENDED] === 'true')
    return { resumeRun: s.run.metadata.name ?? '' };
  return {};
}
