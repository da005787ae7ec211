// The local environment restarts a component that exits, as a Deployment would, and says so in its
// log (issue "Reliability under faults"): the local runtimed is killed and serves again.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, testCluster, type TestCluster } from '../harness/cluster.js';
import { createRun, runInPhase } from '../harness/objects.js';
import { repoRoot, stateDir } from '../harness/paths.js';
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
