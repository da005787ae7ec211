// Validation of a WorkflowRun (docs/specifications.md W1, W12).
import { MSG } from '../api/messages.js';
import type { Workflow, WorkflowRun } from '../api/types.js';
import { hasExpressions } from '../expr/index.js';
import { fieldError, type FieldError } from '../fielderror.js';
import { validateCallGraphSync, type CallingWorkflow } from '../graph/callgraph.js';
import {
  annotationBudgetError,
  annotationKeyErrors,
  OUTPUT_ANNOTATION_PREFIX,
  outputNameErrors,
} from '../limits.js';
import { callInputErrors } from '../render/inputs.js';
import { unservedRuntimeWarnings, type ServesRuntime } from './runtimes.js';
import { objectSizeError } from './size.js';
import { checkExpressions } from './expressions.js';
import { validateJobs } from './jobs.js';
import { deepEqual } from '../helpers.js';
import { isObject } from '../helpers.js';
import type { ValidationResult } from './result.js';
import { structural } from './structural.js';
import { fileSetErrors } from '../promise/files.js';

export interface WorkflowRunContext {
  /** The object before an UPDATE. */
  old?: WorkflowRun;
  /** Workflows of the namespace (informer cache), for call jobs; omitted offline. */
  lookup?: (name: string) => Workflow | undefined;
  /** Live agents in the run's namespace (their Leases), for a warning; omitted offline. */
  serves?: ServesRuntime;
}

const NO_INPUTS = {
  unavailable:
    "a WorkflowRun has no inputs; `krt workflow trigger` renders a template's inputs before it creates the run",
};

export function validateWorkflowRun(run: WorkflowRun, ctx: WorkflowRunContext = {}): ValidationResult {
  const errors: FieldError[] = [];
  const warnings: string[] = [];
  if (!isObject(run.spec)) return { errors: [fieldError('spec', 'required value')], warnings };
  const spec = run.spec as WorkflowRun['spec'] & Record<string, unknown>;
  const size = objectSizeError('WorkflowRun', run);
  if (size) return { errors: [size], warnings };
  if ('uses' in spec || 'with' in spec) errors.push(fieldError('spec', MSG.workflowRunNoTemplate));
  if (ctx.old?.spec) {
    if (!deepEqual(ctx.old.spec.jobs, spec.jobs))
      errors.push(fieldError('spec.jobs', 'field is immutable after creation'));
    if (ctx.old.spec.cancelRequested === true && spec.cancelRequested !== true)
      errors.push(fieldError('spec.cancelRequested', 'cannot go back to false'));
    errors.push(...frozenContractChanges(ctx.old, run));
  }
  const shape = structural.workflowRunSpec(spec);
  if (shape.length > 0)
    return {
      errors: [
        ...errors,
        ...shape.filter((e) => !e.field.startsWith('spec.uses') && !e.field.startsWith('spec.with')),
      ],
      warnings,
    };

  if (isObject(spec.inputFiles)) errors.push(...fileSetErrors(spec.inputFiles, 'spec.inputFiles'));
  const jobs = validateJobs(spec.jobs, { inputs: NO_INPUTS });
  errors.push(...jobs.errors);
  warnings.push(...jobs.warnings);
  errors.push(...outputAnnotationErrors(run));
  if (ctx.lookup && jobs.errors.length === 0) checkCalls(run, ctx.lookup, errors, warnings);
  if (ctx.serves && !ctx.old)
    warnings.push(...unservedRuntimeWarnings(spec.jobs, run.metadata?.namespace ?? '', ctx.serves));
  return { errors, warnings };
}

/** The output annotations are part of the frozen contract (docs/specifications.md W6): immutable like spec.jobs. */
function frozenContractChanges(old: WorkflowRun, run: WorkflowRun): FieldError[] {
  const contract = (r: WorkflowRun) =>
    Object.entries(r.metadata?.annotations ?? {}).filter(([k]) => k.startsWith(OUTPUT_ANNOTATION_PREFIX));
  const before = new Map(contract(old));
  const after = new Map(contract(run));
  return [...new Set([...before.keys(), ...after.keys()])]
    .sort()
    .filter((k) => before.get(k) !== after.get(k))
    .map((k) =>
      fieldError(
        `metadata.annotations[${k}]`,
        `the frozen output contract is immutable after creation (cannot be ${!before.has(k) ? 'added' : !after.has(k) ? 'removed' : 'changed'})`,
      ),
    );
}

/** The frozen output contract on a materialized run: valid keys, expressions over its own jobs, the budget. */
function outputAnnotationErrors(run: WorkflowRun): FieldError[] {
  const errors: FieldError[] = [];
  const annotations = run.metadata?.annotations ?? {};
  const jobs = run.spec.jobs;
  for (const [key, value] of Object.entries(annotations).sort(([a], [b]) => a.localeCompare(b))) {
    if (!key.startsWith(OUTPUT_ANNOTATION_PREFIX)) continue;
    const field = `metadata.annotations[${key}]`;
    for (const e of [
      ...annotationKeyErrors(key),
      ...outputNameErrors(key.slice(OUTPUT_ANNOTATION_PREFIX.length)),
    ])
      errors.push(fieldError(field, e));
    if (!hasExpressions(value)) continue;
    const f = checkExpressions(value, field, {
      inputs: NO_INPUTS,
      jobs: (j: string) => j in jobs,
      steps: { unavailable: 'an output annotation reads jobs.<job>.outputs, not steps' },
      allJobs: jobs,
      job: '(workflow outputs)',
    });
    errors.push(...f.errors);
  }
  const budget = annotationBudgetError(annotations);
  if (budget) errors.push(fieldError('metadata.annotations', budget));
  return errors;
}

/** Call jobs against the Workflows as they stand now; a missing callee is only a warning. */
function checkCalls(
  run: WorkflowRun,
  lookup: (name: string) => Workflow | undefined,
  errors: FieldError[],
  warnings: string[],
): void {
  for (const [name, job] of Object.entries(run.spec.jobs).sort(([a], [b]) => a.localeCompare(b))) {
    if (job.uses === undefined) continue;
    const field = `spec.jobs.${name}`;
    const graph = validateCallGraphSync<CallingWorkflow>(job.uses, lookup, { missing: 'warning' });
    if (graph.error) errors.push(fieldError(field, graph.error));
    for (const w of graph.warnings)
      warnings.push(
        `${field}: ${w} (calls are late-bound: the job fails if it still does not exist when it runs)`,
      );
    const callee = lookup(job.uses);
    if (callee && !graph.error) errors.push(...callInputErrors(job, field, callee));
  }
}
