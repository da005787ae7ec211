// Steps in the real bubblewrap sandbox, run by the real executor: what a step can and cannot reach,
// its limits, and that nothing of it outlives it. As root (these machines), each step also runs as
// its own uid on the host.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Run } from '../src/api/types.js';
import { DEFAULT_STEP_LIMITS, stepNetwork, type StepLimits } from '../src/runtime/sandbox-command.js';
import { endStatus } from '../src/runtime/lifecycle.js';
import { Execution } from './execute.js';
import { bashRuntime } from './runtime.js';
import { prepareSandbox, sandboxOptions, sandboxProblem } from './sandbox-setup.js';

const root = mkdtempSync(join(tmpdir(), 'krt-sandbox-test-'));
// As the agent's data folder: open to the step uids for the paths bwrap mounts.
chmodSync(root, 0o755);
const uid = process.getuid?.() === 0 ? 250000 : undefined;
const fetched = process.env.KRT_BWRAP || execFileSync('tools/fetch-bwrap.sh', { encoding: 'utf8' }).trim();
const bwrap =
  uid === undefined
    ? fetched
    : prepareSandbox(sandboxOptions(fetched, DEFAULT_STEP_LIMITS, true), root).bwrap;
// Something of "the agent's" that a step must not reach.
const secret = join(root, 'agent-secret');
writeFileSync(secret, 'kubeconfig of the agent');
let n = 0;

function execute(
  script: string,
  o: { limits?: Partial<StepLimits>; network?: boolean; spec?: Partial<Run['spec']> } = {},
) {
  n++;
  const run: Run = {
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'Run',
    metadata: { name: `r${n}`, namespace: 'ns', uid: `u${n}` },
    spec: { runtime: 'bash', script, ...o.spec },
  };
  const dir = join(root, `work${n}`);
  const sandbox = sandboxOptions(bwrap, { ...DEFAULT_STEP_LIMITS, ...o.limits }, o.network ?? true);
  return new Execution(run, bashRuntime, {
    dir,
    logFile: join(root, `r${n}.log`),
    maxLogBytes: 1 << 20,
    graceMs: 1000,
    sandbox: { ...sandbox, ...(uid !== undefined ? { uid: uid + n } : {}) },
  }).done;
}

describe('the step sandbox (real bubblewrap, real bash)', () => {
  it('works on this machine (the check runtimed makes at start)', () => {
    const work = join(root, 'work');
    expect(sandboxProblem(sandboxOptions(bwrap, DEFAULT_STEP_LIMITS, true), uid, work)).toBeUndefined();
    expect(
      sandboxProblem(sandboxOptions('/nonexistent/bwrap', DEFAULT_STEP_LIMITS, true), uid, work),
    ).toMatch(/^bubblewrap is not there: /);
  });

  it('gives the step the KRT_* contract at its own paths, a fresh workspace and nothing of the host', async () => {
    const e = await execute(
      [
        'echo "ws=$KRT_WORKSPACE pwd=$(pwd) id=$(id -u) host=$(hostname)" >> "$KRT_OUTPUT"',
        'cat "$KRT_INPUT/in.txt" > "$KRT_OUTPUT_DIR/copy.yaml"',
        `[ -e '${secret}' ] && echo "secret=seen" >> "$KRT_OUTPUT" || echo "secret=hidden" >> "$KRT_OUTPUT"`,
        `[ -e '${root}' ] && echo "root=seen" >> "$KRT_OUTPUT" || echo "root=hidden" >> "$KRT_OUTPUT"`,
        'echo "procs=$(ls /proc | grep -c "^[0-9]")" >> "$KRT_OUTPUT"',
        'echo "etc=$(ls /etc | tr "\\n" " ")" >> "$KRT_OUTPUT"',
        'touch /usr/x 2>/dev/null && echo usr=writable >> "$KRT_OUTPUT" || echo usr=readonly >> "$KRT_OUTPUT"',
      ].join('\n'),
      { spec: { inputFiles: { 'in.txt': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n' } } },
    );
    expect(e.exitCode).toBe(0);
    const out = e.outputFile as string;
    expect(out).toContain('ws=/workspace pwd=/workspace id=1000 host=krt-step\n');
    expect(out).toContain('secret=hidden\nroot=hidden\n');
    // Its own PID namespace: the namespace's init, bash and the few commands of that line.
    expect(Number(/procs=(\d+)/.exec(out)?.[1])).toBeLessThan(8);
    expect(out).not.toMatch(/etc=.*(shadow|kubernetes|ssh)/);
    expect(out).toContain('usr=readonly');
    expect(e.outputDir).toEqual({
      files: { 'copy.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n' },
    });
  });

  it('a fork bomb ends the step with LimitExceeded: processes', async () => {
    // Its script ends well (exit 0), but commands it could not fork never ran: still a failure.
    const e = await execute('bomb() { bomb | bomb & }; bomb; sleep 2', { limits: { processes: 64 } });
    const end = endStatus({ ...e, now: new Date() });
    expect(end).toMatchObject({ phase: 'Failed', reason: 'LimitExceeded' });
    expect(end.message).toMatch(/^LimitExceeded: processes/);
    // Its 2 s sleep plus the bomb's end took over jest's 5 s bound on a loaded machine.
  }, 30_000);

  it('names the file size, workspace and memory limits it hit', async () => {
    const file = await execute('head -c 2000000 /dev/zero > big', { limits: { fileBytes: 1_000_000 } });
    expect(endStatus({ ...file, now: new Date() }).message).toMatch(/^LimitExceeded: file size/);
    const ws = await execute('head -c 3000000 /dev/zero > big', { limits: { workspaceBytes: 1_000_000 } });
    expect(endStatus({ ...ws, now: new Date() }).message).toMatch(/^LimitExceeded: workspace/);
    const mem = await execute('x=$(head -c 300000000 /dev/zero | tr "\\0" a); echo ${#x}', {
      limits: { memoryBytes: 100 * 1024 * 1024 },
    });
    expect(endStatus({ ...mem, now: new Date() }).message).toMatch(/^LimitExceeded: memory/);
  });

  it('leaves no process behind when it exits', async () => {
    const marker = `krt-left-behind-${process.pid}`;
    const e = await execute(`(exec -a ${marker} sleep 300) & echo started`);
    expect(e.exitCode).toBe(0);
    const left = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.includes(marker));
    expect(left).toEqual([]);
  });

  it('with the network off, reaches nothing but its own loopback', async () => {
    const list = `awk -F: 'NR > 2 { gsub(/ /, "", $1); print $1 }' /proc/net/dev > "$KRT_OUTPUT_DIR/ifs"`;
    const off = await execute(list, { network: false });
    expect((off.outputDir as { files: Record<string, string> }).files.ifs).toBe('lo\n');
    const on = await execute(list);
    expect((on.outputDir as { files: Record<string, string> }).files.ifs).not.toBe('lo\n');
    const e = off;
    expect(e.exitCode).toBe(0);
  });

  it('gives a step the network only when the agent does and its namespace does not say none', () => {
    expect(stepNetwork(true, undefined)).toBe(true);
    expect(stepNetwork(true, 'host')).toBe(true);
    expect(stepNetwork(true, 'none')).toBe(false);
    expect(stepNetwork(false, 'host')).toBe(false);
    // A label that could not be read: no network (the policy fails closed).
    expect(stepNetwork(true, new Error('forbidden'))).toBe(false);
  });
});
