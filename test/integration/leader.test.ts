// Two controller replicas: only the lease holder acts; killing it hands over within the lease
// duration (plus one retry period).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { crd } from '../../src/kube/client.js';
import { eventually, testCluster, type TestCluster } from '../harness/cluster.js';
import { adminKubeconfig, componentCommand, stateDir } from '../harness/paths.js';
import { processAlive } from '../harness/webhook.js';
import { endControllerSupervision, startController } from '../harness/controller.js';

const LEASE_SECONDS = 15;
const RETRY_SECONDS = 2;

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

async function metric(port: number, name: string): Promise<number> {
  const text = await fetch(`http://127.0.0.1:${port}/metrics`)
    .then((r) => r.text())
    .catch(() => '');
  const values = [...text.matchAll(new RegExp(`^${name}(\\{[^}]*\\})? ([0-9.e+-]+)$`, 'gm'))].map((m) =>
    Number(m[2]),
  );
  return values.reduce((a, b) => a + b, 0);
}

function ports(): Record<string, number> {
  return Object.fromEntries(
    readFileSync(join(stateDir, 'ports.env'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split('='))
      .map(([k, v]) => [k, Number(v)]),
  );
}

let c: TestCluster;
let replica: ChildProcess | undefined;
beforeAll(async () => {
  c = await testCluster('leader');
});
afterAll(async () => {
  if (replica?.pid && processAlive(replica.pid)) {
    replica.kill('SIGTERM'); // releases the lease
    await new Promise((r) => replica?.once('exit', r));
  }
  const mainPid = Number(readFileSync(join(stateDir, 'pids', 'controller.pid'), 'utf8'));
  if (!processAlive(mainPid)) startController();
  await eventually(
    async () => (await metric(ports().CONTROLLER_PORT as number, 'krt_controller_is_leader')) === 1,
    40000,
    'the main controller to lead again',
  );
  await c?.cleanup();
});

const run = (name: string) => ({
  apiVersion: 'kruntimes.io/v1alpha1',
  kind: 'WorkflowRun',
  metadata: { name },
  spec: { jobs: { a: { 'runs-on': 'bash', steps: [{ name: 's', run: 'true' }] } } },
});

async function reconciled(name: string): Promise<boolean> {
  const r = (await c.admin.custom.getNamespacedCustomObject({
    ...crd('workflowruns', c.namespace),
    name,
  })) as { status?: { phase?: string } };
  return Boolean(r.status?.phase);
}

it('only the leader acts, and a killed leader is replaced within the lease duration', async () => {
  const mainPort = ports().CONTROLLER_PORT as number;
  const mainPid = Number(readFileSync(join(stateDir, 'pids', 'controller.pid'), 'utf8'));
  // Another suite may have just restarted it: wait until it holds the lease.
  await eventually(
    async () => (await metric(mainPort, 'krt_controller_is_leader')) === 1,
    40000,
    'the main controller to lead',
  );

  const port = await freePort();
  replica = spawn(
    'node',
    [
      ...componentCommand('controller'),
      '--kubeconfig',
      adminKubeconfig,
      '--metrics-port',
      String(port),
      '--identity',
      'replica-b',
      '--lease-duration',
      String(LEASE_SECONDS),
      '--retry-period',
      String(RETRY_SECONDS),
    ],
    { stdio: 'ignore', env: { ...process.env, KRT_COMPONENT: 'controller-b' } },
  );
  await eventually(
    async () =>
      (await fetch(`http://127.0.0.1:${port}/readyz`)
        .then((r) => r.status)
        .catch(() => 0)) === 200,
    30000,
    'replica b to sync its caches',
  );
  await eventually(
    async () => (await metric(port, 'krt_controller_lease_attempts_total\\{result="held-by-other"\\}')) >= 1,
    10_000,
    'replica b to have campaigned and found the Lease held',
  );

  await c.admin.custom.createNamespacedCustomObject({
    ...crd('workflowruns', c.namespace),
    body: run('first'),
  });
  await eventually(() => reconciled('first'), 20000, 'the leader to reconcile');
  expect(await metric(port, 'krt_controller_is_leader')).toBe(0);
  expect(await metric(port, 'krt_controller_api_writes_total')).toBe(0);

  // For good: its supervisor (the local Deployment) would start it again at once, and with its
  // stable identity it would take its own Lease back.
  endControllerSupervision();
  process.kill(mainPid, 'SIGKILL');
  await eventually(
    async () => (await metric(port, 'krt_controller_is_leader')) === 1,
    (LEASE_SECONDS + 3 * RETRY_SECONDS) * 1000,
    'replica b to take the lease',
  );
  // When it takes over is the election's logic, tested on an injected clock (src/kube/leader.test.ts).

  await c.admin.custom.createNamespacedCustomObject({
    ...crd('workflowruns', c.namespace),
    body: run('second'),
  });
  await eventually(() => reconciled('second'), 20000, 'the new leader to reconcile');
  expect(await metric(port, 'krt_controller_api_writes_total')).toBeGreaterThan(0);
}, 120_000);
