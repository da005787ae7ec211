// The local environment restarts a component that exits, as a Deployment would, and says so in its
// log (issue "Reliability under faults"): the local runtimed is killed and serves again.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, testCluster, type TestCluster } from '../harness/cluster.js';
import { createRun, runInPhase } from '../harness/objects.js';
import { componentCommand, repoRoot, stateDir } from '../harness/paths.js';
import { processAlive } from '../harness/webhook.js';

let c: TestCluster;
beforeAll(async () => {
  c = await testCluster('supervisor');
});
afterAll(async () => c?.cleanup());

const pidOf = (name: string) => Number(readFileSync(join(stateDir, 'pids', `${name}.pid`), 'utf8'));
const ready = (check: string) =>
  spawnSync('bash', ['-c', `. ${join(repoRoot, 'test/controlplane/lib.sh')} && ${check}`]).status === 0;

it('a killed runtimed is started again by its supervisor, which logs it, and serves Runs again', async () => {
  const before = pidOf('runtimed');
  process.kill(before, 'SIGKILL');
  await eventually(async () => !processAlive(before), 5000, 'runtimed to die');
  await eventually(
    async () => pidOf('runtimed') !== before && processAlive(pidOf('runtimed')) && ready('runtimed_ready'),
    60_000,
    'runtimed to be started again and ready',
  );
  const log = readFileSync(join(stateDir, 'logs', 'runtimed.log'), 'utf8');
  expect(log).toMatch(/supervisor: runtimed exited with code 137; starting it again in \d+s/);
  await createRun(c, 'after-restart', { runtime: 'bash', script: 'echo back' });
  expect((await runInPhase(c, 'after-restart', ['Succeeded', 'Failed'], 60_000)).status?.phase).toBe(
    'Succeeded',
  );
});

describe('the pinned Node.js', () => {
  // The machine's own node (Node 20 on these machines), first on PATH as for a user outside make.
  const machinePath = '/usr/local/bin:/usr/bin:/bin';
  const machineNode = spawnSync('bash', ['-c', 'command -v node'], {
    env: { PATH: machinePath },
    encoding: 'utf8',
  }).stdout.trim();

  it('is what the local environment scripts run, whatever node comes first on PATH', () => {
    expect(machineNode).not.toBe('');
    const r = spawnSync(
      'bash',
      ['-c', `. ${join(repoRoot, 'test/controlplane/lib.sh')} && node --version && command -v node`],
      { env: { PATH: machinePath, HOME: process.env.HOME ?? '/root' }, encoding: 'utf8' },
    );
    const pinned = readFileSync(join(repoRoot, '.node-version'), 'utf8').trim();
    const [version, path] = r.stdout.trim().split('\n');
    expect({ status: r.status, version }).toEqual({ status: 0, version: `v${pinned}` });
    expect(path).not.toBe(machineNode);
  });

  it.each(['controller', 'webhook', 'runtimed'] as const)(
    'the %s started on an older node says so in one line and exits 1',
    (component) => {
      const older = spawnSync(machineNode, ['--version'], { encoding: 'utf8' }).stdout.trim();
      // Only meaningful where the machine's node is older than the pin, as it is here (Node 20).
      expect(Number(older.replace(/^v/, '').split('.')[0])).toBeLessThan(24);
      const r = spawnSync(machineNode, componentCommand(component).slice(-1), { encoding: 'utf8' });
      expect(r.status).toBe(1);
      expect(r.stderr.trim().split('\n')).toEqual([expect.stringContaining(`runs on ${older}`)]);
    },
  );
});
