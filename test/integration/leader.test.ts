// Two controller replicas: only the lease holder acts; killing it hands over within the lease
// duration (plus one retry period); a leader cut off from the API server gives up before another
// takes over, and the run it was driving completes under the new one.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crd } from '../../src/kube/rest.js';
import { eventually, testCluster, type TestCluster } from '../harness/cluster.js';
import { adminKubeconfig, componentCommand, stateDir } from '../harness/paths.js';
import { channel, type Channel } from '../harness/channel.js';
import { controllerPid, endControllerSupervision, startController } from '../harness/controller.js';
import { workflowRunInPhase } from '../harness/objects.js';
import { relay, type Relay } from '../harness/proxy.js';
import { processAlive } from '../harness/webhook.js';

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

interface Replica {
  proc: ChildProcess;
  port: number;
  /** What it logged, one JSON object per line. */
  logs: () => { msg?: string; time?: string }[];
  exited: Promise<number | null>;
}

const replicas: Replica[] = [];
/** Another controller process with its own identity, on its own metrics port. */
async function replica(identity: string, kubeconfig = adminKubeconfig): Promise<Replica> {
  const port = await freePort();
  const proc = spawn(
    'node',
    [
      ...componentCommand('controller'),
      '--kubeconfig',
      kubeconfig,
      '--health-addr',
      `127.0.0.1:${port}`,
      '--metrics-addr',
      `127.0.0.1:${port}`,
      '--identity',
      identity,
      '--lease-duration',
      String(LEASE_SECONDS),
      '--retry-period',
      String(RETRY_SECONDS),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, KRT_COMPONENT: identity } },
  );
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const r: Replica = {
    proc,
    port,
    exited,
    logs: () =>
      out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { msg?: string; time?: string }),
  };
  replicas.push(r);
  await eventually(
    async () =>
      (await fetch(`http://127.0.0.1:${port}/readyz`)
        .then((res) => res.status)
        .catch(() => 0)) === 200,
    30000,
    `${identity} to sync its caches`,
  );
  return r;
}

/** Ends a replica; SIGTERM releases the lease when it leads. */
async function end(r: Replica, signal: NodeJS.Signals = 'SIGTERM') {
  if (r.proc.exitCode === null && r.proc.signalCode === null) r.proc.kill(signal);
  await r.exited;
}

let c: TestCluster;
let ch: Channel;
const relays: Relay[] = [];
beforeAll(async () => {
  c = await testCluster('leader');
  ch = await channel();
});
afterAll(async () => {
  for (const r of replicas) await end(r);
  for (const r of relays) await r.close();
  if (!processAlive(controllerPid())) startController();
  await eventually(
    async () => (await metric(ports().CONTROLLER_PORT as number, 'krt_controller_is_leader')) === 1,
    40000,
    'the main controller to lead again',
  );
  await c?.cleanup();
  await ch?.close();
});

/** The local controller leads, then its supervision ends: the suite's replicas stand in for it. */
async function mainLeads(): Promise<number> {
  const mainPort = ports().CONTROLLER_PORT as number;
  if (!processAlive(controllerPid())) startController();
  // Another suite may have just restarted it: wait until it holds the lease.
  await eventually(
    async () => (await metric(mainPort, 'krt_controller_is_leader')) === 1,
    40000,
    'the main controller to lead',
  );
  return mainPort;
}

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
  await mainLeads();
  const b = await replica('replica-b');
  await eventually(
    async () =>
      (await metric(b.port, 'krt_controller_lease_attempts_total\\{result="held-by-other"\\}')) >= 1,
    10_000,
    'replica b to have campaigned and found the Lease held',
  );

  await c.admin.custom.createNamespacedCustomObject({
    ...crd('workflowruns', c.namespace),
    body: run('first'),
  });
  await eventually(() => reconciled('first'), 20000, 'the leader to reconcile');
  expect(await metric(b.port, 'krt_controller_is_leader')).toBe(0);
  expect(await metric(b.port, 'krt_controller_api_writes_total')).toBe(0);

  // For good: its supervisor (the local Deployment) would start it again at once, and with its
  // stable identity it would take its own Lease back.
  endControllerSupervision();
  process.kill(controllerPid(), 'SIGKILL');
  await eventually(
    async () => (await metric(b.port, 'krt_controller_is_leader')) === 1,
    (LEASE_SECONDS + 3 * RETRY_SECONDS) * 1000,
    'replica b to take the lease',
  );
  // When it takes over is the election's logic, tested on an injected clock (src/kube/leader.test.ts).

  await c.admin.custom.createNamespacedCustomObject({
    ...crd('workflowruns', c.namespace),
    body: run('second'),
  });
  await eventually(() => reconciled('second'), 20000, 'the new leader to reconcile');
  expect(await metric(b.port, 'krt_controller_api_writes_total')).toBeGreaterThan(0);
  await end(b);
}, 120_000);

it('hands over when the leader loses the API server: it stops before the other starts, and the run completes', async () => {
  await mainLeads();
  // Leader A reaches the API server through a relay the test cuts; B reaches it directly.
  const apiRelay = await relay(ports().API_PORT as number);
  relays.push(apiRelay);
  const dir = mkdtempSync(join(tmpdir(), 'krt-leader-'));
  const relayed = join(dir, 'kubeconfig');
  writeFileSync(
    relayed,
    readFileSync(adminKubeconfig, 'utf8').replace(/127\.0\.0\.1:\d+/g, `127.0.0.1:${apiRelay.port}`),
  );
  endControllerSupervision();
  process.kill(controllerPid(), 'SIGTERM'); // releases the Lease
  const a = await replica('replica-a', relayed);
  await eventually(async () => (await metric(a.port, 'krt_controller_is_leader')) === 1, 30_000, 'a to lead');
  const b = await replica('replica-b');

  const first = ch.journal();
  const second = ch.journal();
  const gate = ch.gate();
  await c.admin.custom.createNamespacedCustomObject({
    ...crd('workflowruns', c.namespace),
    body: {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'WorkflowRun',
      metadata: { name: 'handover' },
      spec: {
        jobs: {
          one: {
            'runs-on': 'bash',
            steps: [
              { name: 's', run: `echo ran | ${first.append}\n${gate.wait}\necho "v=1" >> "$KRT_OUTPUT"` },
            ],
            outputs: { v: '${{ steps.s.outputs.v }}' },
          },
          two: {
            'runs-on': 'bash',
            needs: ['one'],
            steps: [{ name: 's', run: `echo "got \${{ jobs.one.outputs.v }}" | ${second.append}` }],
          },
        },
      },
    },
  });
  await eventually(async () => first.lines().length === 1, 30_000, 'job one to start');

  apiRelay.cut();
  gate.open(); // job one ends while its leader cannot see it
  expect(await a.exited).toBe(1); // gave up leading past its renew deadline, and exited
  await eventually(
    async () => (await metric(b.port, 'krt_controller_is_leader')) === 1,
    (LEASE_SECONDS + 3 * RETRY_SECONDS) * 1000,
    'b to take the lease',
  );
  const lost = a.logs().find((l) => l.msg === 'lost the lease')?.time ?? '';
  const became = b.logs().find((l) => l.msg === 'became leader')?.time ?? '';
  expect(lost).not.toBe('');
  expect(became).not.toBe('');
  expect(Date.parse(lost)).toBeLessThan(Date.parse(became));

  const done = await workflowRunInPhase(c, 'handover', ['Succeeded', 'Failed'], 60_000);
  expect(done.status?.phase).toBe('Succeeded');
  expect(first.lines()).toEqual(['ran']);
  expect(second.lines()).toEqual(['got 1']);
  await end(b);
}, 180_000);
