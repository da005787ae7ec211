// The `Succeeded` condition of run-type resources (Tekton's convention), so that
// `kubectl wait --for=condition=Succeeded wfr/NAME` works.
import type { Condition, WorkflowRunStatus } from '../api/types.js';

export function succeededCondition(
  status: WorkflowRunStatus,
  previous: Condition[] | undefined,
  generation: number | undefined,
  now: string,
): Condition {
  const phase = status.phase ?? 'Pending';
  const value: Condition['status'] =
    phase === 'Succeeded' ? 'True' : ['Failed', 'Cancelled'].includes(phase) ? 'False' : 'Unknown';
  const old = previous?.find((c) => c.type === 'Succeeded');
  return {
    type: 'Succeeded',
    status: value,
    reason: phase,
    message: status.message ?? `${status.progress ?? '0/0'} jobs done`,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    lastTransitionTime: old && old.status === value ? (old.lastTransitionTime ?? now) : now,
  };
}
