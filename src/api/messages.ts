// Rule texts shared by the CRD's CEL rules and the webhook, so both lines of defense say the same.
import { RUN_ENDED } from './phases.js';
import { CONTAINER_RUNTIME } from './patterns.js';

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
  stepNeedsRun: 'a step needs run, or an image (runs-on: kubernetes)',
  runOrCommand: 'a step has run (a script) or command (exec form), not both',
  imageRuntime: `the steps of a job with runs-on: ${CONTAINER_RUNTIME} each name an image, and only those may`,
  podFieldsRuntime: `serviceAccountName, nodeSelector, tolerations and volumes need runs-on: ${CONTAINER_RUNTIME}`,
  containerImmutable: 'spec.container is immutable after creation',
  runNeedsScript: 'a Run needs spec.script or spec.container',
} as const;
