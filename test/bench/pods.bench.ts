// `make bench` (Pod runtime part), on the one-node cluster of test/cluster (started if needed, the
// install of test/e2e-cluster/overlay deployed: the Pod executor and the bash agent). The same
// one-step WorkflowRuns through each runtime, IN_FLIGHT at a time: the step's start as the client
// sees it (the step container running, or the bash Run Running) after its create, p50/p99, and
// Runs/s to Succeeded. Printed as figures and as Pod/bash ratios; nothing asserted.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Run } from '../../src/api/types.js';
import { loadKubeConfig } from '../../src/kube/client.js';
import { ResilientInformer } from '../../src/kube/informer.js';
import { rawJson } from '../../src/kube/raw.js';
import { LABEL_RUN } from '../../src/labels.js';
import { clusterEnv, clusterKubeconfig, clusterState } from '../harness/node-cluster.js';
import { repoRoot } from '../harness/paths.js';

const RUNS = Number(process.env.KRT_BENCH_POD_RUNS ?? 40);
const IN_FLIGHT = Number(process.env.KRT_BENCH_POD_IN_FLIGHT ?? 8);
/** One at a time too, fewer: the latency of a step on a quiet node. */
const ALONE_RUNS = 10;
const NS = 'default';

interface Pod {
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string> };
  status?: { initContainerStatuses?: { name: string; state?: { running?: object; terminated?: object } }[] };
}

function sh(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, {
    encoding: 'utf8',
    env: { ...process.env, KUBECTL: join(clusterState, 'bin', 'kubectl'), KUBECONFIG: clusterKubeconfig },
  });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr}`);
}

const q = (l: number[], p: number) => l[Math.min(l.length - 1, Math.floor(p * l.length))] ?? NaN;

async function bench(
  runtime: 'kubernetes' | 'bash',
  total: number,
  inFlight: number,
): Promise<{ starts: number[]; perSecond: number }> {
  const kc = loadKubeConfig(clusterKubeconfig);
  const prefix = `bench-${runtime === 'bash' ? 'b' : 'k'}${Date.now().toString(36)}`;
  const step =
    runtime === 'bash'
      ? { name: 's', run: 'echo hi' }
      : { name: 's', image: clusterEnv('STEP_IMAGE') ?? '', run: 'echo hi' };
  const created = new Map<string, number>();
  const started = new Map<string, () => void>();
  const ended = new Map<string, () => void>();
  const starts: number[] = [];
  const mark = (run: string) => {
    const t0 = created.get(run);
    if (t0 === undefined || !started.has(run)) return;
    starts.push(performance.now() - t0);
    started.get(run)?.();
    started.delete(run);
  };
  const runs = new ResilientInformer<Run>(kc, { path: `/apis/kruntimes.io/v1alpha1/namespaces/${NS}/runs` });
  const pods = new ResilientInformer<Pod>(kc, {
    path: `/api/v1/namespaces/${NS}/pods`,
    labelSelector: LABEL_RUN,
  });
  runs.on('update', (_o, r) => {
    const name = r.metadata.name ?? '';
    if (runtime === 'bash' && r.status?.phase) mark(name);
    if (r.status?.phase === 'Succeeded' || r.status?.phase === 'Failed') ended.get(name)?.();
  });
  const onPod = (p: Pod) => {
    const s = p.status?.initContainerStatuses?.find((c) => c.name === 'step')?.state;
    if (s?.running || s?.terminated) mark(p.metadata?.labels?.[LABEL_RUN] ?? '');
  };
  pods.on('add', onPod);
  pods.on('update', (_o, p) => onPod(p));
  await Promise.all([runs.start(), pods.start()]);
  let next = 0;
  const t = performance.now();
  const worker = async () => {
    while (next < total) {
      const wfr = `${prefix}-${next++}`;
      const run = `${wfr}-a-s`;
      const done = new Promise<void>((res) => ended.set(run, res));
      const start = new Promise<void>((res) => started.set(run, res));
      created.set(run, performance.now());
      await rawJson(kc, 'POST', `/apis/kruntimes.io/v1alpha1/namespaces/${NS}/workflowruns`, {
        body: {
          apiVersion: 'kruntimes.io/v1alpha1',
          kind: 'WorkflowRun',
          metadata: { name: wfr, labels: { 'kruntimes.dev/bench': prefix } },
          spec: { jobs: { a: { 'runs-on': runtime, steps: [step] } } },
        },
      });
      await start;
      await done;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = (performance.now() - t) / 1000;
  runs.stop();
  pods.stop();
  await rawJson(
    kc,
    'DELETE',
    `/apis/kruntimes.io/v1alpha1/namespaces/${NS}/workflowruns?labelSelector=kruntimes.dev/bench%3D${prefix}`,
  );
  return { starts: starts.sort((a, b) => a - b), perSecond: total / seconds };
}

sh('bash', [join(repoRoot, 'test', 'cluster', 'up.sh')]);
sh(join(repoRoot, 'tools', 'deploy.sh'), [join(repoRoot, 'test', 'e2e-cluster', 'overlay')]);
sh(join(clusterState, 'bin', 'kubectl'), [
  'wait',
  '-n',
  'kruntimes-system',
  '--for=condition=Available',
  'deployment',
  '--all',
  '--timeout=240s',
]);
const ms = (v: number) => `${v.toFixed(0)} ms`;
console.log(
  '\nStep runtimes on the one-node cluster: one-step WorkflowRuns; step start = create to the step running, as a watch sees it',
);
console.log('| runtime | runs, in flight | step start p50 | step start p99 | Runs/s |');
console.log('| --- | --- | --- | --- | --- |');
for (const [runs, inFlight] of [
  [ALONE_RUNS, 1],
  [RUNS, IN_FLIGHT],
] as const) {
  const pod = await bench('kubernetes', runs, inFlight);
  const bash = await bench('bash', runs, inFlight);
  const row = (name: string, r: typeof pod) =>
    console.log(
      `| ${name} | ${runs}, ${inFlight} | ${ms(q(r.starts, 0.5))} | ${ms(q(r.starts, 0.99))} | ${r.perSecond.toFixed(2)} |`,
    );
  row('kubernetes (Pod)', pod);
  row('bash (sandbox)', bash);
  console.log(
    `| Pod / bash | ${runs}, ${inFlight} | ${(q(pod.starts, 0.5) / q(bash.starts, 0.5)).toFixed(1)}x | ${(q(pod.starts, 0.99) / q(bash.starts, 0.99)).toFixed(1)}x | ${(pod.perSecond / bash.perSecond).toFixed(2)}x |`,
  );
}
process.exit(0);
