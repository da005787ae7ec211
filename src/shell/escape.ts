// Escaping a value for the place it lands in a bash script (scan.ts), so that bash reads exactly the
// value's bytes as data and leaves the script's structure as the template wrote it; every escape is
// one a POSIX sh (a container step's fallback) reads the same way. A value with no character that is
// special in its place is left as it is: plain values render as they always did.
import { ExprError } from '../expr/index.js';
import type { Place } from './scan.js';

/** An ExprError, so every pass that reports a value it cannot render reports this one too. */
export class ShellValueError extends ExprError {
  constructor(message: string) {
    super(message, '', 0);
    this.message = message;
    this.name = 'ShellValueError';
  }
}

/** What a value is placed between: the rendered line before it and the template text after it. */
export interface Surroundings {
  /** The rendered script up to the value (only its last line is read). */
  before: string;
  /** The template text that follows the value, up to the next value or the end. */
  after: string;
  /** True when no value follows `after` (it runs to the end of the script). */
  last: boolean;
}

/** Characters that mean nothing to bash in an unquoted word (Python's shlex.quote keeps these, less `=` and `,`). */
const PLAIN_WORD = /^[A-Za-z0-9_@%+:./-]+$/;
const RESERVED = new Set(
  '! case coproc do done elif else esac fi for function if in select then time until while { } [[ ]]'.split(
    ' ',
  ),
);
/**
 * Expands to nothing in an unquoted here-document, in bash and in POSIX sh alike: it keeps a line
 * from reading as the delimiter.
 */
export const HEREDOC_BREAK = '${-##*}';

export function escapeFor(place: Place, value: string, at: Surroundings): string {
  if (value.includes('\0'))
    throw new ShellValueError('the value holds a NUL character, which bash cannot carry');
  switch (place.kind) {
    case 'word':
      // A name the text after it turns into an assignment (`${{ v }}=x cmd`) is quoted: a value
      // never names the variable a command is run with.
      return word(
        value,
        place.wordStart,
        place.forceQuote || (place.wordStart && /^(\+?=|\[)/.test(at.after)),
      );
    case 'double':
      return value.replace(/[\\$`"]/g, '\\$&');
    case 'single':
      return value.replace(/'/g, "'\\''");
    case 'ansi':
      // As hex escapes, not `\'`: a POSIX sh (dash) reads `$'` as `$` and a single quote, where
      // `\'` would end the quote; `\x27` stays inside it there, and is exact in bash.
      return value.replace(/[\\']/g, (c) => (c === "'" ? '\\x27' : '\\x5c'));
    case 'heredoc':
      return heredoc(value, place, at);
  }
}

function word(value: string, wordStart: boolean, forceQuote: boolean): string {
  // An empty value that starts a word is an empty word: one placeholder, one argument. Left out,
  // the text after it would start the word (`#` a comment, `~` a home directory).
  if (value === '') return wordStart ? "''" : '';
  const plain = PLAIN_WORD.test(value) && !forceQuote && !(wordStart && RESERVED.has(value));
  return plain ? value : "'" + value.replace(/'/g, "'\\''") + "'";
}

function heredoc(value: string, place: Extract<Place, { kind: 'heredoc' }>, at: Surroundings): string {
  const parts = value.split('\n');
  const lineBefore = at.before.slice(at.before.lastIndexOf('\n') + 1);
  const nl = at.after.indexOf('\n');
  const lineAfter = nl < 0 ? at.after : at.after.slice(0, nl);
  const afterEndsLine = nl >= 0 || at.last;
  const strip = (s: string) => (place.stripTabs ? s.replace(/^\t+/, '') : s);
  return parts
    .map((part, i) => {
      let chunk = place.quoted ? part : part.replace(/[\\$`]/g, '\\$&');
      const head = i === 0 ? lineBefore : '';
      const isLast = i === parts.length - 1;
      const ends = (c: string) => {
        const line = strip(head + c + (isLast ? lineAfter : ''));
        return !isLast || afterEndsLine ? line === place.delimiter : place.delimiter.startsWith(line);
      };
      // `<<-` strips leading tabs from every line, the value's own included.
      const losesTabs = place.stripTabs && strip(head) === '' && chunk.startsWith('\t');
      if (!ends(chunk) && !losesTabs) return chunk;
      if (place.quoted)
        throw new ShellValueError(
          `the value would ${losesTabs ? 'lose its leading tabs in' : 'end'} the here-document <<${place.stripTabs ? '-' : ''}'${place.delimiter}'`,
        );
      chunk = HEREDOC_BREAK + chunk;
      if (ends(chunk))
        throw new ShellValueError(`the value would end the here-document <<${place.delimiter}`);
      return chunk;
    })
    .join('\n');
}
