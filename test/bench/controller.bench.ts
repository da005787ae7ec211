// `make bench` (controller part). Three rounds of 200 WorkflowRuns x 5 jobs x 2 steps of `true`, 50
// at a time: completed steps per second, p50/p99 create-to-Succeeded, controller API writes per
// step (its own client counter) and controller RSS, each round and as the median of three with its
// spread. Then history: 10,000 one-step WorkflowRuns run and finished, and the controller's RSS with
// all of them in the cluster against its RSS at rest before the load. Ends with one table of the
// aims (docs/benchmarks.md), their figures, the ratio to the Go engine's recorded figure where there
// is one, and whether each holds. Figures only, nothing asserted.
//
// Before the controller's rounds, the floor (controller-floor.ts): one round of the same workload
// whose API writes one client makes directly while the controller is stopped, the most this API
// server allows here; the controller's median is printed as a share of it.
//
// The Runs are completed by a stand-in executor in this process (watch, one status write per Run),
// so the figure is the controller's alone; their runtime `bench-standin` is one runtimed does not
// serve, and the stand-in holds an agent Lease for it, as runtimed would, so the controller sees
// an agent. runtimed has its own benchmark (runtimed.bench.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Run, WorkflowRun } from '../../src/api/types.js';
import { loadKubeConfig, makeClients } from '../../src/kube/client.js';
import { ResilientInformer } from '../../src/kube/informer.js';
import { microTime } from '../../src/kube/leader.js';
import { rawJson } from '../../src/kube/raw.js';
import { crd, KubeClient } from '../../src/kube/rest.js';
import { AGENT_LEASE_NAMESPACE, agentLease } from '../../src/runtime/agents.js';
import { selfTimes } from '../../src/telemetry/profile.js';
import { controllerPid, endControllerSupervision, startController } from '../harness/controller.js';
import { eventually } from '../harness/eventually.js';
import { testCluster, type TestCluster } from '../harness/cluster.js';
import { adminKubeconfig, stateDir } from '../harness/paths.js';
import { processAlive } from '../harness/processes.js';
import { floor } from './controller-floor.js';

const RUNS = Number(process.env.KRT_BENCH_RUNS ?? 200);
const ROUNDS = Number(process.env.KRT_BENCH_ROUNDS ?? 3);
const HISTORY = Number(process.env.KRT_BENCH_HISTORY ?? 10_000);
const CONCURRENCY = 50;
const JOBS = 5;
const STEPS = 2;
/** The Go kruntimes controller on the same workload, measured side by side on this machine kind. */
const GO = { peakRssMiB: 64, writesPerStep: 2.3 };

const controllerPort = () =>
  Number(/CONTROLLER_PORT=(\d+)/.exec(readFileSync(join(stateDir, 'ports.env'), 'utf8'))?.[1]);
/** One field of /proc/<pid>/status, in MiB. */
const statusMiB = (pid: number, field: string) =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) /
  1024;
const rssMiB = (pid: number) => statusMiB(pid, 'VmRSS');
/**
 * RSS in its two parts: anonymous memory (heaps, the process's own) and file-backed pages, nearly all
 * of them the node binary's code and data mapped in (shared with every Node.js process, reclaimable).
 */
const rssParts = (pid: number) =>
  `${statusMiB(pid, 'RssAnon').toFixed(0)} anonymous + ${statusMiB(pid, 'RssFile').toFixed(0)} file-backed`;

/** The sum of a counter of the controller's metrics over the series whose labels include `having`. */
async function metric(name: string, having = ''): Promise<number> {
  const text = await fetch(`http://127.0.0.1:${controllerPort()}/metrics`).then((r) => r.text());
  return [...text.matchAll(new RegExp(`^${name}(\\{[^}]*\\})? (\\d+)`, 'gm'))]
    .filter((m) => (m[1] ?? '').includes(having))
    .reduce((a, m) => a + Number(m[2]), 0);
}

function body(name: string, jobs: number, steps: number): WorkflowRun {
  const spec: Record<string, unknown> = {};
  for (let j = 0; j < jobs; j++)
    spec[`j${j}`] = {
      'runs-on': 'bench-standin',
      ...(j > 0 ? { needs: [`j${j - 1}`] } : {}),
      steps: Array.from({ length: steps }, (_, s) => ({ name: `s${s}`, run: 'true' })),
    };
  return {
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'WorkflowRun',
    metadata: { name },
    spec: { jobs: spec },
  } as WorkflowRun;
}

/** The stand-in executor and the watch that sees runs finish, over one namespace. */
async function harness(c: TestCluster) {
  const kc = c.admin.kc;
  const kube = new KubeClient(kc);
  const runs = new ResilientInformer<Run>(kc, {
    path: `/apis/kruntimes.io/v1alpha1/namespaces/${c.namespace}/runs`,
  });
  runs.on('add', (r: Run) => {
    if (r.status?.phase) return;
    void kube
      .patchStatus(
        { ...crd('runs', c.namespace), name: r.metadata.name ?? '' },
        { status: { phase: 'Succeeded', exitCode: 0 } },
      )
      .catch(() => undefined);
  });
  await runs.start();
  const waiting = new Map<string, () => void>();
  const wfrs = new ResilientInformer<WorkflowRun>(kc, {
    path: `/apis/kruntimes.io/v1alpha1/namespaces/${c.namespace}/workflowruns`,
  });
  wfrs.on('update', (_old, r) => {
    if (r.status?.phase === 'Failed') console.error(`${r.metadata.name} failed: ${r.status.message}`);
    if (r.status?.phase === 'Succeeded' || r.status?.phase === 'Failed')
      waiting.get(r.metadata.name ?? '')?.();
  });
  await wfrs.start();
  /** Creates `count` runs, `inFlight` at a time, each awaited until it ended; create-to-end latencies in ms. */
  const load = async (prefix: string, count: number, inFlight: number, jobs: number, steps: number) => {
    const latencies: number[] = [];
    let next = 0;
    const worker = async () => {
      while (next < count) {
        const name = `${prefix}-${next++}`;
        const t = performance.now();
        const done = new Promise<void>((res) => waiting.set(name, res));
        await kube.create(crd('workflowruns', c.namespace), body(name, jobs, steps));
        await done;
        waiting.delete(name);
        latencies.push(performance.now() - t);
      }
    };
    await Promise.all(Array.from({ length: inFlight }, worker));
    return latencies.sort((a, b) => a - b);
  };
  return { load, stop: () => (runs.stop(), wfrs.stop()) };
}

/** The agent Lease of the stand-in's runtime, so the controller sees it served. */
async function standInLease(c: TestCluster): Promise<() => Promise<void>> {
  const leases = `/apis/coordination.k8s.io/v1/namespaces/${AGENT_LEASE_NAMESPACE}/leases`;
  const lease = agentLease(
    {
      identity: `bench-standin-${c.namespace}`,
      runtimes: ['bench-standin'],
      namespaces: [c.namespace],
      durationSeconds: 3600,
    },
    new Date(),
  );
  await rawJson(c.admin.kc, 'POST', leases, {
    body: {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      ...lease,
      spec: { ...lease.spec, renewTime: microTime(new Date()) },
    },
  });
  return async () => {
    await rawJson(c.admin.kc, 'DELETE', `${leases}/${lease.metadata.name}`).catch(() => undefined);
  };
}

const CONFLICT = 'result="conflict"';

interface Round {
  stepsPerSecond: number;
  p50: number;
  p99: number;
  writesPerStep: number;
  conflicts: number;
  peakRss: number;
  /** rssParts at the peak. */
  peakParts: string;
}

const q = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
const median = (xs: number[]) =>
  q(
    [...xs].sort((a, b) => a - b),
    0.5,
  );
const spread = (xs: number[], digits = 1) =>
  `${Math.min(...xs).toFixed(digits)}-${Math.max(...xs).toFixed(digits)}`;

async function round(h: Awaited<ReturnType<typeof harness>>, n: number, pid: number): Promise<Round> {
  const writesBefore = await metric('krt_controller_api_writes_total');
  const conflictsBefore = await metric('krt_controller_reconciles_total', CONFLICT);
  let peakRss = rssMiB(pid);
  let peakParts = rssParts(pid);
  const rssTimer = setInterval(() => {
    const now = rssMiB(pid);
    if (now > peakRss) [peakRss, peakParts] = [now, rssParts(pid)];
  }, 200);
  const start = performance.now();
  const latencies = await h.load(`bench-${n}`, RUNS, CONCURRENCY, JOBS, STEPS);
  const seconds = (performance.now() - start) / 1000;
  clearInterval(rssTimer);
  const steps = RUNS * JOBS * STEPS;
  const r: Round = {
    stepsPerSecond: steps / seconds,
    p50: q(latencies, 0.5),
    p99: q(latencies, 0.99),
    writesPerStep: ((await metric('krt_controller_api_writes_total')) - writesBefore) / steps,
    conflicts: (await metric('krt_controller_reconciles_total', CONFLICT)) - conflictsBefore,
    peakRss,
    peakParts,
  };
  console.log(
    `round ${n}: ${steps} steps in ${seconds.toFixed(1)} s, ${r.stepsPerSecond.toFixed(1)} steps/s, ` +
      `p50 ${r.p50.toFixed(0)} ms, p99 ${r.p99.toFixed(0)} ms, ${r.writesPerStep.toFixed(2)} writes/step, ` +
      `${r.conflicts} status conflicts, RSS peak ${peakRss.toFixed(0)} MiB`,
  );
  return r;
}

/**
 * The controller started afresh (its supervisor starts it again after SIGTERM) and ready, so that
 * its RSS at rest is not what an earlier load left in its heap; returns its process id.
 */
async function freshController(): Promise<number> {
  const before = controllerPid();
  process.kill(before, 'SIGTERM');
  await eventually(
    async () => controllerPid() !== before && (await controllerReady()),
    60_000,
    'the controller started again and ready',
  );
  return controllerPid();
}

/** Where the controller's time went while `during` ran: its own CPU profile (SIGUSR2), the top functions. */
async function profiled<T>(pid: number, during: () => Promise<T>): Promise<T> {
  const dir = tmpdir();
  const prefix = `controller-${pid}-`;
  const before = new Set(readdirSync(dir).filter((f) => f.startsWith(prefix)));
  process.kill(pid, 'SIGUSR2');
  const result = await during();
  process.kill(pid, 'SIGUSR2');
  const written = () => readdirSync(dir).find((f) => f.startsWith(prefix) && !before.has(f));
  await eventually(async () => written() !== undefined, 30_000, "the controller's CPU profile");
  const file = join(dir, written() as string);
  console.log(`controller CPU profile of round 1 (${file}), self time:`);
  for (const { what, share } of selfTimes(JSON.parse(readFileSync(file, 'utf8'))).slice(0, 12))
    console.log(`  ${(share * 100).toFixed(1).padStart(5)}%  ${what}`);
  return result;
}

const controllerReady = () =>
  fetch(`http://127.0.0.1:${controllerPort()}/readyz`).then(
    (r) => r.ok,
    () => false,
  );

/** The floor's round, with the controller stopped for it and started again after. */
async function floorRound(): Promise<{ stepsPerSecond: number; p50: number }> {
  const c = await testCluster('ctrlfloor');
  const pid = controllerPid();
  endControllerSupervision();
  process.kill(pid, 'SIGTERM');
  await eventually(async () => !processAlive(pid), 60_000, 'the controller stopped for the floor');
  try {
    const { seconds, latencies } = await floor(c.admin.kc, c.namespace, RUNS, CONCURRENCY, (name) =>
      body(name, JOBS, STEPS),
    );
    const r = { stepsPerSecond: (RUNS * JOBS * STEPS) / seconds, p50: q(latencies, 0.5) };
    console.log(
      `floor: ${RUNS * JOBS * STEPS} steps in ${seconds.toFixed(1)} s, ${r.stepsPerSecond.toFixed(1)} steps/s, ` +
        `p50 ${r.p50.toFixed(0)} ms, p99 ${q(latencies, 0.99).toFixed(0)} ms`,
    );
    return r;
  } finally {
    // Gone before the controller starts, so that its figure at rest holds none of the floor's runs.
    await benchNamespacesGone();
    startController();
    await eventually(controllerReady, 60_000, 'the controller started again and ready');
  }
}

/**
 * Deletes what an earlier bench left (one cut short keeps its namespace) and waits until the
 * namespaces are gone: the deletion of 10,000 runs loads the API server for minutes, and the next
 * run's figures would pay for it.
 */
async function benchNamespacesGone(): Promise<void> {
  const admin = makeClients(loadKubeConfig(adminKubeconfig));
  const left = async () =>
    (await admin.core.listNamespace({ labelSelector: 'kruntimes.io/test in (ctrlbench,ctrlfloor)' })).items;
  for (const ns of await left())
    if (!ns.metadata?.deletionTimestamp) await admin.core.deleteNamespace({ name: ns.metadata?.name ?? '' });
  await eventually(async () => (await left()).length === 0, 900_000, "the bench's namespaces deleted");
}

async function main() {
  await benchNamespacesGone();
  const bottom = await floorRound();
  const pid = await freshController();
  // Settling after the start (first lists, JIT): a figure, not a wait on state.
  await new Promise((r) => setTimeout(r, 10_000));
  const idle = rssMiB(pid);
  const idleParts = rssParts(pid);
  console.log(`controller RSS at rest, started afresh: ${idle.toFixed(0)} MiB`);
  const c = await testCluster('ctrlbench');
  const dropLease = await standInLease(c);
  const h = await harness(c);
  const rounds: Round[] = [];
  for (let n = 1; n <= ROUNDS; n++)
    rounds.push(n === 1 ? await profiled(pid, () => round(h, n, pid)) : await round(h, n, pid));

  const historyStart = performance.now();
  await h.load('history', HISTORY, 100, 1, 1);
  console.log(
    `history: ${HISTORY} one-step WorkflowRuns finished in ${((performance.now() - historyStart) / 1000).toFixed(0)} s`,
  );
  // The controller settles (resync, GC) with all of them in its caches; a figure, not a wait on state.
  await new Promise((r) => setTimeout(r, 30_000));
  const withHistory = rssMiB(pid);
  const historyParts = rssParts(pid);

  const sps = rounds.map((r) => r.stepsPerSecond);
  const p50s = rounds.map((r) => r.p50 / 1000);
  const wps = rounds.map((r) => r.writesPerStep);
  const peakRound = rounds.reduce((a, r) => (r.peakRss > a.peakRss ? r : a));
  const peak = peakRound.peakRss;
  const rows: [string, string, string, boolean][] = [
    [
      'completed steps/s (median of 3) >= 120',
      `${median(sps).toFixed(1)} (${spread(sps)})`,
      '',
      median(sps) >= 120,
    ],
    [
      'p50 create-to-Succeeded (median) <= 3 s',
      `${median(p50s).toFixed(2)} s (${spread(p50s, 2)})`,
      '',
      median(p50s) <= 3,
    ],
    [
      'controller writes per step <= 2.3',
      `${median(wps).toFixed(2)} (${spread(wps, 2)})`,
      `${(median(wps) / GO.writesPerStep).toFixed(2)}x`,
      median(wps) <= 2.3,
    ],
    [
      'controller RSS peak <= 96 MiB',
      `${peak.toFixed(0)} MiB`,
      `${(peak / GO.peakRssMiB).toFixed(2)}x`,
      peak <= 96,
    ],
    ['controller RSS at rest <= 80 MiB', `${idle.toFixed(0)} MiB`, '', idle <= 80],
    [
      `RSS with ${HISTORY} finished runs <= 1.5x at rest`,
      `${withHistory.toFixed(0)} MiB (${(withHistory / idle).toFixed(2)}x)`,
      '',
      withHistory <= 1.5 * idle,
    ],
  ];
  console.log('\n| aim | figure | ratio to Go | holds |\n| --- | --- | --- | --- |');
  for (const [aim, figure, ratio, holds] of rows)
    console.log(`| ${aim} | ${figure} | ${ratio || '-'} | ${holds ? 'yes' : 'no'} |`);
  console.log(
    `\ncontroller RSS in MiB: at rest ${idleParts}; at the peak ${peakRound.peakParts}; ` +
      `with ${HISTORY} finished runs ${historyParts}`,
  );
  console.log(
    `floor (the same writes by one client, the controller stopped): ${bottom.stepsPerSecond.toFixed(1)} ` +
      `steps/s, p50 ${(bottom.p50 / 1000).toFixed(2)} s; the controller's median throughput is ` +
      `${(median(sps) / bottom.stepsPerSecond).toFixed(2)} of it, and 120 steps/s is ` +
      `${bottom.stepsPerSecond >= 120 ? '' : 'not '}within this API server's reach here`,
  );
  h.stop();
  await dropLease();
  await benchNamespacesGone();
}

await main();
