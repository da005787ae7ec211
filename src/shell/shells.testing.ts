// The hostile values and shell contexts the shell tests share, and a real shell to run scripts in.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

const scripts = mkdtempSync(join(tmpdir(), 'krt-scripts-'));
let count = 0;

/**
 * Runs a script in a real shell (`bash` or `dash`, POSIX sh) as the executors do, from a file with
 * `-e` (and pipefail for bash): read from a file, a script stops at its first syntax error, where
 * `bash -c` would go on with the next line. Only PATH and `env` are set.
 */
export function runShell(
  shell: 'bash' | 'dash',
  script: string,
  env: Record<string, string> = {},
  cwd?: string,
) {
  const file = join(scripts, `script-${count++}.sh`);
  writeFileSync(file, script);
  const args = shell === 'bash' ? ['--noprofile', '--norc', '-eo', 'pipefail', file] : ['-e', file];
  const r = spawnSync(shell, args, {
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', ...env },
    encoding: 'buffer',
    input: '',
    timeout: 10_000,
    cwd,
  });
  rmSync(file, { force: true });
  return { stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8'), status: r.status };
}

/** Contexts that only bash has: a POSIX sh reads them otherwise (never as code, but not as bash does). */
export const BASH_ONLY = new Set(['ANSI-C quotes', 'a here-string', 'a [[ ]] comparison']);
