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

/** Shells, whose `-c` takes a script. */
const SHELLS = new Set(['sh', 'bash', 'dash', 'ash', 'ksh', 'mksh', 'zsh']);

/**
 * Whether a shell given `args` reads its next word as a script: it is the first word after the
 * options, and one of them is `-c` (`-ec`, `-xc`, ...) or could be (a word from a variable).
 */
function nextIsScript(args: readonly (string | null)[]): boolean {
  let script = false;
  for (let k = 0; k < args.length; k++) {
    const a = args[k] as string | null;
    if (a === null) script = true;
    else if (a === '--') return script && k === args.length - 1;
    else if (/^[-+][oO]$/.test(a))
      k++; // -o pipefail: the option's own argument
    else if (/^[-+]/.test(a)) script ||= /^-[A-Za-z]*c/.test(a);
    else return false;
  }
  return script;
}

/**
 * The command a simple command runs, by the values of its words (quotes removed; null where only
 * the run knows): assignments before it are skipped, `builtin` and `command` pass on to the next.
 */
function commandName(
  words: readonly string[],
  values: readonly (string | null)[],
): { name: string | null; args: (string | null)[] } {
  let k = 0;
  while (k < words.length && ASSIGNMENT.test(words[k] as string)) k++;
  while (values[k] === 'builtin' || values[k] === 'command') {
    k++;
    while (values[k]?.startsWith('-')) k++;
  }
  return { name: k < values.length ? (values[k] as string | null) : '', args: values.slice(k + 1) };
}

/**
 * Why a value cannot stand in the word that begins with `prefix` (the word's text before the hole,
 * quotes included), given the words of its command before it and, inside `[[ ]]`, the test's words.
 */
export function commandRefusal(
  words: readonly string[],
  values: readonly (string | null)[],
  prefix: string,
  testWords: readonly string[] | null,
): string | undefined {
  if (/^([A-Za-z_][A-Za-z0-9_]*)?\[[^\]]*$/.test(prefix)) return REFUSALS.subscript;
  if (testWords) return NAME_TESTS.has(testWords.at(-1) ?? '') ? REFUSALS.nameOperand : undefined;
  if (words.length === 0) return undefined;
  const { name, args } = commandName(words, values);
  // A word known only when the script runs may be any command or option: eval, -v, -i.
  if (name === null) return REFUSALS.unknownCommand;
  const previous = args.length === 0 ? '' : (args.at(-1) as string | null);
  const startsWord = prefix.replace(/\$?['"]/g, '') === '';
  if (EVALUATING.has(name)) return REFUSALS.evaluated;
  if (SHELLS.has(name) && nextIsScript(args)) return REFUSALS.shellScript;
  if ((name === '[' || name === 'test') && (previous === null || NAME_TESTS.has(previous)))
    return REFUSALS.nameOperand;
  // printf reads options only before its format: -v must be its first word.
  if (name === 'printf' && args.length === 1 && (previous === null || previous === '-v'))
    return REFUSALS.nameOperand;
  if (DECLARING.has(name) && args.some((a) => a === null || EVALUATING_ATTRIBUTE.test(a)))
    return REFUSALS.evaluated;
  if (name in NAMING && startsWord && (previous === null || !NAMING[name]?.test(previous)))
    return REFUSALS.nameOperand;
  return undefined;
}
