// Rendering a `run:` script: every `${{ }}` value escaped for the shell context it stands in, in
// every pass (inputs at materialisation, `resource` in a Promise pipeline, outputs when the Run is
// made). Admission refuses the places where no escaping is safe, with the same words.
import {
  ExprError,
  hasExpressions,
  parseTemplate,
  renderPartial,
  renderTemplate,
  type ContextName,
  type Contexts,
  type PlacerFor,
  type Segment,
} from '../expr/index.js';
import { escapeFor, ShellValueError } from './escape.js';
import { scanShell, type Place } from './scan.js';

export { ShellValueError } from './escape.js';

/** The text around each placeholder of a parsed script, and the expressions' source texts. */
function split(segments: Segment[]): { texts: string[]; exprs: string[] } {
  const texts = [''];
  const exprs: string[] = [];
  for (const s of segments) {
    if (s.kind === 'text') texts[texts.length - 1] += s.text;
    else {
      exprs.push(s.text);
      texts.push('');
    }
  }
  return { texts, exprs };
}

const named = (exprs: string[], hole: number, reason: string) => `${exprs[hole] ?? 'a value'}: ${reason}`;

/** Each value escaped for its place; throws ShellValueError for a place where none can be. */
const placeFor: PlacerFor = (segments) => {
  const { texts, exprs } = split(segments);
  const scan = scanShell(texts);
  if ('refused' in scan) throw new ShellValueError(named(exprs, scan.refused.hole, scan.refused.reason));
  const { places } = scan;
  return (value, hole, before) => {
    try {
      return escapeFor(places[hole] as Place, value, {
        before,
        after: texts[hole + 1] ?? '',
        last: hole + 2 >= texts.length,
      });
    } catch (e) {
      if (e instanceof ShellValueError) throw new ShellValueError(named(exprs, hole, e.message));
      throw e;
    }
  };
};

/** Renders a script with every value in. Throws ExprError or ShellValueError. */
export function renderScript(source: string, contexts: Contexts): string {
  return renderTemplate(source, contexts, placeFor);
}

/** Renders the values of the given contexts into a script and leaves the others for later. */
export function renderScriptPartial(
  source: string,
  contexts: Contexts,
  only: readonly ContextName[],
): string {
  return renderPartial(source, contexts, only, placeFor);
}

/** Why a script's placeholders cannot all be escaped (admission), or none. Parse errors are not said here. */
export function scriptPlaceProblems(source: string): string[] {
  if (!hasExpressions(source)) return [];
  try {
    placeFor(parseTemplate(source));
    return [];
  } catch (e) {
    if (e instanceof ShellValueError) return [e.message];
    // Parse errors are reported by the expression checks.
    if (e instanceof ExprError) return [];
    throw e;
  }
}
