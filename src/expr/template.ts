// Strings with `${{ <expr> }}` placeholders: parsing, full rendering and partial rendering.
import { ExprError } from './errors.js';
import { evaluate, stringify, type ContextName, type Contexts } from './evaluate.js';
import { parseExpression, type Expr } from './parser.js';
import { referencesOf } from './references.js';

export type Segment =
  { kind: 'text'; text: string } | { kind: 'expr'; expr: Expr; start: number; end: number; text: string };

const OPEN = '${{';

export function parseTemplate(source: string): Segment[] {
  const segments: Segment[] = [];
  let i = 0;
  while (i < source.length) {
    const open = source.indexOf(OPEN, i);
    if (open < 0) {
      segments.push({ kind: 'text', text: source.slice(i) });
      break;
    }
    if (open > i) segments.push({ kind: 'text', text: source.slice(i, open) });
    const { expr, end } = parseExpression(source, open + OPEN.length);
    segments.push({ kind: 'expr', expr, start: open, end, text: source.slice(open, end) });
    i = end;
  }
  return segments;
}

/** True when the string holds at least one `${{`. Cheap test before parsing. */
export function hasExpressions(source: string): boolean {
  return source.includes(OPEN);
}

/**
 * Puts a rendered value in its place: `hole` counts the placeholders of the source from 0 and
 * `before` is what has been rendered so far. Without one, values go in as they are.
 */
export type Placer = (value: string, hole: number, before: string) => string;

/** Makes the Placer of a template from its parsed segments (so it is parsed once). */
export type PlacerFor = (segments: Segment[]) => Placer;

/** Renders every placeholder; throws ExprError on a parse error or a missing reference. */
export function renderTemplate(source: string, contexts: Contexts, placeFor?: PlacerFor): string {
  if (!hasExpressions(source)) return source;
  const segments = parseTemplate(source);
  const place = placeFor?.(segments);
  let out = '';
  let hole = 0;
  for (const s of segments) {
    if (s.kind === 'text') out += s.text;
    else {
      const value = stringify(evaluate(s.expr, contexts, source));
      out += place ? place(value, hole, out) : value;
      hole++;
    }
  }
  return out;
}

/**
 * Renders only the placeholders that read nothing but the given contexts (for example `inputs`
 * when a template is materialized) and leaves every other placeholder for later. A placeholder that
 * mixes contexts keeps its place, with the known references replaced by string literals.
 */
export function renderPartial(
  source: string,
  contexts: Contexts,
  only: readonly ContextName[],
  placeFor?: PlacerFor,
): string {
  if (!hasExpressions(source)) return source;
  const segments = parseTemplate(source);
  const place = placeFor?.(segments);
  let out = '';
  let hole = 0;
  for (const s of segments) {
    if (s.kind === 'text') out += s.text;
    else {
      const refs = referencesOf(s.expr);
      const known = refs.filter((r) => only.includes(r.context as ContextName));
      if (known.length === 0) out += s.text;
      else if (known.length === refs.length) {
        const value = stringify(evaluate(s.expr, contexts, source));
        const data = asData(value, out.endsWith('$') || out.endsWith('${'));
        // A value kept as a literal placeholder is placed by the pass that renders it.
        out += data === value && place ? place(value, hole, out) : data;
      } else out += '${{ ' + printExpr(substitute(s.expr, only, contexts, source)) + ' }}';
      hole++;
    }
  }
  return out;
}

/**
 * A value placed into a string that a later pass renders again must stay data (docs/design.md §3,
 * "values are data"): pasted raw, `${{ steps.x.outputs.secret }}` in an input would be evaluated by
 * the next pass. A value that holds `$` or `{` (the only characters a placeholder opens with), or
 * an empty one after a `$` that the text which follows could complete, goes in as a string-literal
 * placeholder, which every later pass turns back into exactly these characters.
 */
function asData(value: string, afterDollar: boolean): string {
  const inert = value.length > 0 ? !/[${]/.test(value) : !afterDollar;
  return inert ? value : '${{ ' + printExpr({ type: 'literal', value, start: 0, end: 0 }) + ' }}';
}

/** Replaces each reference into a known context with the literal it evaluates to. */
function substitute(e: Expr, only: readonly ContextName[], contexts: Contexts, source: string): Expr {
  const root = rootIdent(e);
  if (
    (e.type === 'member' || e.type === 'index' || e.type === 'ident') &&
    root &&
    only.includes(root as ContextName)
  )
    return { type: 'literal', value: stringify(evaluate(e, contexts, source)), start: e.start, end: e.end };
  const sub = (x: Expr) => substitute(x, only, contexts, source);
  switch (e.type) {
    case 'index':
      return { ...e, object: sub(e.object), index: sub(e.index) };
    case 'member':
      return { ...e, object: sub(e.object) };
    case 'not':
      return { ...e, operand: sub(e.operand) };
    case 'binary':
      return { ...e, left: sub(e.left), right: sub(e.right) };
    case 'call':
      return { ...e, args: e.args.map(sub) };
    default:
      return e;
  }
}

function rootIdent(e: Expr): string | undefined {
  if (e.type === 'ident') return e.name;
  if (e.type === 'member' || e.type === 'index') return rootIdent(e.object);
  return undefined;
}

/** Prints an AST back to source text that parses to the same AST. */
export function printExpr(e: Expr): string {
  switch (e.type) {
    case 'literal':
      return typeof e.value === 'string' ? `'${e.value.replace(/'/g, "''")}'` : String(e.value);
    case 'ident':
      return e.name;
    case 'member':
      return `${printExpr(e.object)}.${e.property}`;
    case 'index':
      return `${printExpr(e.object)}[${printExpr(e.index)}]`;
    case 'call':
      return `${e.name}(${e.args.map(printExpr).join(', ')})`;
    case 'not':
      return `!${wrap(e.operand)}`;
    case 'binary':
      return `${wrap(e.left)} ${e.op} ${wrap(e.right)}`;
  }
}

function wrap(e: Expr): string {
  return e.type === 'binary' ? `(${printExpr(e)})` : printExpr(e);
}

export { ExprError };
