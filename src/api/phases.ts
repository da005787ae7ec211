// The phases of each kind and which of them are final, in one place: the CRD enums, the CEL rule
// that keeps a Run's final phase, the planner, the controller, runtimed and krt all read these.
export const WORKFLOWRUN_PHASES = ['Pending', 'Running', 'Succeeded', 'Failed', 'Cancelled', 'Suspended'];
export const JOB_PHASES = ['Pending', 'Running', 'Succeeded', 'Failed', 'Skipped', 'Cancelled', 'Suspended'];
export const RUN_PHASES = ['Pending', 'Scheduled', 'Running', 'Succeeded', 'Failed', 'Timeout', 'Cancelled'];

export const RUN_ENDED: readonly string[] = ['Succeeded', 'Failed', 'Timeout', 'Cancelled'];
export const JOB_ENDED: readonly string[] = ['Succeeded', 'Failed', 'Skipped', 'Cancelled'];
export const WORKFLOWRUN_ENDED: readonly string[] = ['Succeeded', 'Failed', 'Cancelled'];

export const runEnded = (phase: string | undefined): boolean => RUN_ENDED.includes(phase ?? '');
export const jobEnded = (phase: string | undefined): boolean => JOB_ENDED.includes(phase ?? '');
export const workflowRunEnded = (phase: string | undefined): boolean =>
  WORKFLOWRUN_ENDED.includes(phase ?? '');
