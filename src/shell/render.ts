// Rendering a `run:` script: every `${{ }}` value escaped for the shell context it stands in, in
// every pass (inputs at materialisation, `resource` in a Promise pipeline, outputs when the Run is
// made). Admission refuses the places where no escaping is safe, with the same words.
import { ExprError, parseTemplate, renderPartial, renderTemplate, type Contexts } from '../expr/index.js';
import type { ContextName } from '../expr/index.js';
import { escapeFor, ShellValueError } from './escape.js';
import { scanShell, type Place } from './scan.js';

export { ShellValueError } from './escape.js';

interface Layout {
  places: Place[];
  texts: string[];
}

/** The script's placeholders and the text around them; throws ShellValueError for a refused place. */
function layout(source: string): Layout {
  const texts = [''];
  for (const s of parseTemplate(source)) {
    if (s.kind === 'text') texts[texts.length - 1] += s.text;
    else texts.push('');
  }
  const scan = scanShell(texts);
  if ('refused' in scan)
    throw new ShellValueError(placeProblem(source, scan.refused.hole, scan.refused.reason));
  return { places: scan.places, texts };
}

function placeProblem(source: string, hole: number, reason: string): string {
  const expr = parseTemplate(source).filter((s) => s.kind === 'expr')[hole];
  return `${expr && expr.kind === 'expr' ? expr.text : 'a value'}: ${reason}`;
}

function placer(source: string, { places, texts }: Layout) {
  return (value: string, hole: number, before: string) => {
    try {
      return escapeFor(places[hole] as Place, value, {
        before,
        after: texts[hole + 1] ?? '',
        last: hole + 2 >= texts.length,
      });
    } catch (e) {
      if (e instanceof ShellValueError) throw new ShellValueError(placeProblem(source, hole, e.message));
      throw e;
    }
  };
}

/** Renders a script with every value in. Throws ExprError or ShellValueError. */
export function renderScript(source: string, contexts: Contexts): string {
  if (!source.includes('${{')) return source;
  return renderTemplate(source, contexts, placer(source, layout(source)));
}

/** Renders the values of the given contexts into a script and leaves the others for later. */
export function renderScriptPartial(
  source: string,
  contexts: Contexts,
  only: readonly ContextName[],
): string {
  if (!source.includes('${{')) return source;
  return renderPartial(source, contexts, only, placer(source, layout(source)));
}

/** Why a script's placeholders cannot all be escaped (admission), or none. Parse errors are not said here. */
export function scriptPlaceProblems(source: string): string[] {
  if (!source.includes('${{')) return [];
  try {
    layout(source);
    return [];
  } catch (e) {
    if (e instanceof ShellValueError) return [e.message];
    // Parse errors are reported by the expression checks.
    if (e instanceof ExprError) return [];
    throw e;
  }
}
