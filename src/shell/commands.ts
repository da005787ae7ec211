// Words of a command where bash reads a value as a variable name or as arithmetic, whatever quoting
// it has: there `a[$(cmd)]` runs cmd, so no escaping makes a value safe (scan.ts asks at each hole).
import { REFUSALS } from './places.js';

/** Reserved words after which the next word is still at command position. */
export const KEEPS_COMMAND_POSITION = new Set([
  'if',
  'then',
  'else',
  'elif',
  'do',
  'while',
  'until',
  '!',
  '{',
  'time',
]);
/** `name=value`, `name+=value`, `name[...]=value`: an assignment before the command name. */
export const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;

/** Commands that evaluate their arguments as code or arithmetic. */
const EVALUATING = new Set(['eval', 'let']);
/** Commands whose plain arguments are variable names (with subscripts), and their options that take a value. */
const NAMING: Record<string, RegExp | null> = {
  read: /^-[A-Za-z]*[dinNptu]$/,
  mapfile: /^-[A-Za-z]*[dnOsuCc]$/,
  readarray: /^-[A-Za-z]*[dnOsuCc]$/,
  unset: null,
  declare: null,
  typeset: null,
  local: null,
};
const DECLARING = new Set(['declare', 'typeset', 'local']);
/** Attributes under which bash evaluates a declared value: integer, array, associative, nameref. */
const EVALUATING_ATTRIBUTE = /^[-+][A-Za-z]*[aAin]/;
/** Tests whose operand is a variable name. */
const NAME_TESTS = new Set(['-v', '-R']);

/** The command a simple command's words run: `builtin` and `command` pass on to the next word. */
function commandName(words: readonly string[]): { name: string; args: string[] } {
  let k = 0;
  while (words[k] === 'builtin' || words[k] === 'command') k++;
  return { name: words[k] ?? '', args: words.slice(k + 1) };
}

/**
 * Why a value cannot stand in the word that begins with `prefix` (the word's text before the hole,
 * quotes included), given the words of its command before it and, inside `[[ ]]`, the test's words.
 */
export function commandRefusal(
  words: readonly string[],
  prefix: string,
  testWords: readonly string[] | null,
): string | undefined {
  if (/^([A-Za-z_][A-Za-z0-9_]*)?\[[^\]]*$/.test(prefix)) return REFUSALS.subscript;
  if (testWords) return NAME_TESTS.has(testWords.at(-1) ?? '') ? REFUSALS.nameOperand : undefined;
  if (words.length === 0) return undefined;
  const { name, args } = commandName(words);
  const previous = args.at(-1) ?? '';
  const startsWord = prefix.replace(/\$?['"]/g, '') === '';
  if (EVALUATING.has(name)) return REFUSALS.evaluated;
  if ((name === '[' || name === 'test') && NAME_TESTS.has(previous)) return REFUSALS.nameOperand;
  if (name === 'printf' && previous === '-v') return REFUSALS.nameOperand;
  if (DECLARING.has(name) && args.some((a) => EVALUATING_ATTRIBUTE.test(a))) return REFUSALS.evaluated;
  if (name in NAMING && startsWord && !NAMING[name]?.test(previous)) return REFUSALS.nameOperand;
  return undefined;
}
