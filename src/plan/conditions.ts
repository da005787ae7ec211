// The `Succeeded` condition of run-type resources (Tekton's convention), so that
// `kubectl wait --for=condition=Succeeded wfr/NAME` works.
import type { Condition, WorkflowRunStatus } from '../api/types.js';
import { condition } from '../api/objects.js';

export function succeededCondition(
  status: WorkflowRunStatus,
  previous: Condition[] | undefined,
  generation: number | undefined,
  now: string,
): Condition {
  const phase = status.phase ?? 'Pending';
  const value: Condition['status'] =
    phase === 'Succeeded' ? 'True' : ['Failed', 'Cancelled'].includes(phase) ? 'False' : 'Unknown';
  return condition(
    previous,
    {
      type: 'Succeeded',
      status: value,
      reason: phase,
      message: status.message ?? `${status.progress ?? '0/0'} jobs done`,
    },
    generation,
    now,
  );
}
