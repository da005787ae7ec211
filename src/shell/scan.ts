// Where each `${{ }}` of a `run:` script stands, as bash will read it (docs/security.md, "Values
// never become shell code"). The scanner reads the script's text with every placeholder as an opaque
// hole and tells, for each hole, the quoting context its value lands in, or why no escaping can make
// a value safe there. Escaping (escape.ts) keeps each value context-neutral, so the contexts found
// on the template hold for the rendered script too.

import { REFUSALS, type Place, type Scan } from './places.js';

export { REFUSALS, type Place, type Scan } from './places.js';

const TEST_ARITH = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);
const HOLE = '\u0000';

interface TestState {
  words: string[];
  /** Holes in the test, by the index of their word. */
  holes: { hole: number; word: number }[];
}

interface CmdFrame {
  t: 'cmd';
  /** `)` for `$(`, `<(`, `>(`; null at top level. */
  close: ')' | null;
  parens: number;
  cases: number;
  word: string;
  /** Holes in the current word. */
  holes: number[];
  wordStart: boolean;
  test: TestState | null;
}
type Frame =
  | CmdFrame
  | { t: 'dq' }
  | { t: 'sq' }
  | { t: 'ansi' }
  | { t: 'bq' }
  | { t: 'comment' }
  | { t: 'param'; braces: number }
  | { t: 'arith'; parens: number; close: '))' | ']' }
  | { t: 'heredoc'; delimiter: string; quoted: boolean; stripTabs: boolean; line: string };

interface Heredoc {
  delimiter: string;
  quoted: boolean;
  stripTabs: boolean;
}

class Refusal {
  constructor(
    readonly hole: number,
    readonly reason: string,
  ) {}
}

const cmd = (close: CmdFrame['close']): CmdFrame => ({
  t: 'cmd',
  close,
  parens: 0,
  cases: 0,
  word: '',
  holes: [],
  wordStart: true,
  test: null,
});
const BREAK = new Set([' ', '\t', '\n', ';', '&', '|', '<', '>', '(', ')']);

/**
 * `texts` are the script's text around its holes: hole i stands between texts[i] and texts[i+1].
 */
export function scanShell(texts: readonly string[]): Scan {
  const s = new Scanner(texts);
  try {
    return { places: s.run() };
  } catch (e) {
    if (e instanceof Refusal) return { refused: { hole: e.hole, reason: e.reason } };
    throw e;
  }
}

class Scanner {
  private stack: Frame[] = [cmd(null)];
  private pending: Heredoc[] = [];
  private places: Place[] = [];
  /** The text being read, and the position in it. */
  private text = '';
  private i = 0;
  /** Index of the text being read: the next hole is hole `part`. */
  private part = 0;

  constructor(private readonly texts: readonly string[]) {}

  run(): Place[] {
    for (this.part = 0; this.part < this.texts.length; this.part++) {
      this.text = this.texts[this.part] as string;
      this.i = 0;
      while (this.i < this.text.length) this.step();
      if (this.part < this.texts.length - 1) this.hole();
    }
    const last = this.top;
    if (last.t === 'cmd') this.endWord(last);
    return this.places;
  }

  private get top(): Frame {
    return this.stack[this.stack.length - 1] as Frame;
  }

  private peek(offset = 0): string | undefined {
    return this.text[this.i + offset];
  }

  /** The text ends here and a hole follows it. */
  private atHole(offset: number): boolean {
    return this.i + offset >= this.text.length && this.part < this.texts.length - 1;
  }

  private step(): void {
    const f = this.top;
    const c = this.text[this.i] as string;
    if (c === '\\' && f.t !== 'sq' && !(f.t === 'heredoc' && f.quoted) && this.atHole(1))
      throw new Refusal(this.part, REFUSALS.backslash);
    switch (f.t) {
      case 'cmd':
        return this.cmdChar(f, c);
      case 'sq':
        this.i++;
        if (c === "'") this.stack.pop();
        return;
      case 'ansi':
      case 'bq':
        this.i += c === '\\' ? 2 : 1;
        if (c === (f.t === 'ansi' ? "'" : '`')) this.stack.pop();
        return;
      case 'dq':
        return this.quotedChar(c, '"');
      case 'comment':
        if (c === '\n') this.stack.pop();
        else this.i++;
        return;
      case 'param':
        return this.paramChar(f, c);
      case 'arith':
        return this.arithChar(f, c);
      case 'heredoc':
        return this.heredocChar(f, c);
    }
  }

  /** Inside double quotes (and an unquoted here-document body): only \, $ and ` are special. */
  private quotedChar(c: string, closer: string | null): void {
    if (c === '\\') this.i += 2;
    else if (c === closer) {
      this.i++;
      this.stack.pop();
    } else if (c === '$') this.dollar(false);
    else if (c === '`') {
      this.i++;
      this.stack.push({ t: 'bq' });
    } else this.i++;
  }

  private dollar(inCmd: boolean): void {
    const n = this.peek(1);
    if (n === undefined && this.atHole(1)) throw new Refusal(this.part, REFUSALS.dollar);
    if (n === '(' && this.peek(2) === '(') {
      this.i += 3;
      this.stack.push({ t: 'arith', parens: 0, close: '))' });
    } else if (n === '(') {
      this.i += 2;
      this.stack.push(cmd(')'));
    } else if (n === '{') {
      this.i += 2;
      this.stack.push({ t: 'param', braces: 0 });
    } else if (n === '[') {
      this.i += 2;
      this.stack.push({ t: 'arith', parens: 0, close: ']' });
    } else if (inCmd && n === "'") {
      this.i += 2;
      this.stack.push({ t: 'ansi' });
    } else if (inCmd && n === '"') {
      this.i += 2;
      this.stack.push({ t: 'dq' });
    } else this.i++;
  }

  private cmdChar(f: CmdFrame, c: string): void {
    if (c === '\\') {
      f.word += this.text.slice(this.i, this.i + 2);
      f.wordStart = false;
      this.i += 2;
      return;
    }
    if (BREAK.has(c)) return this.operator(f, c);
    if (c === '#' && f.wordStart) {
      this.i++;
      this.stack.push({ t: 'comment' });
      return;
    }
    f.word += c;
    f.wordStart = false;
    if (c === "'") {
      this.i++;
      this.stack.push({ t: 'sq' });
    } else if (c === '"') {
      this.i++;
      this.stack.push({ t: 'dq' });
    } else if (c === '`') {
      this.i++;
      this.stack.push({ t: 'bq' });
    } else if (c === '$') this.dollar(true);
    else this.i++;
  }

  private operator(f: CmdFrame, c: string): void {
    const atWordStart = f.wordStart;
    this.endWord(f);
    this.i++;
    if (c === '\n') return this.newline();
    if ((c === '<' || c === '>') && this.peek() === '(') {
      this.i++;
      this.stack.push(cmd(')'));
    } else if (c === '<' && this.peek() === '<' && this.peek(1) !== '<') {
      this.i++;
      this.heredocOperator();
    } else if (c === '<' && this.peek() === '<') this.i += 2;
    else if (c === '(' && atWordStart && this.peek() === '(') {
      this.i++;
      this.stack.push({ t: 'arith', parens: 0, close: '))' });
    } else if (c === '(') f.parens++;
    else if (c === ')') {
      if (f.cases > 0 && f.parens === 0) return;
      if (f.parens > 0) f.parens--;
      else if (f.close === ')') this.stack.pop();
    }
  }

  private endWord(f: CmdFrame): void {
    const w = f.word;
    const holes = f.holes;
    f.word = '';
    f.holes = [];
    f.wordStart = true;
    if (w === '') return;
    if (f.test) {
      if (w === ']]') return this.endTest(f, f.test);
      for (const hole of holes) f.test.holes.push({ hole, word: f.test.words.length });
      f.test.words.push(w);
      return;
    }
    if (w === '[[') f.test = { words: [], holes: [] };
    else if (w === 'case') f.cases++;
    else if (w === 'esac' && f.cases > 0) f.cases--;
  }

  private endTest(f: CmdFrame, t: TestState): void {
    f.test = null;
    for (const { hole, word } of t.holes)
      if (TEST_ARITH.has(t.words[word - 1] ?? '') || TEST_ARITH.has(t.words[word + 1] ?? ''))
        throw new Refusal(hole, REFUSALS.testArith);
  }

  private newline(): void {
    const docs = this.pending.reverse();
    this.pending = [];
    for (const d of docs) this.stack.push({ t: 'heredoc', ...d, line: '' });
  }

  /** After `<<`: an optional `-`, blanks, then the delimiter word, its quotes removed. */
  private heredocOperator(): void {
    let stripTabs = false;
    if (this.peek() === '-') {
      stripTabs = true;
      this.i++;
    }
    while (this.peek() === ' ' || this.peek() === '\t') this.i++;
    let delimiter = '';
    let quoted = false;
    for (;;) {
      const c = this.peek();
      if (c === undefined) {
        if (this.atHole(0)) throw new Refusal(this.part, REFUSALS.delimiter);
        break;
      }
      if (BREAK.has(c)) break;
      this.i++;
      if (c === '\\') {
        quoted = true;
        delimiter += this.peek() ?? '';
        this.i++;
      } else if (c === "'" || c === '"') {
        quoted = true;
        const end = this.text.indexOf(c, this.i);
        if (end < 0) throw new Refusal(this.part, REFUSALS.delimiter);
        delimiter += this.text.slice(this.i, end);
        this.i = end + 1;
      } else delimiter += c;
    }
    this.pending.push({ delimiter, quoted, stripTabs });
  }

  private heredocChar(f: Extract<Frame, { t: 'heredoc' }>, c: string): void {
    if (c === '\n') {
      const line = f.stripTabs ? f.line.replace(/^\t+/, '') : f.line;
      this.i++;
      f.line = '';
      if (line === f.delimiter) this.stack.pop();
      return;
    }
    const from = this.i;
    if (f.quoted) this.i++;
    else this.quotedChar(c, null);
    f.line += this.text.slice(from, this.i);
  }

  private paramChar(f: Extract<Frame, { t: 'param' }>, c: string): void {
    if (c === '}' && f.braces === 0) {
      this.i++;
      this.stack.pop();
    } else if (c === "'") {
      this.i++;
      this.stack.push({ t: 'sq' });
    } else if (c === '"') {
      this.i++;
      this.stack.push({ t: 'dq' });
    } else {
      if (c === '{') f.braces++;
      if (c === '}') f.braces--;
      this.quotedChar(c, null);
    }
  }

  private arithChar(f: Extract<Frame, { t: 'arith' }>, c: string): void {
    if (c === '(') f.parens++;
    else if (c === ')' && f.parens > 0) f.parens--;
    else if ((c === ')' && f.close === '))' && this.peek(1) === ')') || (c === ']' && f.close === ']')) {
      this.i += f.close.length;
      this.stack.pop();
      return;
    } else if (c === '"') {
      this.i++;
      this.stack.push({ t: 'dq' });
      return;
    }
    this.quotedChar(c, null);
  }

  private hole(): void {
    const hole = this.part;
    for (let k = this.stack.length - 1; k >= 0; k--) {
      const t = (this.stack[k] as Frame).t;
      if (t === 'comment' || t === 'arith' || t === 'param' || t === 'bq')
        throw new Refusal(hole, REFUSALS[t === 'bq' ? 'backquote' : t]);
    }
    const f = this.top;
    // The hole belongs to the word of the nearest command frame (quotes included), for [[ ]].
    const owner = [...this.stack].reverse().find((x): x is CmdFrame => x.t === 'cmd');
    if (owner && f.t !== 'heredoc') {
      owner.word += HOLE;
      owner.holes.push(hole);
    }
    switch (f.t) {
      case 'cmd':
        this.places.push({ kind: 'word', wordStart: f.wordStart, forceQuote: f.test?.words.at(-1) === '=~' });
        f.wordStart = false;
        return;
      case 'dq':
        this.places.push({ kind: 'double' });
        return;
      case 'sq':
        this.places.push({ kind: 'single' });
        return;
      case 'ansi':
        this.places.push({ kind: 'ansi' });
        return;
      case 'heredoc':
        f.line += HOLE;
        this.places.push({
          kind: 'heredoc',
          delimiter: f.delimiter,
          quoted: f.quoted,
          stripTabs: f.stripTabs,
        });
        return;
    }
  }
}
