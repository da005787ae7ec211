// What a word's characters add to its value after quote removal, and what a finished word does to
// the command frame it ends in (scan.ts): a `case`'s own words, a `[[ ]]` test's words, reserved
// words and assignments at command position, a command's arguments.
import { ASSIGNMENT, KEEPS_COMMAND_POSITION } from './commands.js';
import { Refusal, type CmdFrame, type TestState } from './frames.js';
import { REFUSALS } from './places.js';

/**
 * Whether an unquoted character makes the word a glob or brace pattern, whose words are known only
 * when it runs (`[` alone is the test command, `{` alone a reserved word).
 */
export const makesPattern = (c: string, value: string | null) =>
  c === '*' || c === '?' || (c === ']' && !!value?.includes('[')) || (c === '}' && !!value?.includes('{'));

/** What a character inside double quotes adds to its word's value (`next` follows it). */
export function quotedValue(c: string, next: string | undefined): string | null {
  if (c === '$' || c === '`') return null;
  if (c === '"') return '';
  if (c !== '\\') return c;
  if (next === '\n') return '';
  return next !== undefined && '$`"\\'.includes(next) ? next : c + (next ?? '');
}

const TEST_ARITH = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);

/** A word of a command frame has ended: what it does to the command being read. */
export function endWord(f: CmdFrame): void {
  const w = f.word;
  const value = f.value;
  const holes = f.holes;
  f.word = '';
  f.value = '';
  f.holes = [];
  f.wordStart = true;
  if (w === '') return;
  if (f.redirect) {
    f.redirect = false;
    return;
  }
  if (f.test) {
    if (w === ']]') return endTest(f, f.test);
    for (const hole of holes) f.test.holes.push({ hole, word: f.test.words.length });
    f.test.words.push(w);
    return;
  }
  if (caseWord(f, w)) return;
  if (f.cmdPos) {
    if (w === 'case') {
      f.cases.push('word');
      f.cmdPos = false;
      return;
    }
    if (w === '[[') {
      f.test = { words: [], holes: [] };
      f.cmdPos = false;
      return;
    }
    if (KEEPS_COMMAND_POSITION.has(w)) return;
    if (!ASSIGNMENT.test(w)) f.cmdPos = false;
  }
  f.words.push(w);
  f.values.push(value);
}

/** A word read as part of a `case` command's own syntax; false for the commands inside it. */
function caseWord(f: CmdFrame, w: string): boolean {
  const at = f.cases.length - 1;
  const state = f.cases[at];
  if (state === 'word') f.cases[at] = 'in';
  else if (state === 'in') f.cases[at] = 'pattern';
  else if (state === 'pattern' || (state === 'body' && f.cmdPos && w === 'esac')) {
    if (w === 'esac') {
      f.cases.pop();
      f.cmdPos = false;
    }
  } else return false;
  return true;
}

function endTest(f: CmdFrame, t: TestState): void {
  f.test = null;
  for (const { hole, word } of t.holes)
    if (TEST_ARITH.has(t.words[word - 1] ?? '') || TEST_ARITH.has(t.words[word + 1] ?? ''))
      throw new Refusal(hole, REFUSALS.testArith);
}
