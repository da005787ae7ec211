// The scanner's state (scan.ts): a stack of the quoting and nesting contexts bash is in at each
// character, and for each command frame what bash knows of the command being read.

/** Where a `case ... esac` stands: its word, `in`, a pattern, or a pattern's commands. */
export type CaseState = 'word' | 'in' | 'pattern' | 'body';

export interface TestState {
  words: string[];
  /** Holes in the test, by the index of their word. */
  holes: { hole: number; word: number }[];
}

export interface CmdFrame {
  t: 'cmd';
  /** `)` for `$(`, `<(`, `>(`; null at top level. */
  close: ')' | null;
  parens: number;
  /** The `case` commands open in this frame, innermost last. */
  cases: CaseState[];
  word: string;
  /**
   * The current word as bash will see it after quote removal, or null when that is not known before
   * it runs (an expansion, a value, a glob or brace pattern): `\let`, `'let'` and `l"e"t` are `let`.
   */
  value: string | null;
  /** Holes in the current word. */
  holes: number[];
  wordStart: boolean;
  /** The next word is read at command position, where bash recognises reserved words. */
  cmdPos: boolean;
  /** The next word is the target of a redirection, not an argument. */
  redirect: boolean;
  /** The words of the simple command read so far (its name first). */
  words: string[];
  /** The same words after quote removal (`value`). */
  values: (string | null)[];
  test: TestState | null;
}

export type Frame =
  | CmdFrame
  | { t: 'dq' }
  | { t: 'sq' }
  | { t: 'ansi' }
  | { t: 'bq' }
  | { t: 'comment' }
  | { t: 'param'; braces: number }
  | { t: 'arith'; parens: number; close: '))' | ']' }
  | { t: 'heredoc'; delimiter: string; quoted: boolean; stripTabs: boolean; line: string };

export interface Heredoc {
  delimiter: string;
  quoted: boolean;
  stripTabs: boolean;
}

export const cmd = (close: CmdFrame['close']): CmdFrame => ({
  t: 'cmd',
  close,
  parens: 0,
  cases: [],
  word: '',
  value: '',
  holes: [],
  wordStart: true,
  cmdPos: true,
  redirect: false,
  words: [],
  values: [],
  test: null,
});

/** Characters that end an unquoted word. */
export const BREAK = new Set([' ', '\t', '\n', ';', '&', '|', '<', '>', '(', ')']);

/** What is still open at the end of a script, by the kind of its innermost frame. */
export const OPEN: Record<Frame['t'], string> = {
  cmd: 'a $( ) without its )',
  dq: 'a double quote without its end',
  sq: 'a single quote without its end',
  ansi: "a $' without its end",
  bq: 'a backquote without its end',
  comment: 'a comment',
  param: 'a ${ without its }',
  arith: 'an arithmetic expression without its end',
  heredoc: 'a here-document without its delimiter line',
};

/** Why a value cannot stand where the scan found it: the hole, and the reason admission gives. */
export class Refusal {
  constructor(
    readonly hole: number,
    readonly reason: string,
  ) {}
}
