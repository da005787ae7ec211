// Rule texts shared by the CRD's CEL rules and the webhook, so both lines of defense say the same.
import { RUN_ENDED } from './phases.js';

export const MSG = {
  workflowRunNoTemplate:
    'a WorkflowRun holds inline jobs only: spec.uses and spec.with are not allowed; start a Workflow template with `krt workflow trigger`',
  jobsImmutable: 'spec.jobs is immutable after creation',
  cancelOneWay: 'spec.cancelRequested cannot go back to false',
  scriptImmutable: 'spec.script is immutable after creation',
  runPhaseFinal: `status.phase: a Run that ended (${RUN_ENDED.join(', ')}) keeps its phase`,
  callJobShape: 'a call job cannot have steps, runs-on or outputs',
  inlineJobShape: 'an inline job needs runs-on and steps',
  withOnlyOnCall: 'with is only allowed on a call job (uses)',
} as const;
