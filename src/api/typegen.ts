// Builds the input of the TypeScript type generator from the API schemas: the same schemas, with a
// title on each named part so the generator emits `JobSpec`, `StepSpec`, ... instead of inline types.
import type { Schema } from './schema-helpers.js';
import * as S from './schema.js';
import * as PS from './promise-schema.js';

const NAMED: [Schema, string][] = [
  [S.stepSchema, 'StepSpec'],
  [S.jobSchema, 'JobSpec'],
  [S.conditionSchema, 'Condition'],
  [S.jobStatusSchema, 'JobStatus'],
  [S.workflowSpecSchema, 'WorkflowSpec'],
  [S.workflowStatusSchema, 'WorkflowStatus'],
  [S.workflowRunSpecSchema, 'WorkflowRunSpec'],
  [S.workflowRunStatusSchema, 'WorkflowRunStatus'],
  [S.runSpecSchema, 'RunSpec'],
  [S.runStatusSchema, 'RunStatus'],
  [PS.pipelineSchema, 'Pipeline'],
  [PS.pipelineContainerSchema, 'PipelineContainer'],
  [PS.promiseSpecSchema, 'PromiseSpec'],
  [PS.promiseStatusSchema, 'PromiseStatus'],
  [PS.workSpecSchema, 'WorkSpec'],
  [PS.workStatusSchema, 'WorkStatus'],
  [PS.appliedObjectSchema, 'AppliedObject'],
  [PS.pipelineStatusSchema, 'PipelineStatus'],
  [PS.resourceWorkflowsSchema, 'ResourceWorkflows'],
  [PS.resourceDeleteSchema, 'ResourceDelete'],
  [PS.resourceStatusSchema, 'ResourceStatus'],
];

function titled(schema: Schema, titles: Map<Schema, string>, top = false): Record<string, unknown> {
  const title = titles.get(schema);
  if (title && !top) return { $ref: `#/definitions/${title}` };
  const out: Record<string, unknown> = title ? { title } : {};
  // An object that keeps whatever it is given (`with`) is a map of any JSON values.
  if (schema['x-kubernetes-preserve-unknown-fields'] && !schema.additionalProperties)
    out.additionalProperties = true;
  for (const [k, v] of Object.entries(schema)) {
    if (k.startsWith('x-kubernetes')) continue;
    if (k === 'properties') {
      out.properties = Object.fromEntries(
        Object.entries(v as Record<string, Schema>).map(([p, s]) => [p, titled(s, titles)]),
      );
    } else if ((k === 'items' || k === 'additionalProperties') && typeof v === 'object') {
      out[k] = titled(v as Schema, titles);
    } else out[k] = v;
  }
  return out;
}

/** One schema whose properties are the named parts of the API. */
export function typeGenerationSchema(): Record<string, unknown> {
  const titles = new Map(NAMED);
  return {
    title: 'KruntimesApi',
    type: 'object',
    properties: Object.fromEntries(NAMED.map(([, name]) => [name, { $ref: `#/definitions/${name}` }])),
    definitions: Object.fromEntries(NAMED.map(([s, name]) => [name, titled(s, titles, true)])),
  };
}
