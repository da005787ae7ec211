// Which inputs, job outputs and step outputs an expression reads, for admission-time checks.
import { ExprError } from './errors.js';
import { arityText, CONTEXT_NAMES, FUNCTIONS, pathText } from './evaluate.js';
import type { Expr } from './parser.js';

/** A chain such as `jobs.build.outputs.env` or `inputs['name']`, as far as it is static. */
export interface RawReference {
  context: string;
  /** Literal segments after the context name. */
  path: string[];
  /** True when an index that is not a literal cut the chain short (`jobs[inputs.x]`). */
  dynamic: boolean;
  start: number;
  end: number;
  text: string;
}

export type Reference =
  | { kind: 'input'; name: string }
  | { kind: 'jobOutput'; job: string; output: string }
  | { kind: 'stepOutput'; step: string; output: string }
  /** `resource.spec.size`: a path into the resource a Promise pipeline runs for. */
  | { kind: 'resource'; path: string[] };

/** Every reference chain in the expression, outermost first, left to right. */
export function referencesOf(expr: Expr): RawReference[] {
  const out: RawReference[] = [];
  walk(expr, out);
  return out;
}

function walk(e: Expr, out: RawReference[]): void {
  if (e.type === 'ident' || e.type === 'member' || e.type === 'index') {
    const chain = staticChain(e);
    if (chain) {
      out.push({
        context: chain.context,
        path: chain.path,
        dynamic: chain.dynamic,
        start: e.start,
        end: e.end,
        text: pathText(e),
      });
      for (const idx of chain.dynamicIndexes) walk(idx, out);
      return;
    }
  }
  switch (e.type) {
    case 'member':
      return walk(e.object, out);
    case 'index':
      walk(e.object, out);
      return walk(e.index, out);
    case 'not':
      return walk(e.operand, out);
    case 'binary':
      walk(e.left, out);
      return walk(e.right, out);
    case 'call':
      for (const a of e.args) walk(a, out);
      return;
    default:
      return;
  }
}

function staticChain(
  e: Expr,
): { context: string; path: string[]; dynamic: boolean; dynamicIndexes: Expr[] } | undefined {
  // Walk down to the root identifier, then read the chain forwards.
  const links: Expr[] = [];
  let node = e;
  while (node.type === 'member' || node.type === 'index') {
    links.push(node);
    node = node.object;
  }
  if (node.type !== 'ident') return undefined;
  const chain = { context: node.name, path: [] as string[], dynamic: false, dynamicIndexes: [] as Expr[] };
  for (let i = links.length - 1; i >= 0; i--) {
    const link = links[i] as Extract<Expr, { type: 'member' | 'index' }>;
    if (link.type === 'member') {
      if (!chain.dynamic) chain.path.push(link.property);
    } else if (!chain.dynamic && link.index.type === 'literal' && typeof link.index.value === 'string') {
      chain.path.push(link.index.value);
    } else {
      chain.dynamic = true;
      chain.dynamicIndexes.push(link.index);
    }
  }
  return chain;
}

/**
 * The meaning of a reference chain, or the reason it is not one of the allowed forms
 * `inputs.<name>`, `jobs.<job>.outputs.<name>`, `steps.<step>.outputs.<name>`, `resource.<path>`.
 */
export function classifyReference(ref: RawReference): Reference | string {
  const [a, b, c] = ref.path;
  if (!(CONTEXT_NAMES as readonly string[]).includes(ref.context))
    return `unknown context "${ref.context}" (expected ${CONTEXT_NAMES.join(', ')})`;
  if (ref.dynamic) return `"${ref.text}": a reference must name its ${ref.context} with literals`;
  if (ref.context === 'resource') {
    if (ref.path.length >= 1) return { kind: 'resource', path: ref.path };
    return `"${ref.text}": expected resource.<field>, such as resource.spec.size`;
  }
  if (ref.context === 'inputs') {
    if (ref.path.length === 1) return { kind: 'input', name: a as string };
    return `"${ref.text}": expected inputs.<name>`;
  }
  const what = ref.context === 'jobs' ? 'job' : 'step';
  if (ref.path.length !== 3 || b !== 'outputs')
    return `"${ref.text}": expected ${ref.context}.<${what}>.outputs.<name>`;
  return ref.context === 'jobs'
    ? { kind: 'jobOutput', job: a as string, output: c as string }
    : { kind: 'stepOutput', step: a as string, output: c as string };
}

/** Problems visible without any context: unknown functions, wrong argument counts. */
export function functionErrors(expr: Expr, source: string): ExprError[] {
  const errors: ExprError[] = [];
  const visit = (e: Expr): void => {
    switch (e.type) {
      case 'call': {
        const arity = FUNCTIONS[e.name];
        if (!arity) errors.push(new ExprError(`unknown function "${e.name}"`, source, e.start));
        else if (e.args.length < arity.min || e.args.length > arity.max)
          errors.push(
            new ExprError(`${e.name}() takes ${arityText(arity)}, got ${e.args.length}`, source, e.start),
          );
        e.args.forEach(visit);
        return;
      }
      case 'member':
        return visit(e.object);
      case 'index':
        visit(e.object);
        return visit(e.index);
      case 'not':
        return visit(e.operand);
      case 'binary':
        visit(e.left);
        return visit(e.right);
      default:
        return;
    }
  };
  visit(expr);
  return errors;
}
