// Values never become shell code: each hostile value, in each shell context, rendered and then run
// by real bash, prints exactly its own bytes and nothing else runs. Plus the refused places.
import { afterAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { renderScript, renderScriptPartial, scriptPlaceProblems, ShellValueError } from './render.js';
import { REFUSALS } from './scan.js';
import { CONTEXTS, HOSTILE, runShell } from './shells.testing.js';

const dir = mkdtempSync(join(tmpdir(), 'krt-shell-'));
const CANARY = join(dir, 'canary');
const WORK = join(dir, 'work');
/** Runs in an empty folder: a value that ran as `touch \"\$CANARY\"` leaves a file there. */
function bash(script: string, env: Record<string, string> = {}) {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK);
  return { ...runShell('bash', script, { CANARY, ...env }, WORK), made: readdirSync(WORK) };
}
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function expectData(template: string, value: string, expected: string, original = value) {
  rmSync(CANARY, { force: true });
  let script: string;
  try {
    script = renderScript(template, { inputs: { v: value }, jobs: { a: { outputs: { e: '' } } } } as never);
  } catch (e) {
    // A quoted here-document cannot escape a line that would end it: refused, never run.
    expect(e).toBeInstanceOf(ShellValueError);
    expect(template).toMatch(/<<-?'/);
    return;
  }
  const r = bash(script, { P: original });
  expect({ stdout: r.stdout, status: r.status, stderr: r.stderr, made: r.made }).toEqual({
    stdout: expected,
    status: 0,
    stderr: '',
    made: [],
  });
  expect(existsSync(CANARY)).toBe(false);
}

const withInputs = (t: string) => t.replace(/\$\{\{ v \}\}/g, '${{ inputs.v }}');

describe('a value is data in every shell context', () => {
  for (const [where, template, expected] of CONTEXTS)
    describe(where, () => {
      it.each(HOSTILE)('%s', (_, value) => expectData(withInputs(template), value, expected(value)));
    });

  it('through a partial pass and then the final one, the same bytes', () => {
    for (const [, template, expected] of CONTEXTS)
      for (const [, value] of HOSTILE) {
        const t = withInputs(template).replace('${{ inputs.v }}', '${{ inputs.v }}${{ jobs.a.outputs.e }}');
        const partial = renderScriptPartial(t, { inputs: { v: value } } as never, ['inputs']);
        expectData(partial, '', expected(value), value);
      }
  });

  it('holds for generated values and contexts (property)', () => {
    const chars = fc.constantFrom(...'abc \t\n\'"\\`$(){}[]<>|&;*?~#=,!%^-EOF'.split(''), 'EOF', '\nEOF\n');
    fc.assert(
      fc.property(
        fc.array(chars, { maxLength: 24 }).map((a) => a.join('')),
        fc.constantFrom(...CONTEXTS),
        (value, [, template, expected]) => expectData(withInputs(template), value, expected(value)),
      ),
      { numRuns: 400 },
    );
  });
});

describe('plain values render as they always did', () => {
  it.each([
    [`deploy --env=\${{ inputs.v }}`, 'staging', 'deploy --env=staging'],
    [`echo "\${{ inputs.v }}"`, 'a b', 'echo "a b"'],
    [
      `notify --endpoint '\${{ inputs.v }}'`,
      'https://x.example/a?b=c',
      "notify --endpoint 'https://x.example/a?b=c'",
    ],
    [`cat <<EOF\n\${{ inputs.v }}\nEOF`, 'hello world', 'cat <<EOF\nhello world\nEOF'],
  ])('%j with %j', (template, value, rendered) => {
    expect(renderScript(template, { inputs: { v: value } } as never)).toBe(rendered);
  });

  it('quotes what an unquoted word cannot hold as it is', () => {
    expect(renderScript('echo ${{ inputs.v }}', { inputs: { v: 'a b' } } as never)).toBe("echo 'a b'");
    expect(renderScript('${{ inputs.v }} x', { inputs: { v: 'done' } } as never)).toBe("'done' x");
    expect(renderScript('echo ${{ inputs.v }}#x', { inputs: { v: '' } } as never)).toBe("echo ''#x");
    // A value never becomes the name of an assignment.
    expect(renderScript('${{ inputs.v }}=x env', { inputs: { v: 'PATH' } } as never)).toBe("'PATH'=x env");
    expect(renderScript('a${{ inputs.v }}=x', { inputs: { v: 'B' } } as never)).toBe('aB=x');
    // One placeholder that makes a whole word is one argument, also when empty.
    expect(renderScript('echo a ${{ inputs.v }} b', { inputs: { v: '' } } as never)).toBe("echo a '' b");
    expect(renderScript('echo a${{ inputs.v }} b', { inputs: { v: '' } } as never)).toBe('echo a b');
  });
});

describe('places where no escaping is safe are refused', () => {
  it.each([
    ['a comment', 'echo hi # ${{ inputs.v }}', REFUSALS.comment],
    ['$(( ))', 'echo $(( ${{ inputs.v }} + 1 ))', REFUSALS.arith],
    ['(( ))', '(( n = ${{ inputs.v }} ))', REFUSALS.arith],
    ['$[ ]', 'echo $[ ${{ inputs.v }} ]', REFUSALS.arith],
    ['quotes in $(( ))', 'echo $(( "${{ inputs.v }}" ))', REFUSALS.arith],
    ['a for (( ))', 'for (( i=0; i<${{ inputs.v }}; i++ )); do :; done', REFUSALS.arith],
    ['${ }', 'echo ${X:-${{ inputs.v }}}', REFUSALS.param],
    ['quotes in ${ }', 'echo "${X:-"${{ inputs.v }}"}"', REFUSALS.param],
    ['backquotes', 'echo `echo ${{ inputs.v }}`', REFUSALS.backquote],
    ['right after $', 'echo $${{ inputs.v }}', REFUSALS.dollar],
    ['right after \\', 'echo \\${{ inputs.v }}', REFUSALS.backslash],
    ['right after \\ in quotes', 'echo "\\${{ inputs.v }}"', REFUSALS.backslash],
    ['a here-document delimiter', 'cat <<${{ inputs.v }}\nx\n', REFUSALS.delimiter],
    ['-eq in [[ ]]', '[[ ${{ inputs.v }} -eq 1 ]]', REFUSALS.testArith],
    ['-lt in [[ ]], quoted', '[[ 1 -lt "${{ inputs.v }}" ]]', REFUSALS.testArith],
  ])('%s', (_, script, reason) => {
    expect(scriptPlaceProblems(script)).toEqual([`\${{ inputs.v }}: ${reason}`]);
    expect(() => renderScript(script, { inputs: { v: '1' } } as never)).toThrow(ShellValueError);
  });

  it.each([
    ['a # inside a word', 'echo a#${{ inputs.v }}'],
    ['a comment on an earlier line', '# about ${X}\necho "${{ inputs.v }}"'],
    ['after a closed $(( ))', 'echo $(( 1 + 2 )) ${{ inputs.v }}'],
    ['after a closed ${ }', 'echo ${X:-y} "${{ inputs.v }}"'],
    ['an escaped $', 'echo "\\$ ${{ inputs.v }}"'],
    ['== in [[ ]]', '[[ ${{ inputs.v }} == x ]]'],
    ['[ ] with -eq', '[ "${{ inputs.v }}" -eq 1 ]'],
    ['after a here-document', 'cat <<\'EOF\'\n# $((\nEOF\necho "${{ inputs.v }}"'],
    ['in a case inside $( )', 'x=$(case a in a) echo;; esac; echo "${{ inputs.v }}")'],
  ])('%s is not refused', (_, script) => {
    expect(scriptPlaceProblems(script)).toEqual([]);
  });

  it('a value that would end a quoted here-document fails the render, naming the delimiter', () => {
    expect(() =>
      renderScript("cat <<'EOF'\n${{ inputs.v }}\nEOF", { inputs: { v: 'a\nEOF' } } as never),
    ).toThrow("the value would end the here-document <<'EOF'");
  });

  it('a NUL character fails the render', () => {
    expect(() => renderScript('echo "${{ inputs.v }}"', { inputs: { v: 'a\0b' } } as never)).toThrow(/NUL/);
  });
});
