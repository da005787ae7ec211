// Validation of a Workflow template (docs/design.md §2, issue "Admission webhook").
import type { Workflow } from '../api/types.js';
import { WORKFLOW_NAME_PATTERN, matches } from '../api/patterns.js';
import { fieldError, type FieldError } from '../fielderror.js';
import type { CallingWorkflow } from '../graph/callgraph.js';
import { validateWorkflowInGraph } from '../graph/through.js';
import {
  annotationBudgetError,
  frozenOutputContract,
  MAX_LABEL_VALUE_LENGTH,
  outputNameErrors,
} from '../limits.js';
import { unservedRuntimeWarnings, type ServesRuntime } from './runtimes.js';
import { materializedSizeError, objectSizeError } from './size.js';
import { checkExpressions } from './expressions.js';
import { validateJobs } from './jobs.js';
import { valueMatchesType } from '../render/inputs.js';
import { isObject } from '../helpers.js';
import type { ValidationResult } from './result.js';
import { structural } from './structural.js';

export interface WorkflowContext {
  /** The namespace's other Workflows, for the call-graph check; omitted offline. */
  others?: ReadonlyMap<string, CallingWorkflow>;
  /** Live agents in the Workflow's namespace (their Leases), for a warning; omitted offline. */
  serves?: ServesRuntime;
}

export function validateWorkflow(wf: Workflow, ctx: WorkflowContext = {}): ValidationResult {
  const name = wf.metadata?.name ?? '';
  const errors: FieldError[] = [];
  const warnings: string[] = [];
  if (name && (name.length > MAX_LABEL_VALUE_LENGTH || !matches(WORKFLOW_NAME_PATTERN, name)))
    errors.push(
      fieldError(
        'metadata.name',
        `a Workflow name must be a DNS-1123 label of at most ${MAX_LABEL_VALUE_LENGTH} characters (it is used as a label value)`,
      ),
    );
  if (!isObject(wf.spec)) return { errors: [...errors, fieldError('spec', 'required value')], warnings };
  const size = objectSizeError('Workflow', wf);
  if (size) return { errors: [...errors, size], warnings };
  const shape = structural.workflowSpec(wf.spec);
  if (shape.length > 0) return { errors: [...errors, ...shape], warnings };

  const spec = wf.spec;
  const inputs = spec.inputs ?? {};
  for (const [k, input] of Object.entries(inputs)) {
    if (input.default !== undefined && !valueMatchesType(input.default, input.type))
      errors.push(fieldError(`spec.inputs.${k}.default`, `"${input.default}" is not a ${input.type}`));
  }
  const jobs = validateJobs(spec.jobs, { inputs: new Set(Object.keys(inputs)) });
  errors.push(...jobs.errors);
  warnings.push(...jobs.warnings);

  outputFindings(spec, { errors, warnings, inputsRead: jobs.inputsRead });
  const budget = annotationBudgetError(frozenOutputContract(wf));
  if (budget) errors.push(fieldError('spec.outputs', `the frozen output contract does not fit: ${budget}`));
  for (const k of Object.keys(inputs).sort())
    if (!jobs.inputsRead.has(k)) warnings.push(`spec.inputs.${k}: the input is declared but never used`);

  if (errors.length === 0) {
    const child = materializedSizeError(wf);
    if (child) errors.push(child);
  }
  if (errors.length === 0) placeFindings(wf, ctx, { errors, warnings });
  return { errors, warnings };
}

/** The Workflow's outputs: their names, the expressions they read (and the inputs those read). */
function outputFindings(
  spec: Workflow['spec'],
  out: { errors: FieldError[]; warnings: string[]; inputsRead: Set<string> },
): void {
  const allJobs = new Set(Object.keys(spec.jobs));
  for (const [k, output] of Object.entries(spec.outputs ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
    for (const e of outputNameErrors(k)) out.errors.push(fieldError(`spec.outputs.${k}`, e));
    const f = checkExpressions(output.value, `spec.outputs.${k}.value`, {
      inputs: new Set(Object.keys(spec.inputs ?? {})),
      jobs: (j: string) => allJobs.has(j),
      steps: { unavailable: 'a Workflow output reads jobs.<job>.outputs, not steps' },
      allJobs: spec.jobs,
      job: '(workflow outputs)',
    });
    out.errors.push(...f.errors);
    f.inputsRead.forEach((i) => out.inputsRead.add(i));
    if (!output.value.includes('${{'))
      out.warnings.push(
        `spec.outputs.${k}.value: the output refers to no job output; it is always "${output.value}"`,
      );
  }
}

/** What only the Workflow's place can tell: agents that serve its runtimes, and its call graph. */
function placeFindings(
  wf: Workflow,
  ctx: WorkflowContext,
  out: { errors: FieldError[]; warnings: string[] },
): void {
  const name = wf.metadata?.name ?? '';
  if (ctx.serves)
    out.warnings.push(...unservedRuntimeWarnings(wf.spec.jobs, wf.metadata?.namespace ?? '', ctx.serves));
  if (ctx.others && name) {
    const graph = validateWorkflowInGraph(name, wf as CallingWorkflow, ctx.others);
    if (graph.error)
      out.errors.push(fieldError(graphErrorField(name, wf.spec.jobs, graph.path), graph.error));
    out.warnings.push(
      ...graph.warnings.map((w) => `${w} (calls are late-bound: it must exist when the job runs)`),
    );
  }
}

/** The job a call-graph error starts from, when its path starts at this Workflow (`A -> B ...` names the job calling B). */
export function graphErrorField(
  self: string,
  jobs: Record<string, { uses?: string }>,
  path: string[] | undefined,
): string {
  if (!path || path[0] !== self || path.length < 2) return 'spec.jobs';
  const job = Object.keys(jobs)
    .sort()
    .find((j) => jobs[j]?.uses === path[1]);
  return job ? `spec.jobs.${job}` : 'spec.jobs';
}
