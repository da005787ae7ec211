// The executor with real bash: files, environment, process groups, timeouts and logs.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Run } from '../src/api/types.js';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Execution, reapOrphans } from './execute.js';
import { bashRuntime, parseRuntimes } from './runtime.js';

const root = mkdtempSync(join(tmpdir(), 'krt-exec-test-'));
let n = 0;
function execute(script: string, spec: Partial<Run['spec']> = {}, graceMs = 2000) {
  n++;
  const run: Run = {
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'Run',
    metadata: { name: `r${n}`, namespace: 'ns', uid: `u${n}` },
    spec: { runtime: 'bash', script, ...spec },
  };
  const dir = join(root, `work${n}`);
  const logFile = join(root, `r${n}.log`);
  return {
    exec: new Execution(run, bashRuntime, { dir, logFile, maxLogBytes: 1 << 20, graceMs }),
    dir,
    logFile,
  };
}
/** Processes whose command line holds the marker. */
const alive = (marker: string) =>
  execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.includes(marker) && !l.includes('ps -eo')).length;

describe('Execution (real bash)', () => {
  it('gives the step $KRT_INPUT and $KRT_OUTPUT_DIR with their files, and reads the output folder back', async () => {
    const { exec } = execute(
      [
        'cat "$KRT_INPUT/object.yaml" > "$KRT_OUTPUT_DIR/copy.yaml"',
        'cat "$KRT_INPUT/a/cm.yaml" >> "$KRT_OUTPUT_DIR/copy.yaml"',
        'mkdir -p "$KRT_OUTPUT_DIR/sub" && echo "seen: $(cat "$KRT_OUTPUT_DIR/earlier.yaml")" > "$KRT_OUTPUT_DIR/sub/x.yaml"',
      ].join('\n'),
      {
        inputFiles: { 'object.yaml': 'kind: A\n', 'a/cm.yaml': 'kind: B\n' },
        outputFiles: { 'earlier.yaml': 'yes' },
      },
    );
    const e = await exec.done;
    expect(e.exitCode).toBe(0);
    expect(e.outputDir).toEqual({
      files: { 'copy.yaml': 'kind: A\nkind: B\n', 'earlier.yaml': 'yes', 'sub/x.yaml': 'seen: yes\n' },
    });
  });

  it('refuses a link in $KRT_OUTPUT_DIR (it could point at the agent own files) and bad input paths', async () => {
    const link = await execute('ln -s /etc/hostname "$KRT_OUTPUT_DIR/host.yaml"').exec.done;
    expect(link.outputDir).toEqual({
      error: '$KRT_OUTPUT_DIR/host.yaml: only regular files are read (not links or devices)',
    });
    const escape = await execute('true', { inputFiles: { '../../etc/x': 'no' } }).exec.done;
    expect(escape.startError).toContain('file path "../../etc/x" is not allowed');
  });

  it('gives the step the KRT_* files, its env, a fresh workspace, and reads outputs', async () => {
    const { exec, dir, logFile } = execute(
      [
        'echo "out=$(pwd)" >> "$KRT_OUTPUT"',
        '[ "$KRT_OUTPUT" = "$KRUNTIME_OUTPUTS" ] && echo same=yes >> "$KRT_OUTPUT"',
        '[ "$(pwd)" = "$KRT_WORKSPACE" ] && [ -z "$(ls -A)" ] && echo fresh=yes >> "$KRT_OUTPUT"',
        '[ -f "$KRT_CONTROL" ] && [ -f "$KRT_STATUS" ] && echo files=yes >> "$KRT_OUTPUT"',
        'echo "greeting=$GREETING" >> "$KRT_OUTPUT"',
        'echo "kube=${KUBECONFIG:-unset}" >> "$KRT_OUTPUT"',
        'printf "multi<<EOF\\na\\nb\\nEOF\\n" >> "$KRT_OUTPUT"',
        'echo "retryAfter: 30s" > "$KRT_CONTROL"',
        'echo to-stdout; echo to-stderr >&2',
      ].join('\n'),
      { env: [{ name: 'GREETING', value: 'hi there' }] },
    );
    const e = await exec.done;
    expect(e.exitCode).toBe(0);
    const out = e.outputFile as string;
    expect(out).toContain(`out=${join(dir, 'workspace')}\n`);
    expect(out).toContain(
      'same=yes\nfresh=yes\nfiles=yes\ngreeting=hi there\nkube=unset\nmulti<<EOF\na\nb\nEOF\n',
    );
    expect(e.controlFile).toBe('retryAfter: 30s\n');
    expect(readFileSync(logFile, 'utf8')).toBe('to-stdout\nto-stderr\n');
    expect(e.tail).toBe('to-stdout\nto-stderr\n');
    expect(existsSync(dir)).toBe(false);
  });

  it('runs with -e and pipefail: a failing command in the middle fails the step', async () => {
    expect((await execute('false | true\necho unreachable').exec.done).exitCode).toBe(1);
    expect((await execute('exit 3').exec.done).exitCode).toBe(3);
  });

  it('does not read profile or rc files', async () => {
    const e = await execute('shopt -q login_shell && exit 9; [ -z "${BASH_ENV:-}" ]').exec.done;
    expect(e.exitCode).toBe(0);
  });

  it('a timeout stops the whole process group within the grace period', async () => {
    const marker = `sleep 4242.${process.pid}`;
    const { exec } = execute(`${marker} & ${marker}`, { timeoutSeconds: 1 });
    const e = await exec.done;
    // Sleeps of 70 minutes ended: the timeout did it (how soon is the runtimed benchmark's figure).
    expect(e.stoppedFor).toBe('timeout');
    expect(alive(marker)).toBe(0);
  });

  it('a script that outlives SIGTERM is killed after the grace period', async () => {
    const marker = `sleep 4343.${process.pid}`;
    // The trap notes each TERM and goes on sleeping; only the KILL after the grace period ends it.
    const { exec } = execute(
      `trap 'echo got TERM' TERM; ${marker} || true; ${marker} || true; echo survived`,
      {},
      500,
    );
    await until(() => alive(marker) > 0);
    exec.stop('cancel');
    const e = await exec.done;
    expect(e.stoppedFor).toBe('cancel');
    expect(e.signal).toBe('SIGKILL');
    expect(e.tail).toContain('got TERM');
    expect(e.tail).not.toContain('survived');
    expect(alive(marker)).toBe(0);
  });

  it('a stop before the process started still stops it, and the first reason wins', async () => {
    const { exec } = execute('sleep 30');
    exec.stop('release');
    exec.stop('cancel');
    const e = await exec.done;
    expect(exec.stopReason).toBe('release');
    expect(e.stoppedFor).toBeUndefined();
    expect(e.signal).toBe('SIGTERM');
  });

  it('keeps the tail at 4 KiB and caps the log file', async () => {
    n++;
    const run: Run = {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'Run',
      metadata: { name: 'big', namespace: 'ns', uid: 'big' },
      spec: { runtime: 'bash', script: 'for i in $(seq 1 3000); do echo "line $i"; done' },
    };
    const logFile = join(root, 'big.log');
    const e = await new Execution(run, bashRuntime, {
      dir: join(root, 'big'),
      logFile,
      maxLogBytes: 1000,
      graceMs: 1000,
    }).done;
    expect(Buffer.byteLength(e.tail)).toBeLessThanOrEqual(4096);
    expect(e.tail.endsWith('line 2999\nline 3000\n')).toBe(true);
    const text = readFileSync(logFile, 'utf8');
    expect(text.startsWith('line 1\nline 2\n')).toBe(true);
    expect(text).toContain('[runtimed: log truncated at 1000 bytes; status.logTail has the end]');
  });

  it('reports an output file over the limit by its size, without reading it', async () => {
    const e = await execute('head -c 70000 /dev/zero | tr "\\0" a > "$KRT_OUTPUT"').exec.done;
    expect(e.outputFile).toEqual({ bytes: 70000 });
  });
});

describe('Execution setup failures', () => {
  it('a folder that cannot be made is a StartError, not a crash', async () => {
    const run: Run = {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'Run',
      metadata: { name: 'x', namespace: 'ns', uid: 'x' },
      spec: { runtime: 'bash', script: 'true' },
    };
    const e = await new Execution(run, bashRuntime, {
      dir: '/dev/null/work',
      logFile: join(root, 'x.log'),
      maxLogBytes: 100,
      graceMs: 100,
    }).done;
    expect(e.startError).toMatch(/^cannot prepare the step: ENOTDIR/);
    expect(e.exitCode).toBeNull();
  });
});

describe('reapOrphans', () => {
  it('kills the process groups an earlier agent process left and removes their folders', async () => {
    const marker = `sleep 4444.${process.pid}`;
    const child = spawn('bash', ['-c', `${marker} & ${marker}`], { detached: true, stdio: 'ignore' });
    const work = join(root, 'orphans');
    mkdirSync(join(work, 'u1-1'), { recursive: true });
    writeFileSync(join(work, 'u1-1', 'pgid'), String(child.pid));
    mkdirSync(join(work, 'u2-1'), { recursive: true }); // started, never spawned: no pgid
    await until(() => alive(marker) >= 2);
    expect(await reapOrphans(work)).toBe(1);
    await until(() => alive(marker) === 0);
    expect(existsSync(join(work, 'u1-1')) || existsSync(join(work, 'u2-1'))).toBe(false);
    expect(await reapOrphans(join(root, 'missing'))).toBe(0);
  });
});

describe('parseRuntimes', () => {
  it('serves built-in runtimes under their own or a pool name', () => {
    const r = parseRuntimes('bash, pool-a=bash');
    expect(r instanceof Map && [...r.keys()]).toEqual(['bash', 'pool-a']);
  });
  it('refuses unknown runtimes and an empty list', () => {
    expect(parseRuntimes('python')).toEqual({
      error: '--runtimes: unknown runtime "python" (built in: bash, pod)',
    });
    expect(parseRuntimes(' , ')).toEqual({ error: '--runtimes: at least one runtime is needed' });
  });
});

/** Waits until `check` holds, looking every 20 ms; a test's own timeout bounds it. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 20));
}
