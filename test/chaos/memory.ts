// `make memory`: the components' RSS with KRT_MEMORY_RUNS (10,000) finished WorkflowRuns and their
// Runs in the cluster. Creates one-step runs, 50 at a time, waits until all have finished, lets
// the components settle, and prints each one's RSS then and its peak during the load.
import { readFileSync } from 'node:fs';
import type { WorkflowRun } from '../../src/api/types.js';
import { crd } from '../../src/kube/rest.js';
import { ResilientInformer } from '../../src/kube/informer.js';
import { testCluster } from '../harness/cluster.js';
import { pidOf } from '../harness/processes.js';

const RUNS = Number(process.env.KRT_MEMORY_RUNS ?? 10_000);
const COMPONENTS = ['controller', 'webhook', 'runtimed'];
const rssMiB = (name: string) => {
  try {
    return (
      Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pidOf(name)}/status`, 'utf8'))?.[1] ?? 0) / 1024
    );
  } catch {
    return 0;
  }
};
const log = (msg: string) =>
  process.stderr.write(`memory ${new Date().toISOString().slice(11, 19)} ${msg}\n`);

async function main() {
  const c = await testCluster('memory');
  const started = Date.now();
  const done = new Set<string>();
  const runs = new ResilientInformer<WorkflowRun>(c.admin.kc, {
    path: `/apis/kruntimes.io/v1alpha1/namespaces/${c.namespace}/workflowruns`,
  });
  const seen = (r: WorkflowRun) => {
    if (r.status?.phase === 'Succeeded' || r.status?.phase === 'Failed') done.add(r.metadata?.name ?? '');
  };
  runs.on('add', seen);
  runs.on('update', (_o, r) => seen(r));
  await runs.start();
  const peak = Object.fromEntries(COMPONENTS.map((k) => [k, 0]));
  const sampler = setInterval(() => {
    for (const k of COMPONENTS) peak[k] = Math.max(peak[k] ?? 0, rssMiB(k));
  }, 1000);

  let next = 0;
  const worker = async () => {
    while (next < RUNS) {
      const i = next++;
      await c.admin.custom.createNamespacedCustomObject({
        ...crd('workflowruns', c.namespace),
        body: {
          apiVersion: 'kruntimes.io/v1alpha1',
          kind: 'WorkflowRun',
          metadata: { name: `memory-${i}` },
          spec: {
            jobs: { a: { 'runs-on': 'bash', steps: [{ name: 's', run: `echo "v=${i}" >> "$KRT_OUTPUT"` }] } },
          },
        },
      });
      // RSS as the history grows, so a long run (KRT_MEMORY_RUNS=50000) says something before its end.
      if (i % 1000 === 0)
        log(
          `created ${i}, finished ${done.size}; RSS ${COMPONENTS.map((k) => `${k} ${rssMiB(k).toFixed(0)} MiB`).join(', ')}`,
        );
      // Keep at most 200 unfinished, as a steady workload would.
      while (next - done.size > 200) await new Promise((r) => setTimeout(r, 200));
    }
  };
  await Promise.all(Array.from({ length: 50 }, worker));
  while (done.size < RUNS) await new Promise((r) => setTimeout(r, 1000));
  log(
    `all ${RUNS} finished in ${((Date.now() - started) / 60_000).toFixed(1)} min; letting the components settle`,
  );
  // At rest: what the caches of finished runs cost once the load's garbage is collected.
  await new Promise((r) => setTimeout(r, 60_000));
  clearInterval(sampler);
  const failed = runs.list().filter((r) => r.status?.phase !== 'Succeeded').length;
  console.log(`\n${RUNS} finished WorkflowRuns (${failed} not Succeeded) and ${RUNS} Runs in one namespace:`);
  for (const k of COMPONENTS)
    console.log(
      `${k.padEnd(11)} RSS ${rssMiB(k).toFixed(0)} MiB at rest, ${(peak[k] ?? 0).toFixed(0)} MiB peak`,
    );
  runs.stop();
  if (!process.env.KRT_MEMORY_KEEP) await c.cleanup();
}

await main();
