// Evaluates an AST over the contexts `inputs`, `jobs.<job>.outputs`, `steps.<step>.outputs`.
// A reference to something that is not there is an error, never an empty string: docs/specifications.md W7:
// a missing reference fails the job before its dependents start.
import { ExprError } from './errors.js';
import type { Expr } from './parser.js';

export type Value = string | number | boolean | null | Value[] | { [key: string]: Value };

/** The contexts an expression may read. */
export interface Contexts {
  inputs?: Record<string, Value>;
  jobs?: Record<string, { outputs?: Record<string, Value> }>;
  steps?: Record<string, { outputs?: Record<string, Value> }>;
  /** The resource a Promise pipeline runs for (docs/design.md §4), rendered when its run is made. */
  resource?: Value;
}

export const CONTEXT_NAMES = ['inputs', 'jobs', 'steps', 'resource'] as const;
export type ContextName = (typeof CONTEXT_NAMES)[number];

export function evaluate(expr: Expr, contexts: Contexts, source: string): Value {
  const fail = (reason: string, at: Expr = expr): never => {
    throw new ExprError(reason, source, at.start);
  };
  const ev = (e: Expr): Value => evaluate(e, contexts, source);
  switch (expr.type) {
    case 'literal':
      return expr.value;
    case 'ident': {
      if (!(CONTEXT_NAMES as readonly string[]).includes(expr.name))
        return fail(`unknown context "${expr.name}" (expected ${CONTEXT_NAMES.join(', ')})`);
      const ctx = contexts[expr.name as ContextName];
      if (ctx === undefined) return fail(`context "${expr.name}" is not available here`);
      return ctx as Value;
    }
    case 'member':
      return property(ev(expr.object), expr.property, expr, source);
    case 'index': {
      const key = ev(expr.index);
      const obj = ev(expr.object);
      if (Array.isArray(obj) && typeof key === 'number') {
        if (!Number.isInteger(key) || key < 0 || key >= obj.length)
          return fail(`index ${key} is out of range`);
        return obj[key] as Value;
      }
      if (typeof key !== 'string') return fail(`index must be a string, got ${describe(key)}`, expr.index);
      return property(obj, key, expr, source);
    }
    case 'not':
      return !truthy(ev(expr.operand));
    case 'binary': {
      if (expr.op === '&&') {
        const l = ev(expr.left);
        return truthy(l) ? ev(expr.right) : l;
      }
      if (expr.op === '||') {
        const l = ev(expr.left);
        return truthy(l) ? l : ev(expr.right);
      }
      return compare(expr.op, ev(expr.left), ev(expr.right));
    }
    case 'call':
      return callFunction(expr, expr.args.map(ev), source);
  }
}

function property(obj: Value, key: string, at: Expr, source: string): Value {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj))
    throw new ExprError(`cannot read "${key}" of ${describe(obj)}`, source, at.start);
  if (!Object.prototype.hasOwnProperty.call(obj, key))
    throw new ExprError(`${pathText(at)} is not defined`, source, at.start);
  return obj[key] as Value;
}

/** `jobs.build.outputs.env` for a member chain of identifiers and literal indexes. */
export function pathText(e: Expr): string {
  switch (e.type) {
    case 'ident':
      return e.name;
    case 'member':
      return `${pathText(e.object)}.${e.property}`;
    case 'index':
      return `${pathText(e.object)}[${e.index.type === 'literal' ? JSON.stringify(e.index.value) : '...'}]`;
    default:
      return '(...)';
  }
}

export function truthy(v: Value): boolean {
  if (v === null) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0 && !Number.isNaN(v);
  if (typeof v === 'string') return v.length > 0;
  return true;
}

/** How a value reads when placed into a string: null is empty, objects are JSON. */
export function stringify(v: Value): string {
  if (v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

function describe(v: Value): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `${typeof v} ${JSON.stringify(v)}`;
}

function compare(op: string, l: Value, r: Value): boolean {
  // Values of different scalar types compare as strings: outputs are strings, literals may not be.
  const a = typeof l === typeof r ? l : stringify(l);
  const b = typeof l === typeof r ? r : stringify(r);
  switch (op) {
    case '==':
      return a === b || (typeof a === 'object' && JSON.stringify(a) === JSON.stringify(b));
    case '!=':
      return !(a === b || (typeof a === 'object' && JSON.stringify(a) === JSON.stringify(b)));
    case '<':
      return (a as string | number) < (b as string | number);
    case '<=':
      return (a as string | number) <= (b as string | number);
    case '>':
      return (a as string | number) > (b as string | number);
    default:
      return (a as string | number) >= (b as string | number);
  }
}

/** The functions of the language, with the number of arguments each takes. */
export const FUNCTIONS: Record<string, { min: number; max: number }> = {
  contains: { min: 2, max: 2 },
  startsWith: { min: 2, max: 2 },
  endsWith: { min: 2, max: 2 },
  format: { min: 1, max: 20 },
  toJSON: { min: 1, max: 1 },
};

function callFunction(expr: Extract<Expr, { type: 'call' }>, args: Value[], source: string): Value {
  const arity = FUNCTIONS[expr.name];
  if (!arity) throw new ExprError(`unknown function "${expr.name}"`, source, expr.start);
  if (args.length < arity.min || args.length > arity.max)
    throw new ExprError(`${expr.name}() takes ${arityText(arity)}, got ${args.length}`, source, expr.start);
  const s = (i: number) => stringify(args[i] as Value);
  switch (expr.name) {
    case 'contains': {
      const hay = args[0] as Value;
      if (Array.isArray(hay)) return hay.some((x) => compare('==', x, args[1] as Value));
      return s(0).toLowerCase().includes(s(1).toLowerCase());
    }
    case 'startsWith':
      return s(0).toLowerCase().startsWith(s(1).toLowerCase());
    case 'endsWith':
      return s(0).toLowerCase().endsWith(s(1).toLowerCase());
    case 'format':
      return s(0).replace(/\{\{|\}\}|\{(\d+)\}/g, (m, n: string | undefined) => {
        if (m === '{{') return '{';
        if (m === '}}') return '}';
        const i = Number(n) + 1;
        if (i >= args.length) throw new ExprError(`format() has no argument {${n}}`, source, expr.start);
        return s(i);
      });
    default:
      return JSON.stringify(args[0], null, 2);
  }
}

export function arityText(a: { min: number; max: number }): string {
  if (a.min === a.max) return `${a.min} argument${a.min === 1 ? '' : 's'}`;
  return `${a.min} to ${a.max} arguments`;
}
