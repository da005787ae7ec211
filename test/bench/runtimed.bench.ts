// `make bench` (runtimed part): 1,000 single-step Runs through two agents, first `true`, then a
// step that sleeps 100 ms; each beside the floor, one client doing the same three API writes per
// Run directly (create, status Running, status Succeeded) at the same concurrency. Prints Runs/s,
// p50/p99 create-to-Succeeded, and ratios to the floor; then how soon a timeout and a cancel land.
// Figures only, nothing asserted.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import * as k8s from '@kubernetes/client-node';
import { runEnded } from '../../src/api/phases.js';
import type { Run } from '../../src/api/types.js';
import { crd } from '../../src/kube/rest.js';
import { ResilientInformer } from '../../src/kube/informer.js';
import { startAgent } from '../harness/agent.js';
import { testCluster, type TestCluster } from '../harness/cluster.js';

const RUNS = Number(process.env.KRT_BENCH_RUNS ?? 1000);
const CONCURRENCY = 64;
const AGENT_CONCURRENCY = CONCURRENCY / 2;

interface Result {
  seconds: number;
  latencies: number[];
}

const q = (l: number[], p: number) => l[Math.min(l.length - 1, Math.floor(p * l.length))] ?? NaN;

function runBody(name: string, runtime: string, script: string): Run {
  return { apiVersion: 'kruntimes.io/v1alpha1', kind: 'Run', metadata: { name }, spec: { runtime, script } };
}

/** Runs `one` for RUNS names, CONCURRENCY at a time, timing each from start to end. */
async function measure(
  prefix: string,
  one: (name: string) => Promise<void>,
  runs = RUNS,
  inFlight = CONCURRENCY,
): Promise<Result> {
  const latencies: number[] = [];
  let next = 0;
  const start = performance.now();
  const worker = async () => {
    while (next < runs) {
      const name = `${prefix}-${next++}`;
      const t = performance.now();
      await one(name);
      latencies.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return { seconds: (performance.now() - start) / 1000, latencies: latencies.sort((a, b) => a - b) };
}

/** RUNS creates, CONCURRENCY at a time; each waits until its Run is Succeeded (seen by a watch). */
async function throughAgents(
  c: TestCluster,
  prefix: string,
  runtime: string,
  script: string,
  runs = RUNS,
  inFlight = CONCURRENCY,
): Promise<Result> {
  const waiting = new Map<string, () => void>();
  const inf = new ResilientInformer<Run>(c.admin.kc, {
    path: `/apis/kruntimes.io/v1alpha1/namespaces/${c.namespace}/runs`,
  });
  const check = (r: Run) => {
    const phase = r.status?.phase;
    if (runEnded(phase)) {
      if (phase !== 'Succeeded') console.error(`${r.metadata.name}: ${phase} ${r.status?.message ?? ''}`);
      waiting.get(r.metadata.name ?? '')?.();
    }
  };
  inf.on('update', (_o, r) => check(r));
  await inf.start();
  const result = await measure(
    prefix,
    async (name) => {
      const done = new Promise<void>((res) => waiting.set(name, res));
      await c.admin.custom.createNamespacedCustomObject({
        ...crd('runs', c.namespace),
        body: runBody(name, runtime, script),
      });
      await done;
    },
    runs,
    inFlight,
  );
  inf.stop();
  return result;
}

/** The floor: the three writes an agent needs per Run, made directly by one client. */
async function floor(c: TestCluster, prefix: string, holdMs: number): Promise<Result> {
  const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
  return measure(prefix, async (name) => {
    await c.admin.custom.createNamespacedCustomObject({
      ...crd('runs', c.namespace),
      body: runBody(name, 'bench-floor', 'true'),
    });
    const now = new Date().toISOString();
    await c.admin.custom.patchNamespacedCustomObjectStatus(
      {
        ...crd('runs', c.namespace),
        name,
        body: { status: { phase: 'Running', assignedTo: 'floor', attempts: 1, startTime: now } },
      },
      merge,
    );
    if (holdMs) await new Promise((r) => setTimeout(r, holdMs));
    await c.admin.custom.patchNamespacedCustomObjectStatus(
      { ...crd('runs', c.namespace), name, body: { status: { phase: 'Succeeded', exitCode: 0 } } },
      merge,
    );
  });
}

/**
 * How soon a stop lands, from the Runs' own timestamps: `timeoutSeconds: 1` against completionTime
 * minus startTime, and a cancel against its request, for `sleep 60` steps that never end alone.
 */
async function stops(c: TestCluster, runtime: string, n = 10): Promise<void> {
  const get = async (name: string) =>
    (await c.admin.custom.getNamespacedCustomObject({ ...crd('runs', c.namespace), name })) as Run;
  const until = async (name: string, ok: (r: Run) => boolean) => {
    for (;;) {
      const r = await get(name);
      if (ok(r)) return r;
      await new Promise((res) => setTimeout(res, 50));
    }
  };
  const overshoot: number[] = [];
  const cancel: number[] = [];
  for (let i = 0; i < n; i++) {
    await c.admin.custom.createNamespacedCustomObject({
      ...crd('runs', c.namespace),
      body: {
        ...runBody(`timeout-${i}`, runtime, 'sleep 60'),
        spec: { runtime, script: 'sleep 60', timeoutSeconds: 1 },
      },
    });
    const t = await until(`timeout-${i}`, (r) => runEnded(r.status?.phase));
    overshoot.push(Date.parse(t.status?.completionTime ?? '') - Date.parse(t.status?.startTime ?? '') - 1000);
    await c.admin.custom.createNamespacedCustomObject({
      ...crd('runs', c.namespace),
      body: runBody(`cancel-${i}`, runtime, 'sleep 60'),
    });
    await until(`cancel-${i}`, (r) => r.status?.phase === 'Running');
    const asked = Date.now();
    await c.admin.custom.patchNamespacedCustomObject(
      { ...crd('runs', c.namespace), name: `cancel-${i}`, body: { spec: { cancelRequested: true } } },
      k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
    );
    const d = await until(`cancel-${i}`, (r) => runEnded(r.status?.phase));
    cancel.push(Date.parse(d.status?.completionTime ?? '') - asked);
  }
  const sorted = (l: number[]) => [...l].sort((a, b) => a - b);
  console.log(`stops, ${n} each (a step's processes get SIGTERM, then SIGKILL after the grace period)`);
  console.log(
    `  timeout lands after the deadline by   p50 ${q(sorted(overshoot), 0.5)} ms  max ${Math.max(...overshoot)} ms`,
  );
  console.log(
    `  cancel lands after the request by     p50 ${q(sorted(cancel), 0.5)} ms  max ${Math.max(...cancel)} ms`,
  );
}

function report(title: string, ours: Result, base: Result): void {
  const rate = (r: Result) => RUNS / r.seconds;
  console.log(`${title}`);
  console.log(
    `  runtimed (2 agents x ${AGENT_CONCURRENCY})  ${rate(ours).toFixed(1)} Runs/s   p50 ${q(ours.latencies, 0.5).toFixed(0)} ms  p99 ${q(ours.latencies, 0.99).toFixed(0)} ms`,
  );
  console.log(
    `  floor (3 writes per Run)      ${rate(base).toFixed(1)} Runs/s   p50 ${q(base.latencies, 0.5).toFixed(0)} ms  p99 ${q(base.latencies, 0.99).toFixed(0)} ms`,
  );
  console.log(
    `  ratio to the floor            throughput ${(rate(ours) / rate(base)).toFixed(2)}   p50 latency ${(q(ours.latencies, 0.5) / q(base.latencies, 0.5)).toFixed(2)}   p99 latency ${(q(ours.latencies, 0.99) / q(base.latencies, 0.99)).toFixed(2)}`,
  );
}

/** The same `true` Runs through one agent with the step sandbox and one without, in one run. */
async function sandboxCost(c: Awaited<ReturnType<typeof testCluster>>): Promise<void> {
  const pair = await Promise.all(
    [true, false].map((sandbox) =>
      startAgent({
        identity: sandbox ? 'bench-sandboxed' : 'bench-bare',
        runtime: sandbox ? 'bench-sandboxed' : 'bench-bare',
        dataDir: mkdtempSync(join(tmpdir(), 'krt-bench-sandbox-')),
        namespace: c.namespace,
        concurrency: AGENT_CONCURRENCY,
        heartbeatSeconds: 5,
        staleSeconds: 30,
        sandbox,
      }),
    ),
  );
  try {
    // One at a time first: what the sandbox adds to a step, without queueing behind others.
    const ALONE = 50;
    const aloneWith = await throughAgents(c, 'sbx1', 'bench-sandboxed', 'true', ALONE, 1);
    const aloneWithout = await throughAgents(c, 'bare1', 'bench-bare', 'true', ALONE, 1);
    const withIt = await throughAgents(c, 'sbx', 'bench-sandboxed', 'true');
    const without = await throughAgents(c, 'bare', 'bench-bare', 'true');
    const rate = (r: Result) => RUNS / r.seconds;
    console.log(`the step sandbox (bubblewrap), \`true\`, ${ALONE} Runs one at a time:`);
    console.log(
      `  sandboxed   p50 ${q(aloneWith.latencies, 0.5).toFixed(0)} ms   bare p50 ${q(aloneWithout.latencies, 0.5).toFixed(0)} ms   cost per step ${(q(aloneWith.latencies, 0.5) - q(aloneWithout.latencies, 0.5)).toFixed(0)} ms (aim: at most 10)`,
    );
    console.log(
      `the same, ${RUNS} Runs, ${CONCURRENCY} in flight, one agent each (2 cores: bwrap's own work queues):`,
    );
    console.log(
      `  sandboxed   ${rate(withIt).toFixed(1)} Runs/s   p50 ${q(withIt.latencies, 0.5).toFixed(0)} ms  p99 ${q(withIt.latencies, 0.99).toFixed(0)} ms`,
    );
    console.log(
      `  bare        ${rate(without).toFixed(1)} Runs/s   p50 ${q(without.latencies, 0.5).toFixed(0)} ms  p99 ${q(without.latencies, 0.99).toFixed(0)} ms`,
    );
    console.log(
      `  cost per step at p50 ${(q(withIt.latencies, 0.5) - q(without.latencies, 0.5)).toFixed(0)} ms; throughput ratio ${(rate(withIt) / rate(without)).toFixed(2)}`,
    );
  } finally {
    for (const a of pair) a.proc.kill('SIGTERM');
    await Promise.all(pair.map((a) => a.exited));
  }
}

async function main() {
  const c = await testCluster('rtbench');
  const agents = await Promise.all(
    ['bench-a', 'bench-b'].map((identity) =>
      startAgent({
        identity,
        runtime: 'bench-bash',
        dataDir: mkdtempSync(join(tmpdir(), `krt-${identity}-`)),
        namespace: c.namespace,
        concurrency: AGENT_CONCURRENCY,
        heartbeatSeconds: 5,
        staleSeconds: 30,
      }),
    ),
  );
  try {
    console.log(`${RUNS} single-step Runs per case, ${CONCURRENCY} in flight (create-to-Succeeded per Run)`);
    report('`true`:', await throughAgents(c, 'true', 'bench-bash', 'true'), await floor(c, 'floor-true', 0));
    report(
      '`sleep 0.1`:',
      await throughAgents(c, 'sleep', 'bench-bash', 'sleep 0.1'),
      await floor(c, 'floor-sleep', 100),
    );
    console.log('  (for reference, the Go kruntimes project publishes 11.3 Runs/s and p50 580 ms on kind)');
    await stops(c, 'bench-bash');
    await sandboxCost(c);
    // Writes the agents spent beyond the two per Run: claims lost to the other agent, heartbeats.
    for (const a of agents) {
      const metrics = await (await fetch(`${a.url}/metrics`)).text();
      const claims = [...metrics.matchAll(/^krt_runtimed_claims_total\{result="(\w+)"\} (\d+)/gm)]
        .map((m) => `${m[1]} ${m[2]}`)
        .join(', ');
      console.log(`  ${a.url}: claims ${claims}`);
    }
  } finally {
    for (const a of agents) a.proc.kill('SIGTERM');
    await Promise.all(agents.map((a) => a.exited));
    await c.cleanup();
  }
}

await main();
