// `make bench` (controller part): 200 WorkflowRuns x 5 jobs x 2 steps of `true`, 50 at a time.
// Prints completed steps per second, p50/p99 create-to-Succeeded, controller API writes per step
// (its own client counter) and controller RSS. Figures only, nothing asserted.
// The Runs are completed by a stand-in executor in this process (watch, one status write per Run),
// so the figure is the controller's alone; their runtime `bench-standin` is one runtimed does not
// serve, and the stand-in holds an agent Lease for it, as runtimed would, so the controller sees
// an agent. runtimed has its own benchmark (runtimed.bench.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import * as k8s from '@kubernetes/client-node';
import type { Run, WorkflowRun } from '../../src/api/types.js';
import { crd } from '../../src/kube/rest.js';
import { ResilientInformer } from '../../src/kube/informer.js';
import { microTime } from '../../src/kube/leader.js';
import { rawJson } from '../../src/kube/raw.js';
import { AGENT_LEASE_NAMESPACE, agentLease } from '../../src/runtime/agents.js';
import { testCluster } from '../harness/cluster.js';
import { stateDir } from '../harness/paths.js';

const RUNS = Number(process.env.KRT_BENCH_RUNS ?? 200);
const CONCURRENCY = 50;
const JOBS = 5;
const STEPS = 2;

const controllerPort = () =>
  Number(/CONTROLLER_PORT=(\d+)/.exec(readFileSync(join(stateDir, 'ports.env'), 'utf8'))?.[1]);
const controllerPid = () => Number(readFileSync(join(stateDir, 'pids', 'controller.pid'), 'utf8'));
const rssMiB = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

async function controllerWrites(): Promise<number> {
  const text = await fetch(`http://127.0.0.1:${controllerPort()}/metrics`).then((r) => r.text());
  return [...text.matchAll(/^krt_controller_api_writes_total\{[^}]*\} (\d+)/gm)].reduce(
    (a, m) => a + Number(m[1]),
    0,
  );
}

function body(i: number): WorkflowRun {
  const jobs: Record<string, unknown> = {};
  for (let j = 0; j < JOBS; j++)
    jobs[`j${j}`] = {
      'runs-on': 'bench-standin',
      ...(j > 0 ? { needs: [`j${j - 1}`] } : {}),
      steps: Array.from({ length: STEPS }, (_, s) => ({ name: `s${s}`, run: 'true' })),
    };
  return {
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'WorkflowRun',
    metadata: { name: `bench-${i}` },
    spec: { jobs },
  } as WorkflowRun;
}

async function main() {
  const c = await testCluster('ctrlbench');
  const kc = c.admin.kc;
  let executorWrites = 0;
  const runs = new ResilientInformer<Run>(kc, {
    path: `/apis/kruntimes.io/v1alpha1/namespaces/${c.namespace}/runs`,
  });
  const complete = (r: Run) => {
    if (r.status?.phase) return;
    executorWrites++;
    void c.admin.custom
      .patchNamespacedCustomObjectStatus(
        {
          ...crd('runs', c.namespace),
          name: r.metadata.name ?? '',
          body: { status: { phase: 'Succeeded', exitCode: 0 } },
        },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      )
      .catch(() => undefined);
  };
  runs.on('add', complete);
  await runs.start();
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
  await rawJson(kc, 'POST', leases, {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    ...lease,
    spec: { ...lease.spec, renewTime: microTime(new Date()) },
  });
  // Completion is observed with a watch, not by polling, so the client does not load the API server.
  const waiting = new Map<string, () => void>();
  const wfrs = new ResilientInformer<WorkflowRun>(kc, {
    path: `/apis/kruntimes.io/v1alpha1/namespaces/${c.namespace}/workflowruns`,
  });
  const check = (r: WorkflowRun) => {
    if (r.status?.phase === 'Failed') console.error(`${r.metadata.name} failed: ${r.status.message}`);
    if (r.status?.phase === 'Succeeded' || r.status?.phase === 'Failed')
      waiting.get(r.metadata.name ?? '')?.();
  };
  wfrs.on('update', (_old, r) => check(r));
  await wfrs.start();

  const pid = controllerPid();
  const writesBefore = await controllerWrites();
  let peakRss = rssMiB(pid);
  const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, rssMiB(pid))), 200);
  const latencies: number[] = [];
  const start = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < RUNS) {
      const i = next++;
      const t = performance.now();
      const done = new Promise<void>((res) => waiting.set(`bench-${i}`, res));
      await c.admin.custom.createNamespacedCustomObject({
        ...crd('workflowruns', c.namespace),
        body: body(i),
      });
      await done;
      latencies.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - start) / 1000;
  clearInterval(rssTimer);
  const steps = RUNS * JOBS * STEPS;
  const writes = (await controllerWrites()) - writesBefore;
  latencies.sort((a, b) => a - b);
  const q = (p: number) =>
    (latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] as number).toFixed(0);
  console.log(
    `${RUNS} WorkflowRuns x ${JOBS} jobs x ${STEPS} steps, ${CONCURRENCY} at a time: ${steps} steps in ${seconds.toFixed(1)} s`,
  );
  console.log(`completed steps per second        ${(steps / seconds).toFixed(1)}`);
  console.log(`create-to-Succeeded               p50 ${q(0.5)} ms  p99 ${q(0.99)} ms`);
  console.log(
    `controller API writes per step    ${(writes / steps).toFixed(2)} (${writes} writes: snapshots, Runs, status, events)`,
  );
  console.log(
    `stand-in executor writes per step ${(executorWrites / steps).toFixed(2)} (runtimed writes 2: claim and end)`,
  );
  console.log(
    `controller RSS                    ${rssMiB(pid).toFixed(0)} MiB now, ${peakRss.toFixed(0)} MiB peak`,
  );
  runs.stop();
  wfrs.stop();
  await rawJson(kc, 'DELETE', `${leases}/${lease.metadata.name}`).catch(() => undefined);
  await c.cleanup();
}

await main();
