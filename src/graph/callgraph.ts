// Call-graph validation of reusable Workflows (docs/specifications.md W9):
// missing references, cycles and the maximum nesting depth, checked by a depth-first traversal
// with the current name stack. One implementation for the CLI, the webhook and the controller;
// jobs are visited in sorted order so every caller reports the same first error.
import { MAX_CALL_DEPTH } from '../limits.js';

/** The part of a Workflow the graph needs: which Workflows its jobs call. */
export interface CallingWorkflow {
  spec?: { jobs?: Record<string, { uses?: string } | undefined> };
}

export type Lookup<W> = (name: string) => W | undefined;
export type AsyncLookup<W> = (name: string) => W | undefined | Promise<W | undefined>;

export interface CallGraphOptions {
  /**
   * What a reference to a Workflow that does not exist is: an `error` (CLI trigger, controller) or
   * a `warning` (admission: calls are late-bound and GitOps tools apply files in any order).
   */
  missing?: 'error' | 'warning';
  maxDepth?: number;
}

export interface CallGraphResult {
  /** The first error in sorted traversal order, or null. */
  error: string | null;
  /** The chain of Workflow names the error names, root first. */
  path?: string[];
  /** What the error is, for machine-readable reasons. */
  kind?: 'cycle' | 'notFound' | 'depth';
  /** Missing Workflows, when `missing` is `warning`. */
  warnings: string[];
}

export function cycleError(path: string[]): string {
  return `workflow call cycle: ${path.join(' -> ')}`;
}
export function notFoundError(path: string[]): string {
  return `workflow "${path[path.length - 1]}" not found: ${path.join(' -> ')}`;
}
export function depthError(path: string[], maxDepth = MAX_CALL_DEPTH): string {
  return `workflow call depth exceeds maximum ${maxDepth}: ${path.join(' -> ')}`;
}

// Informer caches replace an object on every change and never mutate it, so the callees of one
// object can be remembered for as long as the object lives.
const calleeCache = new WeakMap<object, string[]>();

/** The distinct Workflows a Workflow calls, in the order of its sorted job names. */
export function calleesOf(wf: CallingWorkflow): string[] {
  const known = calleeCache.get(wf);
  if (known) return known;
  const callees = computeCallees(wf);
  calleeCache.set(wf, callees);
  return callees;
}

function computeCallees(wf: CallingWorkflow): string[] {
  const jobs = wf.spec?.jobs ?? {};
  const seen = new Set<string>();
  for (const name of Object.keys(jobs).sort()) {
    const uses = jobs[name]?.uses;
    if (typeof uses === 'string' && uses.length > 0) seen.add(uses);
  }
  return [...seen];
}

class Stop {
  constructor(
    readonly error: string,
    readonly path: string[],
    readonly kind: 'cycle' | 'notFound' | 'depth',
  ) {}
}

/**
 * The traversal, written once as a generator that yields each name it needs and receives the
 * Workflow (or undefined), so one body serves synchronous caches and asynchronous API reads.
 */
function* traverse<W extends CallingWorkflow>(
  root: string,
  options: CallGraphOptions,
): Generator<string, CallGraphResult, W | undefined> {
  const maxDepth = options.maxDepth ?? MAX_CALL_DEPTH;
  const warnings: string[] = [];
  const loaded = new Map<string, W | undefined>();
  // Longest chain, in Workflows, below a fully explored Workflow: lets a diamond-shaped graph be
  // explored once instead of once per path, while an over-deep path is still explored to report it.
  const height = new Map<string, number>();
  const stack: string[] = [];

  function* visit(name: string): Generator<string, number, W | undefined> {
    let wf: W | undefined;
    if (loaded.has(name)) wf = loaded.get(name);
    else loaded.set(name, (wf = yield name));
    const path = [...stack, name];
    if (wf === undefined) {
      if (options.missing !== 'warning') throw new Stop(notFoundError(path), path, 'notFound');
      const w = notFoundError(path);
      if (!warnings.includes(w)) warnings.push(w);
      return 1;
    }
    stack.push(name);
    let h = 1;
    for (const callee of calleesOf(wf)) {
      if (stack.includes(callee)) throw new Stop(cycleError([...stack, callee]), [...stack, callee], 'cycle');
      const known = height.get(callee);
      if (known !== undefined && stack.length + known <= maxDepth) {
        h = Math.max(h, 1 + known);
        continue;
      }
      if (stack.length + 1 > maxDepth)
        throw new Stop(depthError([...stack, callee], maxDepth), [...stack, callee], 'depth');
      h = Math.max(h, 1 + (yield* visit(callee)));
    }
    stack.pop();
    height.set(name, h);
    return h;
  }

  try {
    yield* visit(root);
    return { error: null, warnings };
  } catch (e) {
    if (e instanceof Stop) return { error: e.error, path: e.path, kind: e.kind, warnings };
    throw e;
  }
}

/** Validates the graph rooted at `root`, reading Workflows through an asynchronous (or sync) lookup. */
export async function validateCallGraph<W extends CallingWorkflow>(
  root: string,
  lookup: AsyncLookup<W>,
  options: CallGraphOptions = {},
): Promise<CallGraphResult> {
  const it = traverse<W>(root, options);
  let step = it.next();
  while (!step.done) step = it.next(await lookup(step.value));
  return step.value;
}

/** The same validation over a synchronous lookup, such as an informer cache. */
export function validateCallGraphSync<W extends CallingWorkflow>(
  root: string,
  lookup: Lookup<W>,
  options: CallGraphOptions = {},
): CallGraphResult {
  const it = traverse<W>(root, options);
  let step = it.next();
  while (!step.done) {
    const wf = lookup(step.value);
    if (wf instanceof Promise) throw new TypeError('validateCallGraphSync needs a synchronous lookup');
    step = it.next(wf);
  }
  return step.value;
}
