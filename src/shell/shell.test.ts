// Values never become shell code: each hostile value, in each shell context, rendered and then run
// by real bash, prints exactly its own bytes and nothing else runs. Plus the refused places.
import { afterAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { renderScript, renderScriptPartial, scriptPlaceProblems, ShellValueError } from './render.js';
import { REFUSALS } from './scan.js';

const dir = mkdtempSync(join(tmpdir(), 'krt-shell-'));
const CANARY = join(dir, 'canary');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Each tries to run `touch $CANARY` or print more than the value. */
export const HOSTILE: [string, string][] = [
  ['a command after ;', 'x; touch "$CANARY"; echo INJECTED'],
  ['&& and |', 'x && touch "$CANARY" | cat'],
  ['command substitution', '$(touch "$CANARY")'],
  ['backquotes', '`touch "$CANARY"`'],
  ['a single quote', "it's'; touch \"$CANARY\"; echo '"],
  ['a double quote', 'say "hi"; touch "$CANARY"; echo "'],
  ['backslashes', 'C:\\path\\ \\\\ \\n \\$(touch "$CANARY") \\'],
  ['newlines', 'one\ntouch "$CANARY"\n\nthree\n'],
  ['a here-document delimiter', 'x\nEOF\ntouch "$CANARY"\ncat <<EOF\n'],
  ['a tab-indented delimiter', 'x\n\tEOF\ntouch "$CANARY"\n'],
  ['globs', '* ? [a-z] {a,b} ~ ~root'],
  ['a comment', '# not a comment'],
  ['variables', '$CANARY ${CANARY} $((1+1)) $[1+1] $HOME'],
  ['arithmetic code', 'a[$(touch "$CANARY")]'],
  ['ANSI quoting', "$'\\x41' \\' '"],
  ['a reserved word', 'done'],
  ['an assignment', 'LD_PRELOAD=/tmp/x.so'],
  ['leading tabs', '\t\tindented'],
  ['empty', ''],
  ['plain', 'staging-1.example.com'],
  ['unicode', 'héllo ✓ 日本語 🚀'],
  ['4 KiB', '\'"\\`$();|&<>*?\n\t EOF'.repeat(4096 / 20).padEnd(4096, '$')],
];

/** Scripts that print the value's bytes exactly once. */
export const CONTEXTS: [string, string, (v: string) => string][] = [
  ['an unquoted word', `printf '%s' \${{ v }}`, (v) => v],
  ['inside an unquoted word', `printf '%s' a\${{ v }}b`, (v) => `a${v}b`],
  ['an assignment', `x=\${{ v }}; printf '%s' "$x"`, (v) => v],
  ['double quotes', `printf '%s' "<\${{ v }}>"`, (v) => `<${v}>`],
  ['single quotes', `printf '%s' '<\${{ v }}>'`, (v) => `<${v}>`],
  ['ANSI-C quotes', `printf '%s' $'<\${{ v }}>'`, (v) => `<${v}>`],
  ['$( ) in double quotes', `x="$(printf '%s.' "\${{ v }}")"; printf '%s' "\${x%.}"`, (v) => v],
  ['an unquoted word in $( )', `x=$(printf '%s.' \${{ v }}); printf '%s' "\${x%.}"`, (v) => v],
  ['single quotes in $( )', `x="$(printf '%s.' '\${{ v }}')"; printf '%s' "\${x%.}"`, (v) => v],
  ['a here-document', `cat <<EOF\n\${{ v }}\nEOF`, (v) => `${v}\n`],
  ['a here-document, mid-line', `cat <<EOF\nE\${{ v }}F\nEOF`, (v) => `E${v}F\n`],
  ['a here-document with <<-', `cat <<-EOF\n\t\${{ v }}\n\tEOF`, (v) => `${v}\n`],
  ['a here-string', `cat <<<"\${{ v }}"`, (v) => `${v}\n`],
  ['a case pattern', `case "$P" in \${{ v }}) printf same;; *) printf other;; esac`, () => 'same'],
  ['a [[ ]] comparison', `[[ "$P" == \${{ v }} ]] && printf same`, () => 'same'],
];

function bash(script: string, env: Record<string, string> = {}) {
  const r = spawnSync('bash', ['--norc', '--noprofile', '-c', script], {
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', CANARY, ...env },
    encoding: 'buffer',
  });
  return { stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8'), status: r.status };
}

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
  expect({ stdout: r.stdout, status: r.status, stderr: r.stderr }).toEqual({
    stdout: expected,
    status: 0,
    stderr: '',
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
