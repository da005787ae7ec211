// Schemas of the resource-workflow kinds (docs/specifications.md R1; docs/design.md §4): Promise, its Pipelines, and
// the Work a pipeline's output documents become. Like schema.ts, they generate the CRDs and types.
import * as L from '../limits.js';
import * as P from './patterns.js';
import { arrayOf, int, obj, str, type Schema } from './schema-helpers.js';
import { conditions, envVarSchema, pipelineJobsSchema, usesSchema, withSchema } from './schema.js';
import * as C from './container-schema.js';

/** A container of a Kratix-shaped pipeline: Kratix's own fields, run as a step of the kubernetes runtime. */
export const pipelineContainerSchema: Schema = obj(
  'One container of a Kratix-shaped pipeline; the containers run in order and the first failure halts the pipeline.',
  {
    name: str('Name of the container, unique in its pipeline; it names its step.', {
      minLength: 1,
      maxLength: L.MAX_LABEL_VALUE_LENGTH,
      pattern: P.STEP_NAME_PATTERN,
    }),
    ...C.containerStepSchemas,
    env: arrayOf(
      'Environment variables, as in a Pod; a value may read ${{ resource.<path> }}.',
      envVarSchema('The value.'),
      { maxItems: L.MAX_ENV_PER_STEP },
    ),
  },
  { required: ['name', 'image'] },
);

export const pipelineSchema: Schema = obj(
  'A Pipeline: inline jobs run as one WorkflowRun owned by the resource (steps of a job run in order, like Kratix containers).',
  {
    apiVersion: str('kruntimes.io/v1alpha1.', { enum: ['kruntimes.io/v1alpha1'] }),
    kind: str('Pipeline.', { enum: ['Pipeline'] }),
    metadata: obj(
      'Names the pipeline.',
      {
        name: str('Name of the pipeline, unique in its workflow; a DNS-1123 label.', {
          minLength: 1,
          maxLength: L.MAX_LABEL_VALUE_LENGTH,
          pattern: P.PIPELINE_NAME_PATTERN,
        }),
      },
      { required: ['name'] },
    ),
    spec: obj(
      'What the pipeline runs: inline jobs, Kratix-style containers, or a Workflow of spec.workflowNamespace.',
      {
        jobs: pipelineJobsSchema,
        containers: arrayOf(
          'Containers run one after another in Pods (runs-on: kubernetes), as Kratix runs a pipeline.',
          pipelineContainerSchema,
          { minItems: 1, maxItems: L.MAX_STEPS_PER_JOB },
        ),
        volumes: C.volumesSchema,
        jobOptions: obj('How a failed run of the pipeline is retried, as Kratix sets its Job.', {
          backoffLimit: int(
            `Times a failed run of the pipeline runs again (a new WorkflowRun, after ${L.PIPELINE_BACKOFF_BASE_MS / 1000}s doubling up to ${L.PIPELINE_BACKOFF_MAX_MS / 1000}s) before the workflow halts; default 0 for configure, spec.workflows.resource.deleteBackoffLimit for delete.`,
            { minimum: 0, maximum: L.MAX_PIPELINE_BACKOFF_LIMIT },
          ),
        }),
        uses: usesSchema(
          'Name of a Workflow in the Promise spec.workflowNamespace, run with the inputs of with.',
        ),
        with: withSchema(
          'Inputs of the Workflow: strings (which may read ${{ resource.<path> }}), numbers or booleans.',
        ),
      },
    ),
  },
  { required: ['kind', 'metadata', 'spec'] },
);

const pipelines = (description: string, max: number): Schema =>
  arrayOf(description, pipelineSchema, { maxItems: max });

export const promiseSpecSchema: Schema = obj(
  'A resource API (spec.api) and the workflows that run for each of its resources.',
  {
    api: obj(
      'The CustomResourceDefinition (apiextensions.k8s.io/v1) of the resource API; the controller installs it with the status fields and printer columns the workflows need.',
      {},
      { 'x-kubernetes-preserve-unknown-fields': true },
    ),
    workflowNamespace: str(
      'The namespace of the Workflows that pipelines name with uses (read when a pipeline starts).',
      { maxLength: L.MAX_LABEL_VALUE_LENGTH, pattern: P.WORKFLOW_NAME_PATTERN },
    ),
    reconcileInterval: str(
      `How often each resource's configure workflow runs again to correct drift, such as 10h (the controller default, --reconcile-interval, is ${L.DEFAULT_RECONCILE_INTERVAL}).`,
      { maxLength: 32 },
    ),
    workflows: obj('Workflows of the Promise and of its resources.', {
      promise: obj(
        'Workflows of the Promise itself, run in spec.workflowNamespace: configure when it is created or changed (its API is served once it first succeeded), delete when it is deleted (after its resources).',
        {
          configure: pipelines(
            'Pipelines run one after another when the Promise is created or changed, or reconciled.',
            L.MAX_PIPELINES,
          ),
          delete: pipelines('At most one pipeline, run when the Promise is deleted.', 1),
        },
      ),
      resource: obj('Lifecycle workflows of each resource.', {
        configure: pipelines(
          'Pipelines run one after another when a resource is created, updated or reconciled, or the Promise changes.',
          L.MAX_PIPELINES,
        ),
        delete: pipelines('At most one pipeline, run when a resource is deleted.', 1),
        deleteBackoffLimit: int(
          `Retries of a failed delete pipeline before the deletion stops as DeleteWorkflowFailed (as a Job's backoffLimit; default ${L.DEFAULT_DELETE_BACKOFF_LIMIT}).`,
          { minimum: 0, maximum: 20 },
        ),
      }),
    }),
  },
  { required: ['api'] },
);

export const appliedObjectSchema: Schema = obj('One object a Work applied.', {
  apiVersion: str('API version.', { maxLength: 316 }),
  kind: str('Kind.', { maxLength: 63 }),
  namespace: str('Namespace, empty for a cluster-scoped object.', { maxLength: 63 }),
  name: str('Name.', { maxLength: 253 }),
});

export const workSpecSchema: Schema = obj(
  'The Kubernetes objects one pipeline wrote to $KRT_OUTPUT_DIR, applied to the cluster by the controller (server-side apply, field manager kruntimes).',
  {
    pipeline: str('The pipeline that wrote them.', { maxLength: L.MAX_LABEL_VALUE_LENGTH }),
    workflowRunName: str('The pipeline WorkflowRun they came from.', { maxLength: L.MAX_OBJECT_NAME_LENGTH }),
    objects: arrayOf(
      'The objects, in the order of their files.',
      obj('A Kubernetes object.', {}, { 'x-kubernetes-preserve-unknown-fields': true }),
      { maxItems: 1000 },
    ),
  },
  { required: ['pipeline'] },
);

export const workStatusSchema: Schema = obj('What the controller applied.', {
  observedGeneration: int('The .metadata.generation last applied.', { minimum: 0 }),
  conditions,
  applied: arrayOf(
    'Objects applied from the current spec, pruned when a newer spec drops them.',
    appliedObjectSchema,
    {
      maxItems: 1000,
    },
  ),
  message: str('Why the Work is in its state.', { maxLength: 32768 }),
});

/** The status the controller adds to a Promise's resource API (kept with its own free keys). */
export const pipelineStatusSchema: Schema = obj('One pipeline of the current configure workflow.', {
  name: str('Pipeline name.', { maxLength: L.MAX_LABEL_VALUE_LENGTH }),
  phase: str('Pending, Running, Succeeded, Failed, Suspended or Cancelled.', { maxLength: 16 }),
  workflowRunName: str('Its WorkflowRun.', { maxLength: L.MAX_OBJECT_NAME_LENGTH }),
  attempts: int('Executions of its suspended or retried job so far.', { minimum: 0 }),
  nextRetryAt: str('When a pipeline that wrote retryAfter runs again.', { format: 'date-time' }),
  message: str('Why the pipeline is in its phase (a suspension message, a failure).', { maxLength: 32768 }),
});

export const resourceWorkflowsSchema: Schema = obj('The configure workflow of this resource.', {
  hash: str('Hash of the resource spec and the Promise pipelines the workflow ran for.', { maxLength: 64 }),
  round: int('How many times the workflow was started.', { minimum: 0 }),
  phase: str('Running, Succeeded, Failed or Suspended.', { maxLength: 16 }),
  startedAt: str('When the current round started.', { format: 'date-time' }),
  completedAt: str('When the current round ended.', { format: 'date-time' }),
  pipelines: arrayOf('The pipelines of the current round, in order.', pipelineStatusSchema, {
    maxItems: L.MAX_PIPELINES,
  }),
});

export const resourceDeleteSchema: Schema = obj('The delete workflow of this resource, once it is deleted.', {
  hash: str('Hash of the resource spec and the Promise spec the current round ran for.', { maxLength: 64 }),
  round: int('How many times the delete workflow was started anew (after a failure and a change).', {
    minimum: 0,
  }),
  attempt: int('Attempt of the delete pipeline in this round.', { minimum: 0 }),
  phase: str('Running, Succeeded, Failed, Suspended, or Skipped (its namespace is being deleted).', {
    maxLength: 16,
  }),
  workflowRunName: str('The delete pipeline run of this attempt.', { maxLength: L.MAX_OBJECT_NAME_LENGTH }),
  nextRetryAt: str('When a delete pipeline that wrote retryAfter runs again.', { format: 'date-time' }),
  message: str('Why the delete workflow is in its phase.', { maxLength: 32768 }),
});

export const resourceStatusSchema: Schema = obj(
  'Set by kruntimes: the configure workflow, its conditions and what status.yaml said.',
  {
    kruntimes: obj('What kruntimes ran for this resource.', {
      workflows: resourceWorkflowsSchema,
      delete: resourceDeleteSchema,
    }),
    message: str('The message a pipeline wrote to status.yaml, or why the workflow is in its state.', {
      maxLength: 32768,
    }),
    conditions,
    observedGeneration: int('The .metadata.generation the last workflow ran for.', { minimum: 0 }),
  },
  { 'x-kubernetes-preserve-unknown-fields': true },
);

export const promiseStatusSchema: Schema = obj('Observed state of the Promise.', {
  observedGeneration: int('The .metadata.generation last reconciled.', { minimum: 0 }),
  conditions,
  kruntimes: obj("What kruntimes ran for the Promise's own workflows.", {
    workflows: resourceWorkflowsSchema,
    delete: resourceDeleteSchema,
  }),
  api: obj('The resource API the Promise serves.', {
    group: str('API group.', { maxLength: 253 }),
    version: str('Served storage version.', { maxLength: 63 }),
    kind: str('Kind.', { maxLength: 63 }),
    plural: str('Plural resource name.', { maxLength: 63 }),
  }),
  resources: int('Resources of the API.', { minimum: 0 }),
  configured: int('Resources whose configure workflow last succeeded for their current spec.', {
    minimum: 0,
  }),
  summary: str('Configured resources out of all, as configured/total.', { maxLength: 32 }),
  message: str('Why the Promise is in its state.', { maxLength: 32768 }),
});
