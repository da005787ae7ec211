// Where each `${{ }}` of a `run:` script stands, as bash will read it (docs/security.md, "Values
// never become shell code"). The scanner reads the script's text with every placeholder as an opaque
// hole and tells, for each hole, the quoting context its value lands in, or why no escaping can make
// a value safe there. Escaping (escape.ts) keeps each value context-neutral, so the contexts found
// on the template hold for the rendered script too.

import { commandRefusal } from './commands.js';
import { BREAK, cmd, OPEN, Refusal, type CmdFrame, type Frame, type Heredoc } from './frames.js';
import { endWord, makesPattern, quotedValue } from './words.js';
import { REFUSALS, type Place, type Scan } from './places.js';

export { REFUSALS, type Place, type Scan } from './places.js';

const HOLE = '\u0000';
const QUOTES = new Set<Frame['t']>(['sq', 'dq', 'ansi']);
/** Whether a line of a here-document's body is its delimiter line (`<<-` strips its tabs first). */
const endsHeredoc = (f: Extract<Frame, { t: 'heredoc' }>, line: string) =>
  (f.stripTabs ? line.replace(/^\t+/, '') : line) === f.delimiter;

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
    this.end();
    return this.places;
  }

  /**
   * The script's end: where bash would still be inside a quote, a substitution, a `case` or a test,
   * the scan has lost its place, and the places it found cannot be trusted.
   */
  private end(): void {
    const f = this.top;
    // The last line of a here-document or a comment needs no newline after it.
    if (f.t === 'heredoc' && endsHeredoc(f, f.line)) this.stack.pop();
    else if (f.t === 'comment') this.stack.pop();
    const last = this.top;
    if (last.t === 'cmd') endWord(last);
    if (this.stack.length > 1) this.unbalanced(OPEN[last.t]);
    const top = this.top as CmdFrame;
    if (top.cases.length > 0) this.unbalanced('a case without its esac');
    if (top.test) this.unbalanced('a [[ without its ]]');
    if (top.parens > 0) this.unbalanced('a ( without its )');
    if (this.pending.length > 0) this.unbalanced('a here-document without its body');
  }

  private unbalanced(what: string): void {
    if (this.texts.length > 1) throw new Refusal(0, REFUSALS.unbalanced(what));
  }

  /** Adds to the value of the word being read (null: its value is not known before it runs). */
  private literal(text: string | null): void {
    // Only quotes may stand between a word and its characters: inside a here-document or an
    // expansion, they are not the word's (and an expansion in a word has made it unknown already).
    let k = this.stack.length - 1;
    while (QUOTES.has((this.stack[k] as Frame).t)) k--;
    const owner = this.stack[k] as Frame;
    if (owner.t === 'cmd') owner.value = text === null || owner.value === null ? null : owner.value + text;
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
        else this.literal(c);
        return;
      case 'ansi':
        if (c === '\\') this.literal(null);
        else if (c !== "'") this.literal(c);
      // falls through: both skip an escaped character and end at their closing character
      case 'bq':
        this.i += c === '\\' ? 2 : 1;
        if (c === (f.t === 'ansi' ? "'" : '`')) this.stack.pop();
        return;
      case 'dq':
        this.literal(quotedValue(c, this.peek(1)));
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
    // An expansion: the word it stands in is known only when the script runs.
    if (inCmd && n !== "'" && n !== '"') this.literal(null);
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
    // A line continuation is removed before bash reads words: what follows it continues the word,
    // or starts one (a `#` after it begins a comment).
    if (c === '\\' && this.peek(1) === '\n') {
      this.i += 2;
      return;
    }
    if (c === '\\') {
      f.word += this.text.slice(this.i, this.i + 2);
      this.literal(this.peek(1) ?? '');
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
    // Quotes add nothing themselves, and dollar() knows whether a `$` begins an expansion.
    if (c === '`' || makesPattern(c, f.value)) this.literal(null);
    else if (c !== "'" && c !== '"' && c !== '$') this.literal(c);
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
    endWord(f);
    this.i++;
    if (c === '<' || c === '>') return this.redirection(f, c);
    const pattern = f.cases.at(-1) === 'pattern';
    if (c === ' ' || c === '\t') return;
    if (c === '|' && pattern) return;
    if (c === '&' && this.peek() === '>') {
      this.i += this.peek(1) === '>' ? 2 : 1;
      f.redirect = true;
      return;
    }
    this.command(f);
    if (c === '\n') return this.newline();
    if (c === ';' && (this.peek() === ';' || this.peek() === '&')) {
      this.i += this.peek() === ';' && this.peek(1) === '&' ? 2 : 1;
      if (f.cases.at(-1) === 'body') f.cases[f.cases.length - 1] = 'pattern';
    } else if (c === '(' && pattern) return;
    else if (c === '(' && atWordStart && this.peek() === '(') {
      this.i++;
      f.value = null;
      this.stack.push({ t: 'arith', parens: 0, close: '))' });
    } else if (c === '(') f.parens++;
    else if (c === ')') this.closeParen(f, pattern);
  }

  /** A new simple command starts: its first word is at command position. */
  private command(f: CmdFrame): void {
    f.cmdPos = true;
    f.words = [];
    f.values = [];
  }

  private closeParen(f: CmdFrame, pattern: boolean): void {
    if (pattern && f.parens === 0) f.cases[f.cases.length - 1] = 'body';
    else if (f.parens > 0) f.parens--;
    else if (f.close === ')') this.stack.pop();
    else this.unbalanced('a ) that closes nothing');
  }

  /** After `<` or `>`: a process substitution, a here-document, or a redirection's target. */
  private redirection(f: CmdFrame, c: string): void {
    if (this.peek() === '(') {
      this.i++;
      this.stack.push(cmd(')'));
    } else if (c === '<' && this.peek() === '<' && this.peek(1) !== '<') {
      this.i++;
      this.heredocOperator();
    } else {
      if (c === '<' && this.peek() === '<') this.i += 2;
      else if (this.peek() === c || this.peek() === '&' || this.peek() === '|' || this.peek() === '>')
        this.i++;
      f.redirect = true;
    }
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
      this.i++;
      const line = f.line;
      f.line = '';
      if (endsHeredoc(f, line)) this.stack.pop();
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
      const refusal = commandRefusal(owner.words, owner.values, owner.word, owner.test?.words ?? null);
      if (refusal) throw new Refusal(hole, refusal);
      owner.word += HOLE;
      owner.value = null;
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
