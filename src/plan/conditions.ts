// The `Succeeded` condition of run-type resources (Tekton's convention), so that
// `kubectl wait --for=condition=Succeeded wfr/NAME` works.
import type { Condition, WorkflowRunStatus } from '../api/types.js';

/**
 * A condition as it stands now, in the Kubernetes convention (meta.SetStatusCondition):
 * lastTransitionTime moves only when the status does, so a status write that changes nothing else
 * is recognised as no change.
 */
export function condition(
  previous: Condition[] | undefined,
  c: { type: string; status: Condition['status']; reason: string; message: string },
  generation: number | undefined,
  now: string,
): Condition {
  const old = previous?.find((x) => x.type === c.type);
  return {
    ...c,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    lastTransitionTime: old && old.status === c.status ? (old.lastTransitionTime ?? now) : now,
  };
}

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
