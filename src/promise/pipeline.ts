// One pipeline of a resource's configure workflow as a WorkflowRun owned by the resource
// (DESIGN.md §4): deterministic name, labels that say what it ran for, `resource` rendered as data.
import type { JobSpec, Pipeline, PromiseObject, ResourceObject, WorkflowRun } from '../api/types.js';
import { API_VERSION } from '../api/crds.js';
import { renderPartial } from '../expr/index.js';
import type { Value } from '../expr/index.js';
import {
  LABEL_PIPELINE,
  LABEL_PROMISE,
  LABEL_RESOURCE_UID,
  LABEL_WORKFLOW_HASH,
  LABEL_WORKFLOW_ROUND,
} from '../labels.js';
import { boundedName, sha256Hex } from '../names.js';
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

/** What the configure workflow runs for: the resource's spec and the Promise's spec. */
export function workflowHash(resource: ResourceObject, promise: PromiseObject): string {
  return sha256Hex(canonicalJson({ resource: resource.spec ?? {}, promise: promise.spec })).slice(0, 16);
}

/** `<resource>-<pipeline>-<5 hex of the resource uid and round>`, bounded. */
export function pipelineRunName(resource: ResourceObject, pipeline: string, round: number): string {
  const h = sha256Hex(`${resource.metadata.uid ?? ''}/${round}`).slice(0, 5);
  return boundedName(`${resource.metadata.name ?? ''}-${pipeline}-${h}`);
}

export function configurePipelines(promise: PromiseObject): Pipeline[] {
  return promise.spec.workflows?.resource?.configure ?? [];
}

function renderResource<T>(value: T, resource: Value): T {
  if (typeof value === 'string') return renderPartial(value, { resource }, ['resource']) as T;
  if (Array.isArray(value)) return value.map((v) => renderResource(v, resource)) as T;
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderResource(v, resource)])) as T;
  return value;
}

/**
 * The WorkflowRun of pipeline `index` in round `round`. `earlier` holds what earlier pipelines
 * wrote, by pipeline. Throws ExprError when a `resource` reference cannot be rendered.
 */
export function buildPipelineRun(
  resource: ResourceObject,
  promise: PromiseObject,
  pipeline: Pipeline,
  round: number,
  hash: string,
  earlier: Record<string, Files>,
): WorkflowRun {
  const view = JSON.parse(JSON.stringify({ ...resource, status: undefined })) as Value;
  const generation = String(resource.metadata.generation ?? 1);
  const jobs = renderResource(pipeline.spec.jobs, view);
  for (const job of Object.values(jobs) as JobSpec[])
    for (const step of job.steps ?? [])
      step.env = { ...(step.env ?? {}), KRT_OBSERVED_GENERATION: generation };
  const inputFiles: Files = { 'object.yaml': objectYaml(resource as never) };
  for (const [p, files] of Object.entries(earlier))
    for (const [f, text] of Object.entries(files)) inputFiles[`${p}/${f}`] = text;
  return {
    apiVersion: API_VERSION,
    kind: 'WorkflowRun',
    metadata: {
      name: pipelineRunName(resource, pipeline.metadata.name, round),
      namespace: resource.metadata.namespace,
      labels: {
        [LABEL_PROMISE]: promise.metadata.name ?? '',
        [LABEL_RESOURCE_UID]: resource.metadata.uid ?? '',
        [LABEL_PIPELINE]: pipeline.metadata.name,
        [LABEL_WORKFLOW_HASH]: hash,
        [LABEL_WORKFLOW_ROUND]: String(round),
      },
      ownerReferences: [
        {
          apiVersion: resource.apiVersion,
          kind: resource.kind,
          name: resource.metadata.name ?? '',
          uid: resource.metadata.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: { jobs, inputFiles },
  };
}
