// Admission-time checks of `${{ }}` references against what is readable at each place (docs/design.md
// §2 "Expressions"): declared inputs, outputs of upstream jobs, outputs of earlier steps.
import type { JobSpec } from '../api/types.js';
import { analyzeTemplate, hasExpressions } from '../expr/index.js';
import { fieldError, type FieldError } from '../fielderror.js';

export interface ExpressionScope {
  /** Declared inputs, or a reason why `inputs` cannot be read here. */
  inputs: Set<string> | { unavailable: string };
  /** Whether a job's outputs may be read here, or a reason why `jobs` cannot be read here. */
  jobs: ((job: string) => boolean) | { unavailable: string };
  /** Steps whose outputs may be read, or a reason why `steps` cannot be read here. */
  steps: readonly string[] | { unavailable: string };
  /** All jobs of the object, to tell a job that does not exist from one that is not upstream. */
  allJobs: Record<string, JobSpec>;
  /** The job this value belongs to, for messages. */
  job?: string;
  /**
   * In a Promise pipeline, the resource API's openAPIV3Schema (paths are checked against it where
   * it declares them); elsewhere absent, and `resource` cannot be read.
   */
  resource?: { schema?: unknown };
}

const NO_RESOURCE = 'resource is only readable in the pipelines of a Promise';

export interface ExpressionFindings {
  errors: FieldError[];
  /** Inputs the value reads, for the unused-input warning. */
  inputsRead: string[];
}

export function checkExpressions(value: unknown, field: string, scope: ExpressionScope): ExpressionFindings {
  const findings: ExpressionFindings = { errors: [], inputsRead: [] };
  if (typeof value !== 'string' || !hasExpressions(value)) return findings;
  const analysis = analyzeTemplate(value);
  for (const e of analysis.errors) findings.errors.push(fieldError(field, e));
  for (const ref of analysis.references) {
    const problem = referenceProblem(ref, scope);
    if (problem) findings.errors.push(fieldError(field, problem));
    if (ref.kind === 'input') findings.inputsRead.push(ref.name);
  }
  return findings;
}

function referenceProblem(
  ref: ReturnType<typeof analyzeTemplate>['references'][number],
  scope: ExpressionScope,
): string | null {
  switch (ref.kind) {
    case 'input':
      if (!(scope.inputs instanceof Set))
        return `"inputs.${ref.name}" cannot be used here: ${scope.inputs.unavailable}`;
      return scope.inputs.has(ref.name) ? null : `input "${ref.name}" is not declared in spec.inputs`;
    case 'jobOutput': {
      const text = `jobs.${ref.job}.outputs.${ref.output}`;
      if (typeof scope.jobs !== 'function') return `"${text}" cannot be used here: ${scope.jobs.unavailable}`;
      const target = scope.allJobs[ref.job];
      if (!target) return `"${text}": job "${ref.job}" does not exist`;
      if (!scope.jobs(ref.job))
        return `"${text}": job "${ref.job}" is not upstream of job "${scope.job}" (add it to needs)`;
      // An inline job declares its outputs; a call job's come from the called Workflow.
      if (target.uses === undefined && !(ref.output in (target.outputs ?? {})))
        return `"${text}": job "${ref.job}" declares no output "${ref.output}"`;
      return null;
    }
    case 'resource':
      if (!scope.resource) return `"resource.${ref.path.join('.')}" cannot be used here: ${NO_RESOURCE}`;
      return resourcePathProblem(ref.path, scope.resource.schema);
    case 'stepOutput': {
      const text = `steps.${ref.step}.outputs.${ref.output}`;
      if (!Array.isArray(scope.steps))
        return `"${text}" cannot be used here: ${(scope.steps as { unavailable: string }).unavailable}`;
      return scope.steps.includes(ref.step)
        ? null
        : `"${text}": "${ref.step}" is not an earlier step of job "${scope.job}"`;
    }
  }
}

/**
 * A path the resource cannot have: one that leaves what its schema declares. Where the schema keeps
 * unknown fields or says nothing, any path is accepted (it is checked when the run is made).
 */
export function resourcePathProblem(path: string[], schema: unknown): string | null {
  const [top] = path;
  if (!['apiVersion', 'kind', 'metadata', 'spec', 'status'].includes(top ?? ''))
    return `"resource.${path.join('.')}": a resource has apiVersion, kind, metadata, spec and status`;
  let node = schema as SchemaNode | undefined;
  for (let i = 0; i < path.length; i++) {
    if (!node || node['x-kubernetes-preserve-unknown-fields'] || node.additionalProperties) return null;
    if (node.type === 'array') return null;
    const props = node.properties;
    if (!props) return null;
    const key = path[i] as string;
    if (i === 0 && (key === 'metadata' || key === 'apiVersion' || key === 'kind')) return null;
    if (!(key in props))
      return `"resource.${path.join('.')}": the resource schema declares no field "${path.slice(0, i + 1).join('.')}"`;
    node = props[key];
  }
  return null;
}

interface SchemaNode {
  type?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: unknown;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}
