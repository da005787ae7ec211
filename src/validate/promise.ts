// Validation of a Promise (docs/specifications.md R1; docs/design.md §4): its resource API, its pipelines (unique
// names, valid jobs and expressions, `resource.<path>` against the API's schema), at most one
// delete pipeline, and an API whose group and kind never change once the Promise exists.
import type { JobSpec, Pipeline, PromiseObject, Workflow } from '../api/types.js';
import { promiseSpecSchema, promiseStatusSchema } from '../api/promise-schema.js';
import { fieldError, type FieldError } from '../fielderror.js';
import { isObject } from '../helpers.js';
import { apiIdentity, resourceApi, resourceApiErrors } from '../promise/api.js';
import { containerJobs } from '../promise/pipeline.js';
import { crdConflict, crdOwnedBy, type CrdMeta } from '../promise/ownership.js';
import { parseDuration } from '../runtime/duration.js';
import { validateJobs } from './jobs.js';
import { withValueErrors } from '../render/inputs.js';
import { checkExpressions, type ExpressionScope } from './expressions.js';
import type { ValidationResult } from './result.js';
import { objectSizeError } from './size.js';
import { structural } from './structural.js';

const NO_INPUTS = {
  unavailable: 'a Pipeline has no inputs; read the resource with ${{ resource.<path> }}',
};

/** A pipeline's `with` reads only the resource. */
function withScope(schema: unknown): ExpressionScope {
  const why = { unavailable: 'a Pipeline with passes values from the resource only' };
  return { inputs: why, jobs: why, steps: why, allJobs: {}, resource: { schema } };
}

/** The Promise as its own pipelines read it (`resource.spec.api...`). */
const PROMISE_OBJECT_SCHEMA = {
  type: 'object',
  properties: { spec: promiseSpecSchema, status: promiseStatusSchema },
};

export function validatePromise(
  promise: PromiseObject,
  old?: PromiseObject,
  lookup?: (namespace: string, name: string) => Workflow | undefined,
  /** The CRD of a name, where the caller sees CRDs: for the warning about another's API. */
  crd?: (name: string) => CrdMeta | undefined,
): ValidationResult {
  const warnings: string[] = [];
  if (!isObject(promise.spec)) return { errors: [fieldError('spec', 'required value')], warnings };
  const size = objectSizeError('Promise', promise);
  if (size) return { errors: [size], warnings };
  const shape = structural.promiseSpec(promise.spec);
  if (shape.length > 0) return { errors: shape, warnings };
  const errors: FieldError[] = [...resourceApiErrors(promise.spec.api)];
  if (old?.spec?.api) {
    const was = apiIdentity(old.spec.api);
    const now = apiIdentity(promise.spec.api);
    if (was !== now)
      errors.push(
        fieldError('spec.api', `the resource API's group and kind cannot change (was ${was}, now ${now})`),
      );
  }
  if (
    isObject(promise.spec.api) &&
    isObject(promise.spec.api.spec) &&
    promise.spec.api.spec.scope === 'Cluster'
  )
    if (!promise.spec.workflowNamespace)
      errors.push(
        fieldError(
          'spec.workflowNamespace',
          'required when spec.api.spec.scope is Cluster: the pipelines of a cluster-scoped resource run there',
        ),
      );
  const interval = promise.spec.reconcileInterval;
  if (interval !== undefined) {
    const d = parseDuration(interval);
    if ('error' in d) errors.push(fieldError('spec.reconcileInterval', d.error));
  }
  const pipelines = workflowsErrors(promise, lookup);
  errors.push(...pipelines.errors);
  warnings.push(...pipelines.warnings);
  const api = resourceApi(promise);
  const existing = api && crd?.(`${api.plural}.${api.group}`);
  // The uid of the stored Promise: a create has none yet.
  const self = {
    ...promise,
    metadata: { ...promise.metadata, uid: old?.metadata?.uid ?? promise.metadata.uid },
  };
  if (api && existing && !crdOwnedBy(existing, self))
    warnings.push(
      `spec.api: ${crdConflict(`${api.plural}.${api.group}`, existing)}; the Promise stays unavailable (APIConflict)`,
    );
  if ((promise.spec.workflows?.resource?.configure ?? []).length === 0)
    warnings.push(
      'the Promise has no configure pipelines: its resources are accepted and nothing runs for them',
    );
  return { errors, warnings };
}

/** The pipelines of the Promise's workflows and of its resources', each list checked on its own. */
function workflowsErrors(
  promise: PromiseObject,
  lookup: ((namespace: string, name: string) => Workflow | undefined) | undefined,
): ValidationResult {
  const errors: FieldError[] = [];
  const warnings: string[] = [];
  const schema = resourceApi(promise)?.schema;
  const own = promise.spec.workflows?.promise;
  // The Promise's own pipelines work on the Promise: `resource.<path>` is checked against its schema.
  const lists: [string, Pipeline[], unknown][] = [
    ['resource.configure', promise.spec.workflows?.resource?.configure ?? [], schema],
    ['resource.delete', promise.spec.workflows?.resource?.delete ?? [], schema],
    ['promise.configure', own?.configure ?? [], PROMISE_OBJECT_SCHEMA],
    ['promise.delete', own?.delete ?? [], PROMISE_OBJECT_SCHEMA],
  ];
  if (
    ((own?.configure ?? []).length > 0 || (own?.delete ?? []).length > 0) &&
    !promise.spec.workflowNamespace
  )
    errors.push(
      fieldError(
        'spec.workflowNamespace',
        "required when spec.workflows.promise has pipelines: the Promise's own pipelines run there",
      ),
    );
  for (const [kind, list, pipelineSchema] of lists) {
    const seen = new Set<string>();
    list.forEach((p, i) => {
      const at = `spec.workflows.${kind}[${i}]`;
      if (seen.has(p.metadata.name))
        errors.push(fieldError(`${at}.metadata.name`, `duplicate pipeline name "${p.metadata.name}"`));
      seen.add(p.metadata.name);
      const found = pipelineErrors(p, at, { promise, schema: pipelineSchema, lookup });
      errors.push(...found.errors);
      warnings.push(...found.warnings);
    });
  }
  return { errors, warnings };
}

/** One pipeline: one of its three forms (jobs, containers, uses), each checked as it is run. */
function pipelineErrors(
  p: Pipeline,
  at: string,
  c: {
    promise: PromiseObject;
    schema: NonNullable<ReturnType<typeof resourceApi>>['schema'] | undefined;
    lookup?: (namespace: string, name: string) => Workflow | undefined;
  },
): ValidationResult {
  const errors: FieldError[] = [];
  const warnings: string[] = [];
  const forms = [p.spec.jobs, p.spec.uses, p.spec.containers].filter((x) => x !== undefined).length;
  if (forms !== 1)
    return {
      errors: [fieldError(`${at}.spec`, 'a Pipeline has one of jobs, containers or uses (a Workflow)')],
      warnings,
    };
  if (p.spec.volumes !== undefined && p.spec.containers === undefined)
    errors.push(fieldError(`${at}.spec.volumes`, 'only a Pipeline of containers has volumes'));
  if (p.spec.uses !== undefined) {
    const ns = c.promise.spec.workflowNamespace;
    if (!ns)
      errors.push(
        fieldError('spec.workflowNamespace', `required: pipeline "${p.metadata.name}" uses a Workflow`),
      );
    // A warning, not a refusal: GitOps tools apply the Workflow and the Promise in any order.
    else if (c.lookup && !c.lookup(ns, p.spec.uses))
      warnings.push(
        `${at}.spec.uses: Workflow "${p.spec.uses}" does not exist in namespace "${ns}" yet; the pipeline fails until it does`,
      );
    for (const [k, v] of Object.entries(p.spec.with ?? {})) {
      const field = `${at}.spec.with.${k}`;
      const shape = withValueErrors(v, field);
      errors.push(...shape);
      if (shape.length === 0) errors.push(...checkExpressions(v, field, withScope(c.schema)).errors);
    }
    return { errors, warnings };
  }
  if (p.spec.with !== undefined) errors.push(fieldError(`${at}.spec.with`, 'with is only allowed with uses'));
  const fromContainers = containerJobs(p);
  const jobs = validateJobs(fromContainers ?? (p.spec.jobs as Record<string, JobSpec>), {
    inputs: NO_INPUTS,
    base: `${at}.spec.jobs`,
    resource: { schema: c.schema },
  });
  // Errors of the job a containers list means are said at the containers and the pipeline.
  const job = `${at}.spec.jobs.${p.metadata.name}`;
  const said = (field: string) =>
    field.startsWith(`${job}.steps[`)
      ? field.replace(`${job}.steps[`, `${at}.spec.containers[`)
      : field.replace(`${job}.`, `${at}.spec.`);
  errors.push(...(fromContainers ? jobs.errors.map((e) => ({ ...e, field: said(e.field) })) : jobs.errors));
  return { errors, warnings: [...warnings, ...jobs.warnings] };
}
