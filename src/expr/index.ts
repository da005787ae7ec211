// The `${{ }}` expression language: one entry point for every caller.
import { ExprError } from './errors.js';
import { classifyReference, functionErrors, referencesOf, type Reference } from './references.js';
import { parseTemplate } from './template.js';

export { ExprError } from './errors.js';
export { evaluate, stringify, type Contexts, type Value, type ContextName } from './evaluate.js';
export { parseExpression, type Expr } from './parser.js';
export { referencesOf, classifyReference, type Reference, type RawReference } from './references.js';
export { parseTemplate, renderTemplate, renderPartial, hasExpressions, printExpr } from './template.js';
export type { PlacerFor, Segment } from './template.js';

export interface TemplateAnalysis {
  references: Reference[];
  /** Human-readable problems: parse errors, unknown functions or contexts, malformed references. */
  errors: string[];
}

/** Parses a template and lists what it reads, without evaluating anything. */
export function analyzeTemplate(source: string): TemplateAnalysis {
  const references: Reference[] = [];
  const errors: string[] = [];
  let segments;
  try {
    segments = parseTemplate(source);
  } catch (e) {
    if (e instanceof ExprError) return { references, errors: [e.message] };
    throw e;
  }
  for (const s of segments) {
    if (s.kind !== 'expr') continue;
    for (const e of functionErrors(s.expr, source)) errors.push(e.message);
    for (const raw of referencesOf(s.expr)) {
      const ref = classifyReference(raw);
      if (typeof ref === 'string') errors.push(new ExprError(ref, source, raw.start).message);
      else references.push(ref);
    }
  }
  return { references, errors };
}
