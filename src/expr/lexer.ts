// Tokens of the `${{ }}` expression language. Positions are offsets in the whole template string,
// so an error can point at the exact character a person wrote.
import { ExprError } from './errors.js';

export type TokenKind =
  | 'ident'
  | 'string'
  | 'number'
  | 'true'
  | 'false'
  | 'null'
  | '.'
  | ','
  | '('
  | ')'
  | '['
  | ']'
  | '!'
  | '&&'
  | '||'
  | '=='
  | '!='
  | '<'
  | '<='
  | '>'
  | '>='
  | '}}'
  | 'eof';

export interface Token {
  kind: TokenKind;
  /** Offset of the first character in the source. */
  start: number;
  /** Offset just past the last character. */
  end: number;
  /** The identifier name, the decoded string literal, or the number's text. */
  value: string;
}

const IDENT_START = /[A-Za-z_]/;
// Hyphens belong to identifiers so job and step names such as `my-job` read naturally, as in
// GitHub Actions; the language has no subtraction to confuse them with.
const IDENT_PART = /[A-Za-z0-9_-]/;
const TWO_CHAR = new Set(['&&', '||', '==', '!=', '<=', '>=', '}}']);
const ONE_CHAR = new Set(['.', ',', '(', ')', '[', ']', '!', '<', '>']);

/**
 * Tokenizes from `start` until the closing `}}` of the expression (returned as the last token) or
 * the end of the source (an `eof` token: the caller reports the unterminated expression).
 */
export function tokenize(source: string, start: number): Token[] {
  const tokens: Token[] = [];
  let i = start;
  while (i < source.length) {
    const c = source[i] as string;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    const two = source.slice(i, i + 2);
    if (TWO_CHAR.has(two)) {
      tokens.push({ kind: two as TokenKind, start: i, end: i + 2, value: two });
      i += 2;
      if (two === '}}') return tokens;
      continue;
    }
    if (ONE_CHAR.has(c)) {
      tokens.push({ kind: c as TokenKind, start: i, end: i + 1, value: c });
      i++;
      continue;
    }
    if (c === "'") {
      i = readString(source, i, tokens);
      continue;
    }
    if (/[0-9]/.test(c) || (c === '-' && /[0-9]/.test(source[i + 1] ?? ''))) {
      const m = /^-?[0-9]+(\.[0-9]+)?/.exec(source.slice(i)) as RegExpExecArray;
      tokens.push({ kind: 'number', start: i, end: i + m[0].length, value: m[0] });
      i += m[0].length;
      continue;
    }
    if (IDENT_START.test(c)) {
      let j = i + 1;
      while (j < source.length && IDENT_PART.test(source[j] as string)) j++;
      const word = source.slice(i, j);
      const kind: TokenKind = word === 'true' || word === 'false' || word === 'null' ? word : 'ident';
      tokens.push({ kind, start: i, end: j, value: word });
      i = j;
      continue;
    }
    throw new ExprError(`unexpected character ${JSON.stringify(c)}`, source, i);
  }
  tokens.push({ kind: 'eof', start: source.length, end: source.length, value: '' });
  return tokens;
}

/** A string literal in single quotes; a doubled quote `''` stands for one quote. */
function readString(source: string, open: number, tokens: Token[]): number {
  let value = '';
  let j = open + 1;
  for (;;) {
    if (j >= source.length) throw new ExprError('unterminated string literal', source, open);
    const ch = source[j] as string;
    if (ch === "'") {
      if (source[j + 1] === "'") {
        value += "'";
        j += 2;
        continue;
      }
      tokens.push({ kind: 'string', start: open, end: j + 1, value });
      return j + 1;
    }
    value += ch;
    j++;
  }
}
