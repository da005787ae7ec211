// What a finished word does to the command frame it ends in (scan.ts): a `case`'s own words, a
// `[[ ]]` test's words, reserved words and assignments at command position, a command's arguments.
import { ASSIGNMENT, KEEPS_COMMAND_POSITION } from './commands.js';
import { Refusal, type CmdFrame, type TestState } from './frames.js';
import { REFUSALS } from './places.js';

const TEST_ARITH = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);

/** A word of a command frame has ended: what it does to the command being read. */
export function endWord(f: CmdFrame): void {
  const w = f.word;
  const holes = f.holes;
  f.word = '';
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
