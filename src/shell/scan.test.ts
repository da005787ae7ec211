// Where the scanner could lose its place (a `case` that is only an argument, an unbalanced script)
// and the words bash evaluates whatever their quoting (subscripts, variable names, eval and let); and
// the escaping run by a POSIX sh (dash, the fallback of a Pod step without bash), and generated
// scripts that hold all of these, run by both shells: refused at admission, or no value runs.
import { afterAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { renderScript, scriptPlaceProblems } from './render.js';
import { REFUSALS } from './scan.js';
import { BASH_ONLY, CONTEXTS, HOSTILE, runShell } from './shells.testing.js';

const dir = mkdtempSync(join(tmpdir(), 'krt-scan-'));
const CANARY = join(dir, 'canary');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const render = (template: string, v: string) => renderScript(template, { inputs: { v } } as never);
const V = '${{ inputs.v }}';

const WORK = join(dir, 'work');

/**
 * The rendered script run by `shell` in an empty folder: what it printed, and whether a value ran
 * (the canary touched, or any file made in the folder: a value escaped for a place it does not
 * stand in runs as `touch \"\$CANARY\"`, which makes a file of that name).
 */
function run(shell: 'bash' | 'dash', script: string) {
  rmSync(CANARY, { force: true });
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK);
  const r = runShell(shell, script, { CANARY }, WORK);
  return { ...r, ran: existsSync(CANARY) || readdirSync(WORK).length > 0 };
}

describe('a `case` that is not a command does not move the scan', () => {
  const attack = '$(touch "$CANARY")';
  it.each([
    ['an argument in $( ) in double quotes', `kind="$(echo case | tr a-z A-Z)"\nprintf '%s' "hello ${V}"`],
    ['an argument in $( ), then a word', `printf '%s' "$(echo case)" ${V}`],
    ['a case word inside $( )', `x=$(printf case); printf '%s' "${V}"`],
    ['esac as an argument', `echo esac >/dev/null; printf '%s' "${V}"`],
  ])('%s', (_, template) => {
    expect(scriptPlaceProblems(template)).toEqual([]);
    const r = run('bash', render(template, attack));
    expect(r.ran).toBe(false);
    expect(r.stdout).toContain(attack);
  });

  it('a real case inside $( ), with patterns in parentheses and ;& , still closes', () => {
    const template = `x=$(case a in (a) echo A;& b|c) echo B;; esac); printf '%s' "$x ${V}"`;
    expect(scriptPlaceProblems(template)).toEqual([]);
    expect(run('bash', render(template, attack))).toMatchObject({ stdout: `A\nB ${attack}`, ran: false });
  });
});

describe('a script the scan cannot follow to its end is refused', () => {
  it.each([
    ['an open double quote', `echo "${V}`, 'a double quote without its end'],
    ['an open $( )', `x=$(echo ${V}`, 'a $( ) without its )'],
    ['a case without esac', `case a in b) echo ${V};;`, 'a case without its esac'],
    ['a ) that closes nothing', `echo ${V} )`, 'a ) that closes nothing'],
    ['an open [[', `[[ ${V} == x`, 'a [[ without its ]]'],
  ])('%s', (_, script, what) => {
    expect(scriptPlaceProblems(script)).toEqual([`${V}: ${REFUSALS.unbalanced(what)}`]);
  });

  it('a line continuation is read as bash reads it: a # after it starts a comment', () => {
    expect(scriptPlaceProblems(`echo a \\\n# ${V}`)).toEqual([`${V}: ${REFUSALS.comment}`]);
    expect(render(`printf '%s' a\\\n${V}`, 'b c')).toBe(`printf '%s' a\\\n'b c'`);
  });

  it('a here-document or a comment that ends the script needs no newline', () => {
    expect(scriptPlaceProblems(`cat <<EOF\n${V}\nEOF`)).toEqual([]);
    expect(scriptPlaceProblems(`echo "${V}" # done`)).toEqual([]);
  });
});

describe('words bash evaluates, whatever their quoting, are refused', () => {
  it.each([
    ['an assignment subscript', `a[${V}]=1`, REFUSALS.subscript],
    ['a quoted assignment subscript', `a["${V}"]=1`, REFUSALS.subscript],
    ['a compound assignment subscript', `a=([${V}]=1)`, REFUSALS.subscript],
    ['a [[ -v ]] operand', `[[ -v ${V} ]]`, REFUSALS.nameOperand],
    ['a [[ -R ]] operand, quoted', `[[ -R "${V}" ]]`, REFUSALS.nameOperand],
    ['a [ -v ] operand', `[ -v "${V}" ]`, REFUSALS.nameOperand],
    ['a test -v operand', `test -v x${V}`, REFUSALS.nameOperand],
    ['printf -v', `printf -v ${V} x`, REFUSALS.nameOperand],
    ['a name for read', `read -r ${V} </dev/null`, REFUSALS.nameOperand],
    ['a name for mapfile', `mapfile -t "${V}" </dev/null`, REFUSALS.nameOperand],
    ['a name for unset', `unset ${V}`, REFUSALS.nameOperand],
    ['a name for declare', `declare "${V}"`, REFUSALS.nameOperand],
    ['let', `let "n = ${V}"`, REFUSALS.evaluated],
    ['eval', `eval "echo ${V}"`, REFUSALS.evaluated],
    ['builtin eval', `builtin eval ${V}`, REFUSALS.evaluated],
    ['declare -i', `declare -i n=${V}`, REFUSALS.evaluated],
    ['local -n', `f() { local -n r="${V}"; }`, REFUSALS.evaluated],
    ['declare -a', `declare -a x='${V}'`, REFUSALS.evaluated],
    ['an escaped let', `\\let ${V}`, REFUSALS.evaluated],
    ['a quoted let', `'let' ${V}`, REFUSALS.evaluated],
    ['a let quoted in pieces', `l"e"t ${V}`, REFUSALS.evaluated],
    ["an eval in $' '", `$'eval' ${V}`, REFUSALS.evaluated],
    ['let after an assignment', `X=1 let ${V}`, REFUSALS.evaluated],
    ['command -p eval', `command -p eval ${V}`, REFUSALS.evaluated],
    ['declare with a quoted -i', `declare "-i" n=${V}`, REFUSALS.evaluated],
    ['declare with options from a variable', `declare $o n=${V}`, REFUSALS.evaluated],
    ['a [ ] operand after a quoted -v', `[ "-v" ${V} ]`, REFUSALS.nameOperand],
    ['a [ ] operand after an operator from a variable', `[ $op ${V} ]`, REFUSALS.nameOperand],
    ['a command named by a variable', `$c ${V}`, REFUSALS.unknownCommand],
    ['a command named by a substitution', `"$(echo let)" ${V}`, REFUSALS.unknownCommand],
    ['a command named by a brace pattern', `{let,} ${V}`, REFUSALS.unknownCommand],
    ['a command named by a glob', `le? ${V}`, REFUSALS.unknownCommand],
    ['a script for bash -c', `bash -c ${V}`, REFUSALS.shellScript],
    ['a script for sh -ec, quoted', `sh -ec "${V}"`, REFUSALS.shellScript],
    [
      'eval after a here-document with quotes in an expansion',
      `cat <<EOF\n\${x:-"ab"}\nEOF\neval ${V}`,
      REFUSALS.evaluated,
    ],
    ['a script for bash -c after more options', `bash -c -o pipefail -v -- ${V}`, REFUSALS.shellScript],
  ])('%s', (_, script, reason) => {
    expect(scriptPlaceProblems(script)).toEqual([`${V}: ${reason}`]);
  });

  it.each([
    ['a prompt for read', `read -r -p "${V}" x </dev/null`],
    ['a local value', `f() { local x=${V}; }`],
    ['an exported value', `export X="${V}"`],
    ['-v of another command', `curl -v ${V}`],
    ['brackets in quotes', `echo "[${V}]"`],
    ['a subscript after the hole', `echo ${V}[0]`],
    ['a redirection target', `printf '%s' "${V}" > out`],
    ['a [ ] comparison', `[ ${V} = x ]`],
    ['a quoted command name', `"printf" '%s' ${V}`],
    ['an argument after a bash -c script', `bash -c 'printf %s "$1"' _ ${V}`],
    ['a script file for bash', `bash -e ./build.sh ${V}`],
    ['an assignment from a variable, then a command', `X=$Y printf '%s' ${V}`],
  ])('%s is not refused', (_, script) => {
    expect(scriptPlaceProblems(script)).toEqual([]);
  });

  it('each refused word does run code in bash, so the refusal is needed', () => {
    const attack = 'a[$(touch "$CANARY")]';
    for (const script of [
      `a[${V}]=1`,
      `[[ -v ${V} ]]`,
      `[ -v ${V} ]`,
      `let ${V}`,
      `declare -i n=${V}`,
      `read -r ${V} </dev/null`,
      `\\let ${V}`,
      `X=1 let ${V}`,
      `declare "-i" n=${V}`,
      `[ "-v" ${V} ]`,
      `{let,} ${V}`,
      `bash -c ${V}`,
    ]) {
      const raw = script.replace(V, `'${attack}'`);
      expect({ script, ran: run('bash', raw).ran }).toEqual({ script, ran: true });
    }
  });
});

describe('under a POSIX sh (dash) the escaping holds too', () => {
  for (const [where, template, expected] of CONTEXTS) {
    const t = template.replace(/\$\{\{ v \}\}/g, V);
    it(`${where}: ${BASH_ONLY.has(where) ? 'no value runs' : 'exactly the bytes'}`, () => {
      for (const [, value] of HOSTILE) {
        let script: string;
        try {
          script = render(t, value);
        } catch {
          continue; // refused at render (a quoted here-document's delimiter): never run
        }
        const r = run('dash', script);
        expect({ value, ran: r.ran }).toEqual({ value, ran: false });
        if (!BASH_ONLY.has(where) && where !== 'a case pattern')
          expect({ value, stdout: r.stdout, status: r.status }).toEqual({
            value,
            stdout: expected(value),
            status: 0,
          });
      }
    });
  }
});

/** Pieces of bash that move the scan: quotes, substitutions, case, tests, subscripts, here-documents. */
const PIECES = [
  'echo ',
  'printf %s ',
  'case ',
  ' in ',
  'a) ',
  '(b) ',
  ';; ',
  ' esac',
  'esac ',
  '$(',
  ')',
  '(',
  '"',
  "'",
  '`',
  ' x',
  ';',
  '\n',
  '|',
  '&& ',
  'a[',
  ']=1 ',
  'a=(',
  '[[ ',
  ' ]]',
  '-v ',
  '[ ',
  ' ]',
  'let ',
  "'let' ",
  'X=1 ',
  'bash -c ',
  '{let,} ',
  'declare ',
  'read ',
  'cat <<EOF\n',
  '\nEOF\n',
  '# ',
  '$((',
  '${',
  '}',
  "$'",
  '\\',
  '=',
  '"$(echo case)" ',
  'x=$(echo case | cat)',
];
const ATTACKS = [
  '$(touch "$CANARY")',
  '`touch "$CANARY"`',
  '\'; touch "$CANARY"; \'',
  '"; touch "$CANARY"; "',
  'a[$(touch "$CANARY")]',
  '\ntouch "$CANARY"\n',
  ') touch "$CANARY"; (',
  '\nEOF\ntouch "$CANARY"\n',
];

const pieces = (max: number) =>
  fc.array(fc.constantFrom(...PIECES), { maxLength: max }).map((p) => p.join(''));

describe('generated scripts (property)', () => {
  it.each(['bash', 'dash'] as const)('%s: refused at admission, or no value runs', (shell) => {
    let ran = 0;
    fc.assert(
      fc.property(pieces(10), pieces(6), fc.constantFrom(...ATTACKS), (before, after, attack) => {
        const template = before + V + after;
        if (scriptPlaceProblems(template).length > 0) return;
        let script: string;
        try {
          script = render(template, attack);
        } catch {
          return; // a value the render refuses is never run
        }
        ran++;
        expect({ template, ran: run(shell, script).ran }).toEqual({ template, ran: false });
      }),
      { numRuns: 1500 },
    );
    // The property is about scripts that are run: a good share of the generated ones must be.
    expect(ran).toBeGreaterThan(150);
  });
});
