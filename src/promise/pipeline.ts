// One pipeline of a resource's configure workflow as a WorkflowRun owned by the resource
// (docs/design.md §4): deterministic name, labels that say what it ran for, `resource` rendered as data.
import type {
  StepSpec,
  JobSpec,
  Pipeline,
  PromiseObject,
  ResourceObject,
  Workflow,
  WorkflowRun,
} from '../api/types.js';
import { API_VERSION } from '../api/crds.js';
import { CONTAINER_RUNTIME } from '../api/patterns.js';
import { compactCopy, controllerReference } from '../api/objects.js';
import { ExprError, renderTemplate } from '../expr/index.js';
import { formatFieldError } from '../fielderror.js';
import { renderJobs } from '../render/jobs.js';
import { materialize, resolveInputs } from '../render/materialize.js';
import { isScalar } from '../helpers.js';
import type { Value } from '../expr/index.js';
import {
  LABEL_PIPELINE,
  LABEL_PROMISE,
  LABEL_RESOURCE_UID,
  LABEL_WORKFLOW_HASH,
  LABEL_WORKFLOW_ROUND,
  LABEL_WORKFLOW_TYPE,
  LABEL_DELETE_ATTEMPT,
  LABEL_PIPELINE_ATTEMPT,
} from '../labels.js';
import { pipelineRunName, sha256Hex } from '../names.js';
import { objectYaml, type Files } from './files.js';

/** Sorted keys, so equal values hash equally whatever order they were written in. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

/** Digest of a Promise spec, once per spec object (an informer's objects are replaced, not changed). */
const promiseDigests = new WeakMap<object, string>();
function promiseDigest(promise: PromiseObject): string {
  let d = promiseDigests.get(promise.spec);
  if (d === undefined) promiseDigests.set(promise.spec, (d = sha256Hex(canonicalJson(promise.spec))));
  return d;
}

/**
 * What the configure workflow runs for: the resource's spec and the Promise's spec. The Promise's
 * part (its whole CRD schema) is digested once, not once per resource: the Promise's count of
 * configured resources asks this of each of them.
 */
export function workflowHash(resource: ResourceObject, promise: PromiseObject): string {
  return sha256Hex(`${promiseDigest(promise)}/${canonicalJson(resource.spec ?? {})}`).slice(0, 16);
}

export function configurePipelines(promise: PromiseObject): Pipeline[] {
  return promise.spec.workflows?.resource?.configure ?? [];
}

export function deletePipeline(promise: PromiseObject): Pipeline | undefined {
  return promise.spec.workflows?.resource?.delete?.[0];
}

/** Runs of the configure workflow (older runs carry no type label) or of the delete workflow. */
export function runsOfType(runs: WorkflowRun[], type: 'configure' | 'delete'): WorkflowRun[] {
  return runs.filter((r) => (r.metadata.labels?.[LABEL_WORKFLOW_TYPE] ?? 'configure') === type);
}

/**
 * A Kratix-shaped pipeline as the one job it means: each container a step of the kubernetes
 * runtime, in order, the first failure halting the rest (docs/promises.md).
 */
export function containerJobs(pipeline: Pipeline): Record<string, JobSpec> | undefined {
  const containers = pipeline.spec.containers;
  if (!containers) return undefined;
  return {
    [pipeline.metadata.name]: {
      'runs-on': CONTAINER_RUNTIME,
      ...(pipeline.spec.volumes ? { volumes: pipeline.spec.volumes } : {}),
      steps: containers.map((c) => {
        const env: Record<string, string> = {};
        const secretEnv: NonNullable<StepSpec['secretEnv']> = {};
        for (const e of c.env ?? [])
          if (e.valueFrom?.secretKeyRef) secretEnv[e.name] = e.valueFrom.secretKeyRef;
          else env[e.name] = e.value ?? '';
        return {
          name: c.name,
          image: c.image,
          ...(c.command ? { command: c.command } : {}),
          ...(c.args ? { args: c.args } : {}),
          ...(c.workingDir ? { workingDir: c.workingDir } : {}),
          ...(c.resources ? { resources: c.resources } : {}),
          ...(c.volumeMounts ? { volumeMounts: c.volumeMounts } : {}),
          ...(c.envFrom ? { envFrom: c.envFrom } : {}),
          ...(Object.keys(env).length ? { env } : {}),
          ...(Object.keys(secretEnv).length ? { secretEnv } : {}),
        };
      }),
    },
  };
}

/** Kratix's variables for a pipeline's steps (and the bash ones alike): what runs, for which object. */
export function kratixEnv(
  resource: ResourceObject,
  promise: PromiseObject,
  pipeline: Pipeline,
  action: 'configure' | 'delete',
): Record<string, string> {
  const [group, version] = (resource.apiVersion ?? '').includes('/')
    ? (resource.apiVersion ?? '').split('/')
    : ['', resource.apiVersion ?? ''];
  const api = promise.spec.api as { spec?: { names?: { plural?: string }; scope?: string } };
  return {
    KRATIX_WORKFLOW_ACTION: action,
    // A Promise's own workflow works on the Promise (no resource API is in kruntimes.io).
    KRATIX_WORKFLOW_TYPE:
      resource.apiVersion === API_VERSION && resource.kind === 'Promise' ? 'promise' : 'resource',
    KRATIX_PROMISE_NAME: promise.metadata.name ?? '',
    KRATIX_PIPELINE_NAME: pipeline.metadata.name,
    KRATIX_OBJECT_KIND: resource.kind ?? '',
    KRATIX_OBJECT_GROUP: group ?? '',
    KRATIX_OBJECT_VERSION: version ?? '',
    KRATIX_OBJECT_NAME: resource.metadata.name ?? '',
    KRATIX_OBJECT_NAMESPACE: resource.metadata.namespace ?? '',
    KRATIX_CRD_PLURAL: api.spec?.names?.plural ?? '',
    KRATIX_CLUSTER_SCOPED: String(api.spec?.scope === 'Cluster'),
  };
}

/**
 * Where a resource's pipeline runs and Works live: the resource's namespace, or the Promise's
 * workflowNamespace for a cluster-scoped resource (admission requires it then).
 */
export function pipelineNamespace(
  resource: Pick<ResourceObject, 'metadata'>,
  promise: { spec: { workflowNamespace?: string } },
): string {
  return resource.metadata.namespace || (promise.spec.workflowNamespace ?? '');
}

/** Workflows by namespace and name (the controller's cache), for pipelines that name one. */
export type WorkflowLookup = (namespace: string, name: string) => Workflow | undefined;

/**
 * The jobs a pipeline runs: its own with `resource` rendered as data, or those of the Workflow it
 * names, materialized with its `with` (late binding: read when the pipeline starts).
 */
function pipelineJobs(
  pipeline: Pipeline,
  promise: PromiseObject,
  view: Value,
  workflow: WorkflowLookup | undefined,
): { jobs: Record<string, JobSpec> } | { error: string } {
  const inline = pipeline.spec.jobs ?? containerJobs(pipeline);
  if (inline) return { jobs: renderJobs(inline, { resource: view }, ['resource']) };
  const name = pipeline.spec.uses ?? '';
  const namespace = promise.spec.workflowNamespace ?? '';
  const wf = workflow?.(namespace, name);
  if (!wf) return { error: `Workflow "${name}" not found in namespace "${namespace}"` };
  // Its call jobs would look for Workflows in the resource's namespace, not in the Promise's.
  const caller = Object.entries(wf.spec.jobs).find(([, j]) => j.uses !== undefined);
  if (caller)
    return {
      error: `Workflow "${name}" calls other Workflows (job "${caller[0]}"), which a pipeline cannot`,
    };
  const given: Record<string, string> = {};
  for (const [k, v] of Object.entries(pipeline.spec.with ?? {})) {
    if (!isScalar(v)) return { error: `with.${k} must be a string, number or boolean` };
    given[k] = typeof v === 'string' ? renderTemplate(v, { resource: view }) : String(v);
  }
  const inputs = resolveInputs(wf, given, 'with');
  if ('errors' in inputs) return { error: `${inputs.errors.map(formatFieldError).join('; ')}` };
  return { jobs: materialize(wf, inputs.values).jobs };
}

/** Which run of a pipeline to build: its round, and the attempt of a configure or a delete. */
export interface PipelineRunOptions {
  round: number;
  hash: string;
  /** What earlier pipelines of the round wrote, by pipeline. */
  earlier: Record<string, Files>;
  workflow?: WorkflowLookup;
  /** The delete workflow's attempt of its round; absent for a configure pipeline. */
  deleteAttempt?: number;
  /** A configure pipeline's attempt in the round (jobOptions.backoffLimit); 1 unless given. */
  configureAttempt?: number;
}

/**
 * The WorkflowRun of a pipeline in a round. An error says why it cannot be made (a missing
 * Workflow, a bad reference).
 */
export function buildPipelineRun(
  resource: ResourceObject,
  promise: PromiseObject,
  pipeline: Pipeline,
  o: PipelineRunOptions,
): WorkflowRun | { error: string } {
  const view = compactCopy<unknown>({ ...resource, status: undefined }) as Value;
  let made: { jobs: Record<string, JobSpec> } | { error: string };
  try {
    made = pipelineJobs(pipeline, promise, view, o.workflow);
  } catch (e) {
    if (!(e instanceof ExprError)) throw e;
    return { error: e.message };
  }
  if ('error' in made) return made;
  const { jobs } = made;
  const configure = o.deleteAttempt === undefined;
  const kratix = kratixEnv(resource, promise, pipeline, configure ? 'configure' : 'delete');
  const generation = String(resource.metadata.generation ?? 1);
  for (const job of Object.values(jobs))
    for (const step of job.steps ?? [])
      step.env = { ...kratix, ...(step.env ?? {}), KRT_OBSERVED_GENERATION: generation };
  const inputFiles: Files = {
    'object.yaml': objectYaml(resource as never, configure ? (resource.metadata.generation ?? 1) : undefined),
  };
  for (const [p, files] of Object.entries(o.earlier))
    for (const [f, text] of Object.entries(files)) inputFiles[`${p}/${f}`] = text;
  return {
    apiVersion: API_VERSION,
    kind: 'WorkflowRun',
    metadata: pipelineRunMetadata(resource, promise, pipeline, o),
    spec: { jobs, inputFiles },
  };
}

/** The run's name, namespace, labels (what the controller finds it by) and owner. */
function pipelineRunMetadata(
  resource: ResourceObject,
  promise: PromiseObject,
  pipeline: Pipeline,
  o: PipelineRunOptions,
): WorkflowRun['metadata'] {
  const configureAttempt = o.configureAttempt ?? 1;
  return {
    name: pipelineRunName(
      resource.metadata.name ?? '',
      resource.metadata.uid ?? '',
      pipeline.metadata.name,
      o.round,
      o.deleteAttempt,
      configureAttempt,
    ),
    namespace: pipelineNamespace(resource, promise),
    labels: {
      [LABEL_PROMISE]: promise.metadata.name ?? '',
      [LABEL_RESOURCE_UID]: resource.metadata.uid ?? '',
      [LABEL_PIPELINE]: pipeline.metadata.name,
      [LABEL_WORKFLOW_HASH]: o.hash,
      [LABEL_WORKFLOW_ROUND]: String(o.round),
      [LABEL_WORKFLOW_TYPE]: o.deleteAttempt === undefined ? 'configure' : 'delete',
      ...(o.deleteAttempt === undefined
        ? { [LABEL_PIPELINE_ATTEMPT]: String(configureAttempt) }
        : { [LABEL_DELETE_ATTEMPT]: String(o.deleteAttempt) }),
    },
    ownerReferences: [controllerReference(resource)],
  };
}
