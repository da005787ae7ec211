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

// Character classes by code, not regular expressions: the lexer runs for every expression of
// every admission review.
const isDigit = (c: number) => c >= 48 && c <= 57;
const isIdentStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
// Hyphens belong to identifiers so job and step names such as `my-job` read naturally, as in
// GitHub Actions; the language has no subtraction to confuse them with.
const isIdentPart = (c: number) => isIdentStart(c) || isDigit(c) || c === 45;
const TWO_CHAR = new Set(['&&', '||', '==', '!=', '<=', '>=', '}}']);
const ONE_CHAR = new Set(['.', ',', '(', ')', '[', ']', '!', '<', '>']);
/** First characters of the operators and punctuation above. */
const PUNCTUATION_START = new Set([...TWO_CHAR, ...ONE_CHAR].map((t) => t.charCodeAt(0)));

/**
 * Tokenizes from `start` until the closing `}}` of the expression (returned as the last token) or
 * the end of the source (an `eof` token: the caller reports the unterminated expression).
 */
export function tokenize(source: string, start: number): Token[] {
  const tokens: Token[] = [];
  let i = start;
  while (i < source.length) {
    const code = source.charCodeAt(i);
    if (code === 32 || code === 9 || code === 10 || code === 13) {
      i++;
      continue;
    }
    const c = source[i] as string;
    const two = PUNCTUATION_START.has(code) ? c + (source[i + 1] ?? '') : '';
    if (two && TWO_CHAR.has(two)) {
      tokens.push({ kind: two as TokenKind, start: i, end: i + 2, value: two });
      i += 2;
      if (two === '}}') return tokens;
      continue;
    }
    if (two && ONE_CHAR.has(c)) {
      tokens.push({ kind: c as TokenKind, start: i, end: i + 1, value: c });
      i++;
      continue;
    }
    if (c === "'") {
      i = readString(source, i, tokens);
      continue;
    }
    if (isDigit(code) || (code === 45 && isDigit(source.charCodeAt(i + 1)))) {
      let j = i + 1;
      while (j < source.length && isDigit(source.charCodeAt(j))) j++;
      if (source[j] === '.' && isDigit(source.charCodeAt(j + 1))) {
        j += 2;
        while (j < source.length && isDigit(source.charCodeAt(j))) j++;
      }
      tokens.push({ kind: 'number', start: i, end: j, value: source.slice(i, j) });
      i = j;
      continue;
    }
    if (isIdentStart(code)) {
      let j = i + 1;
      while (j < source.length && isIdentPart(source.charCodeAt(j))) j++;
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
