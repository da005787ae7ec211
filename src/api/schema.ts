// The one source of truth of the kruntimes.io/v1alpha1 API: these schemas (with their parts in
// field-schemas.ts, run-schema.ts, container-schema.ts and promise-schema.ts) become the CRDs in
// config/crd/ and the TypeScript types in types.generated.ts (`npm run gen`; a unit test fails
// when either is out of date).
import { JOB_PHASES, RUN_PHASES, WORKFLOWRUN_PHASES } from './phases.js';
import * as L from '../limits.js';
import { MSG } from './messages.js';
import * as P from './patterns.js';
import { arrayOf, bool, int, keysMatch, mapOf, obj, str, type Schema } from './schema-helpers.js';
import * as C from './container-schema.js';
import {
  conditions,
  expressionValue,
  files,
  outputValues,
  phase,
  secretKeySelectorSchema,
  stepLimitsSchema,
  stepStatusValues,
  time,
  usesSchema,
  withSchema,
} from './field-schemas.js';

export { conditionSchema, conditions, envVarSchema, usesSchema, withSchema } from './field-schemas.js';
export { runSpecSchema, runStatusSchema } from './run-schema.js';

export const stepSchema: Schema = obj(
  'One step of an inline job: a script run by the job runtime, or a container (runs-on: kubernetes).',
  {
    name: str(
      'Name of the step, unique in its job; label-value rules. Read by later steps as steps.<name>.',
      {
        minLength: 1,
        maxLength: L.MAX_LABEL_VALUE_LENGTH,
        pattern: P.STEP_NAME_PATTERN,
      },
    ),
    run: str('The script. May hold ${{ }} expressions; prefer passing values through env.', {
      minLength: 1,
      maxLength: L.MAX_SCRIPT_LENGTH,
    }),
    ...C.containerStepSchemas,
    env: mapOf('Environment variables of the step.', expressionValue('An environment value.'), {
      maxProperties: L.MAX_ENV_PER_STEP,
      'x-kubernetes-validations': [
        keysMatch(P.ENV_NAME_PATTERN, 'environment variable names must match ' + P.ENV_NAME_PATTERN),
      ],
    }),
    secretEnv: mapOf(
      'Environment variables taken from Secrets of the namespace of the run when the step starts. Their values never enter a Run object and are masked in logs.',
      secretKeySelectorSchema,
      {
        maxProperties: L.MAX_ENV_PER_STEP,
        'x-kubernetes-validations': [
          keysMatch(P.ENV_NAME_PATTERN, 'environment variable names must match ' + P.ENV_NAME_PATTERN),
        ],
      },
    ),
    limits: stepLimitsSchema,
    'timeout-minutes': int('Minutes the step may run before it is stopped with phase Timeout.', {
      minimum: 1,
      maximum: L.MAX_TIMEOUT_SECONDS / 60,
    }),
  },
  {
    required: ['name'],
    'x-kubernetes-validations': [
      { rule: 'has(self.run) || has(self.image)', message: MSG.stepNeedsRun },
      { rule: '!has(self.run) || !has(self.command)', message: MSG.runOrCommand },
    ],
  },
);

export const jobSchema: Schema = obj(
  'A job: either inline (runs-on and steps) or a call of a reusable Workflow (uses and optional with).',
  {
    needs: arrayOf(
      'Jobs that must succeed before this one starts.',
      str('A job name.', { maxLength: L.MAX_LABEL_VALUE_LENGTH }),
      { maxItems: L.MAX_JOBS, 'x-kubernetes-list-type': 'set' },
    ),
    'runs-on': str('Runtime that executes the steps of an inline job, such as bash.', {
      maxLength: L.MAX_LABEL_VALUE_LENGTH,
      pattern: P.RUNTIME_PATTERN,
    }),
    steps: arrayOf('Steps of an inline job, run in order.', stepSchema, {
      minItems: 1,
      maxItems: L.MAX_STEPS_PER_JOB,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
    }),
    outputs: mapOf(
      'Outputs of an inline job, evaluated after its steps succeed; read downstream as jobs.<job>.outputs.<name>.',
      expressionValue('An output expression, such as ${{ steps.package.outputs.env }}.'),
      {
        maxProperties: L.MAX_OUTPUTS,
        'x-kubernetes-validations': [
          keysMatch(P.OUTPUT_NAME_PATTERN, 'output names must match ' + P.OUTPUT_NAME_PATTERN),
        ],
      },
    ),
    ...C.podSchemas,
    uses: usesSchema('Name of the reusable Workflow this call job runs, in the same namespace.'),
    with: withSchema(
      'Inputs given to the called Workflow: strings (which may hold ${{ }} expressions), numbers or booleans.',
    ),
  },
  {
    'x-kubernetes-validations': [
      {
        rule: '!has(self.uses) || (!has(self.steps) && !has(self.runs__dash__on) && !has(self.outputs))',
        message: MSG.callJobShape,
      },
      {
        rule: 'has(self.uses) || (has(self.steps) && has(self.runs__dash__on))',
        message: MSG.inlineJobShape,
      },
      { rule: 'has(self.uses) || !has(self.with)', message: MSG.withOnlyOnCall },
      {
        rule: `!has(self.steps) || !has(self.runs__dash__on) || (self.runs__dash__on == '${P.CONTAINER_RUNTIME}') == self.steps.all(s, has(s.image))`,
        message: MSG.imageRuntime,
      },
      {
        rule: `!has(self.runs__dash__on) || self.runs__dash__on == '${P.CONTAINER_RUNTIME}' || (${C.POD_FIELDS.map((f) => `!has(self.${f})`).join(' && ')})`,
        message: MSG.podFieldsRuntime,
      },
    ],
  },
);

const jobs = (description: string): Schema =>
  mapOf(description, jobSchema, {
    minProperties: 1,
    maxProperties: L.MAX_JOBS,
    'x-kubernetes-validations': [
      keysMatch(P.JOB_NAME_PATTERN, 'job names must match ' + P.JOB_NAME_PATTERN),
      { rule: 'self.all(k, k.size() <= 63)', message: 'job names must be at most 63 characters' },
    ],
  });

/**
 * The jobs of a Promise's Pipeline: those of a WorkflowRun, without the CEL rules, whose estimated
 * cost over up to MAX_PIPELINES lists exceeds the API server's budget; the webhook checks the same
 * rules (src/validate/jobs.ts), and the pipeline's WorkflowRun meets them again at its creation.
 */
export const pipelineJobsSchema: Schema = withoutCel(jobs('Jobs of the pipeline.'));

function withoutCel(schema: Schema): Schema {
  const out: Schema = { ...schema };
  delete out['x-kubernetes-validations'];
  if (out.properties)
    out.properties = Object.fromEntries(Object.entries(out.properties).map(([k, v]) => [k, withoutCel(v)]));
  if (out.items) out.items = withoutCel(out.items);
  if (out.additionalProperties && typeof out.additionalProperties === 'object')
    out.additionalProperties = withoutCel(out.additionalProperties);
  return out;
}

export const workflowSpecSchema: Schema = obj(
  'A reusable Workflow template: inputs, jobs and the outputs it exposes to callers.',
  {
    inputs: mapOf(
      'Inputs of the template, read as inputs.<name>.',
      obj('One input.', {
        type: str('Type of the value; the webhook sets string when it is left out.', {
          enum: ['string', 'number', 'boolean'],
        }),
        required: bool('Whether a caller must give the input (when it has no default).'),
        default: str('Value used when the caller gives none.', { maxLength: L.MAX_VALUE_LENGTH }),
        description: str('What the input is for.', { maxLength: L.MAX_DESCRIPTION_LENGTH }),
      }),
      {
        maxProperties: L.MAX_INPUTS,
        'x-kubernetes-validations': [
          keysMatch(P.INPUT_NAME_PATTERN, 'input names must match ' + P.INPUT_NAME_PATTERN),
        ],
      },
    ),
    outputs: mapOf(
      'Outputs exposed to a caller; each is frozen into the child WorkflowRun as a kruntimes.io/workflow-output.<name> annotation.',
      obj(
        'One output.',
        {
          value: expressionValue('The expression, such as ${{ jobs.apply.outputs.endpoint }}.'),
          description: str('What the output holds.', { maxLength: L.MAX_DESCRIPTION_LENGTH }),
        },
        { required: ['value'] },
      ),
      {
        maxProperties: L.MAX_OUTPUTS,
        'x-kubernetes-validations': [
          keysMatch(P.OUTPUT_NAME_PATTERN, 'output names must match ' + P.OUTPUT_NAME_PATTERN),
          {
            rule: `self.all(k, k.size() <= ${L.MAX_OUTPUT_NAME_LENGTH})`,
            message: `output names must be at most ${L.MAX_OUTPUT_NAME_LENGTH} characters`,
          },
        ],
      },
    ),
    jobs: jobs('Jobs of the template.'),
  },
  { required: ['jobs'] },
);

export const workflowStatusSchema: Schema = obj('Observed state of the Workflow.', {
  observedGeneration: int('The .metadata.generation last checked.', { minimum: 0 }),
  conditions,
});

export const workflowRunSpecSchema: Schema = obj(
  'One execution: inline jobs only. A template is started with `krt workflow trigger`.',
  {
    jobs: jobs('Jobs of the run; immutable after creation.'),
    inputFiles: files(
      'Files every step finds under $KRT_INPUT, such as the resource of a Promise pipeline as object.yaml.',
    ),
    cancelRequested: bool('Set to true to cancel the run; cannot be set back to false.'),
    ttlSecondsAfterFinished: int(
      'Seconds after the run ends before it is deleted with everything it made; without it the controller default applies (--ttl-seconds-after-finished, 7 days). Child runs go with their root.',
      { minimum: 0, maximum: L.MAX_TTL_SECONDS },
    ),
    // Declared only so that they reach admission and are refused with a clear message instead of
    // being pruned silently (docs/design.md §6).
    uses: str('Not allowed: a WorkflowRun holds inline jobs only; use `krt workflow trigger`.'),
    with: mapOf(
      'Not allowed: a WorkflowRun holds inline jobs only; use `krt workflow trigger`.',
      str('unused'),
    ),
  },
  {
    required: ['jobs'],
    'x-kubernetes-validations': [
      {
        rule: '!has(self.uses) && !has(self.with)',
        message: MSG.workflowRunNoTemplate,
      },
      { rule: 'self.jobs == oldSelf.jobs', message: MSG.jobsImmutable },
      {
        rule: '!has(oldSelf.cancelRequested) || !oldSelf.cancelRequested || (has(self.cancelRequested) && self.cancelRequested)',
        message: MSG.cancelOneWay,
      },
    ],
  },
);

export const jobStatusSchema: Schema = obj('Observed state of one job.', {
  phase: phase('Phase of the job.', JOB_PHASES),
  workflowRunName: str('The child WorkflowRun of a call job.', { maxLength: L.MAX_OBJECT_NAME_LENGTH }),
  steps: arrayOf(
    'Steps of an inline job.',
    obj('Observed state of one step.', {
      name: str('Step name.', { maxLength: L.MAX_LABEL_VALUE_LENGTH }),
      phase: phase('Phase of the step Run.', RUN_PHASES),
      runName: str('The Run that executes the step.', { maxLength: L.MAX_OBJECT_NAME_LENGTH }),
      outputs: outputValues('Outputs the step wrote.'),
    }),
    { maxItems: L.MAX_STEPS_PER_JOB },
  ),
  outputs: outputValues('Outputs of the job.'),
  message: str('Why the job is in its phase.', { maxLength: 32768 }),
  startedAt: time('When the job started.'),
  finishedAt: time('When the job ended.'),
  attempts: int('Executions of the job so far.', { minimum: 0 }),
  nextRetryAt: time('When a job that asked for retryAfter is executed again.'),
});

export const workflowRunStatusSchema: Schema = obj('Observed state of the run.', {
  phase: phase('Phase of the run.', WORKFLOWRUN_PHASES),
  progress: str('Jobs ended out of all jobs, as done/total.', { maxLength: 16 }),
  snapshotName: str('The ControllerRevision the run executes from.', { maxLength: L.MAX_OBJECT_NAME_LENGTH }),
  jobs: mapOf('Observed state of each job.', jobStatusSchema, { maxProperties: L.MAX_JOBS }),
  outputs: outputValues('Outputs evaluated from the kruntimes.io/workflow-output.* annotations.'),
  conditions,
  message: str('Why the run is in its phase, or the message a step wrote to $KRT_STATUS.', {
    maxLength: 32768,
  }),
  stepStatus: stepStatusValues('Other keys steps wrote to $KRT_STATUS, the later step winning.'),
  startedAt: time('When the run started.'),
  finishedAt: time('When the run ended.'),
  observedGeneration: int('The .metadata.generation last reconciled.', { minimum: 0 }),
});

/** The root of a custom resource with spec and status. */
export function rootSchema(
  description: string,
  spec: Schema,
  status: Schema,
  extra: Partial<Schema> = {},
): Schema {
  return obj(
    description,
    {
      apiVersion: str('Versioned schema of this representation of an object.'),
      kind: str('The REST resource this object represents.'),
      metadata: { type: 'object' },
      spec,
      status,
    },
    { required: ['spec'], ...extra },
  );
}
