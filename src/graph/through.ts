// Admission of a changed Workflow looks both ways: below it (validateCallGraph from it) and above
// it, through the Workflows that call it, so that applying B (calling A) when A already calls B is
// refused, and so is a change that makes some caller's chain deeper than the maximum.
import { MAX_CALL_DEPTH } from '../limits.js';
import {
  calleesOf,
  depthError,
  validateCallGraphSync,
  type CallGraphResult,
  type CallingWorkflow,
} from './callgraph.js';

/** Names of the Workflows that call `name` directly, sorted. */
export function directCallers<W extends CallingWorkflow>(name: string, all: Map<string, W>): string[] {
  return [...all.entries()]
    .filter(([, wf]) => calleesOf(wf).includes(name))
    .map(([n]) => n)
    .sort();
}

/** The longest chain of callers ending in `name` (root first), ignoring cycles that avoid it. */
function deepestCallerChain<W extends CallingWorkflow>(name: string, all: Map<string, W>): string[] {
  const callers = new Map<string, string[]>();
  for (const [n, wf] of all) for (const c of calleesOf(wf)) callers.set(c, [...(callers.get(c) ?? []), n]);
  const memo = new Map<string, string[]>();
  const onPath = new Set<string>();
  const up = (n: string): string[] => {
    const known = memo.get(n);
    if (known) return known;
    onPath.add(n);
    let best: string[] = [n];
    for (const c of (callers.get(n) ?? []).sort()) {
      if (onPath.has(c)) continue;
      const chain = [...up(c), n];
      if (chain.length > best.length) best = chain;
    }
    onPath.delete(n);
    memo.set(n, best);
    return best;
  };
  return up(name);
}

/** The longest chain of callees starting at `name`; the graph below it must be acyclic. */
function deepestCalleeChain<W extends CallingWorkflow>(name: string, all: Map<string, W>): string[] {
  const memo = new Map<string, string[]>();
  const down = (n: string): string[] => {
    const known = memo.get(n);
    if (known) return known;
    let best: string[] = [n];
    const wf = all.get(n);
    for (const c of wf ? calleesOf(wf) : []) {
      const chain = [n, ...down(c)];
      if (chain.length > best.length) best = chain;
    }
    memo.set(n, best);
    return best;
  };
  return down(name);
}

/**
 * Validates `candidate` as it would stand among `others` (the namespace's Workflows; an old version
 * of `candidate` among them is replaced): cycles and depth below it, then depth through its deepest caller chain.
 * Missing Workflows are warnings (calls are late-bound).
 */
export function validateWorkflowInGraph<W extends CallingWorkflow>(
  name: string,
  candidate: W,
  others: ReadonlyMap<string, W>,
  maxDepth = MAX_CALL_DEPTH,
): CallGraphResult {
  // The one overlay: callers pass the namespace as cached, old version of `name` included.
  const all = new Map(others);
  all.set(name, candidate);
  const below = validateCallGraphSync(name, (n) => all.get(n), { missing: 'warning', maxDepth });
  if (below.error) return below;
  const up = deepestCallerChain(name, all);
  const down = deepestCalleeChain(name, all);
  if (up.length + down.length - 1 > maxDepth) {
    const path = [...up, ...down.slice(1)].slice(0, maxDepth + 1);
    return { error: depthError(path, maxDepth), path, warnings: below.warnings };
  }
  return below;
}
