// The job graph of one WorkflowRun or Workflow: `needs` names existing jobs, no job needs itself,
// and the graph has no cycle. Deterministic: jobs and their needs are visited in sorted order.
import { fieldError, type FieldError } from '../fielderror.js';

export interface NeedingJob {
  needs?: string[];
}

export function jobCycleError(path: string[]): string {
  return `job dependency cycle: ${path.join(' -> ')}`;
}

function sortedNeeds(job: NeedingJob | undefined): string[] {
  return [...new Set(job?.needs ?? [])].sort();
}

/** Errors of the job graph, each with its field path under `base` (for example `spec.jobs`). */
export function jobGraphErrors(
  jobs: Record<string, NeedingJob | undefined>,
  base = 'spec.jobs',
): FieldError[] {
  const errors: FieldError[] = [];
  const names = Object.keys(jobs).sort();
  for (const name of names) {
    for (const need of sortedNeeds(jobs[name])) {
      if (need === name) errors.push(fieldError(`${base}.${name}.needs`, `job "${name}" cannot need itself`));
      else if (!Object.prototype.hasOwnProperty.call(jobs, need))
        errors.push(fieldError(`${base}.${name}.needs`, `job "${need}" does not exist`));
    }
  }
  if (errors.length > 0) return errors;
  const cycle = findCycle(jobs, names);
  if (cycle) errors.push(fieldError(base, jobCycleError(cycle)));
  return errors;
}

/** The first cycle in sorted depth-first order, as a path that starts and ends on the same job. */
function findCycle(jobs: Record<string, NeedingJob | undefined>, names: string[]): string[] | null {
  const done = new Set<string>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const visit = (name: string): string[] | null => {
    stack.push(name);
    onStack.add(name);
    for (const need of sortedNeeds(jobs[name])) {
      if (onStack.has(need)) return [...stack.slice(stack.indexOf(need)), need];
      if (!done.has(need) && Object.prototype.hasOwnProperty.call(jobs, need)) {
        const found = visit(need);
        if (found) return found;
      }
    }
    stack.pop();
    onStack.delete(name);
    done.add(name);
    return null;
  };
  for (const name of names) {
    if (done.has(name)) continue;
    const found = visit(name);
    if (found) return found;
  }
  return null;
}

/** Every job that `job` depends on, directly or through other jobs. Assumes an acyclic graph. */
export function upstreamJobs(jobs: Record<string, NeedingJob | undefined>, job: string): Set<string> {
  const seen = new Set<string>();
  const pending = [...(jobs[job]?.needs ?? [])];
  while (pending.length > 0) {
    const next = pending.pop() as string;
    if (seen.has(next)) continue;
    seen.add(next);
    pending.push(...(jobs[next]?.needs ?? []));
  }
  return seen;
}

/** Jobs in an order where every job comes after what it needs; ties broken by name. */
export function topologicalOrder(jobs: Record<string, NeedingJob | undefined>): string[] {
  const order: string[] = [];
  const placed = new Set<string>();
  const names = Object.keys(jobs).sort();
  while (order.length < names.length) {
    const ready = names.filter((n) => !placed.has(n) && sortedNeeds(jobs[n]).every((d) => placed.has(d)));
    if (ready.length === 0) throw new Error('topologicalOrder: the job graph has a cycle');
    for (const n of ready) {
      placed.add(n);
      order.push(n);
    }
  }
  return order;
}

/**
 * Whether `target` is upstream of `job`, searched only when asked and stopping at the first path:
 * admission asks this once per reference, and most references name a direct need.
 */
export function isUpstream(
  jobs: Record<string, NeedingJob | undefined>,
  job: string,
  target: string,
): boolean {
  if (jobs[job]?.needs?.includes(target)) return true;
  const seen = new Set<string>();
  const pending = [...(jobs[job]?.needs ?? [])];
  while (pending.length > 0) {
    const next = pending.pop() as string;
    if (next === target) return true;
    if (seen.has(next)) continue;
    seen.add(next);
    pending.push(...(jobs[next]?.needs ?? []));
  }
  return false;
}
