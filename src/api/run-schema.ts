// The Run: one step's execution as a runtime agent sees it (its script or container, variables,
// files, timeout) and what the agent reports back (phase, outputs, control, a log tail).
import { RUN_ENDED, RUN_PHASES } from './phases.js';
import * as L from '../limits.js';
import { MSG } from './messages.js';
import * as P from './patterns.js';
import { arrayOf, bool, int, obj, str, type Schema } from './schema-helpers.js';
import * as C from './container-schema.js';
import {
  envVarSchema,
  files,
  outputValues,
  phase,
  stepLimitsSchema,
  stepStatusValues,
  time,
} from './field-schemas.js';

export const runSpecSchema: Schema = obj(
  "One step's execution, claimed by a runtime agent (runtimed).",
  {
    runtime: str('Runtime that executes the script, such as bash.', {
      minLength: 1,
      maxLength: L.MAX_LABEL_VALUE_LENGTH,
      pattern: P.RUNTIME_PATTERN,
    }),
    script: str('The rendered step script; none when the container runs its command or entrypoint.', {
      minLength: 1,
      maxLength: L.MAX_SCRIPT_LENGTH,
    }),
    container: C.runContainerSchema,
    env: arrayOf('Environment variables of the step.', envVarSchema('Variable value.'), {
      maxItems: L.MAX_ENV_PER_STEP,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
    }),
    timeoutSeconds: int('Seconds the script may run before it is stopped with phase Timeout.', {
      minimum: 1,
      maximum: L.MAX_TIMEOUT_SECONDS,
    }),
    limits: stepLimitsSchema,
    cancelRequested: bool('Set to true to stop the script; cannot be set back to false.'),
    inputFiles: files('Files the script finds under $KRT_INPUT.'),
    outputFiles: files(
      'Files the script finds in $KRT_OUTPUT_DIR: what earlier steps of its run wrote there.',
    ),
  },
  {
    required: ['runtime'],
    'x-kubernetes-validations': [
      {
        rule: '!has(oldSelf.cancelRequested) || !oldSelf.cancelRequested || (has(self.cancelRequested) && self.cancelRequested)',
        message: MSG.cancelOneWay,
      },
      {
        rule: 'has(self.script) == has(oldSelf.script) && (!has(self.script) || self.script == oldSelf.script)',
        message: MSG.scriptImmutable,
      },
      {
        rule: 'has(self.container) == has(oldSelf.container) && (!has(self.container) || self.container == oldSelf.container)',
        message: MSG.containerImmutable,
      },
      { rule: 'has(self.script) || has(self.container)', message: MSG.runNeedsScript },
    ],
  },
);

export const runStatusSchema: Schema = obj(
  'Observed state of the Run.',
  {
    phase: phase('Phase of the Run.', RUN_PHASES),
    assignedTo: str('Identity of the agent that claimed the Run.', { maxLength: L.MAX_OBJECT_NAME_LENGTH }),
    attempts: int('Times the Run was claimed.', { minimum: 0 }),
    startTime: time('When the script started.'),
    completionTime: time('When the script ended.'),
    heartbeatTime: time('Last sign of life from the agent running it.'),
    exitCode: int('Exit code of the script.'),
    reason: str('Machine-readable reason of the phase, such as NonZeroExit or OutputsTooLarge.', {
      maxLength: 128,
    }),
    message: str('Human-readable details.', { maxLength: 32768 }),
    outputs: outputValues('Outputs the script wrote to $KRT_OUTPUT.'),
    logTail: str('The last few KiB of output; full logs stay with runtimed.', {
      maxLength: L.MAX_LOG_TAIL_BYTES,
    }),
    control: obj('Workflow control the script wrote to $KRT_CONTROL.', {
      suspend: bool('Suspend the job until the suspend label is removed.'),
      retryAfter: str('Re-execute the job after this duration, such as 10m.', { maxLength: 32 }),
      message: str('Why.', { maxLength: 32768 }),
    }),
    stepStatus: stepStatusValues('What the script wrote to $KRT_STATUS (status.yaml).'),
    outputFiles: files('The files in $KRT_OUTPUT_DIR when the script ended (Kubernetes manifests).'),
  },
  {
    // One stable terminal phase: an agent that finishes late cannot overwrite a cancellation or a
    // re-queued attempt's result (docs/design.md §3).
    'x-kubernetes-validations': [
      {
        rule: `!has(oldSelf.phase) || !(oldSelf.phase in [${RUN_ENDED.map((p) => `'${p}'`).join(', ')}]) || (has(self.phase) && self.phase == oldSelf.phase)`,
        message: MSG.runPhaseFinal,
      },
    ],
  },
);
