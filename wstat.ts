import type { Run, WorkflowRun } from './src/api/types.js';
import { ResilientInformer } from './src/kube/informer.js';
import { microTime } from './src/kube/leader.js';
import { rawJson } from './src/kube/raw.js';
import { crd, KubeClient } from './src/kube/rest.js';
import { AGENT_LEASE_NAMESPACE, agentLease } from './src/runtime/agents.js';
import { testCluster } from './test/harness/cluster.js';

const N = Number(process.env.N ?? 50);
async function main() {
  const c = await testCluster('wstat');
  const kc = c.admin.kc;
  const kube = new KubeClient(kc);
  const leases = `/apis/coordination.k8s.io/v1/namespaces/${AGENT_LEASE_NAMESPACE}/leases`;
  const lease = agentLease({ identity: `bench-standin-${c.namespace}`, runtimes: ['bench-standin'], namespaces: [c.namespace], durationSeconds: 3600 }, new Date());
  await rawJson(kc, 'POST', leases, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', ...lease, spec: { ...lease.spec, renewTime: microTime(new Date()) } });
  const runs = new ResilientInformer<Run>(kc, { path: `/apis/kruntimes.io/v1alpha1/namespaces/${c.namespace}/runs` });
  runs.on('add', (r: Run) => {
    if (r.status?.phase) return;
    void kube.patchStatus({ ...crd('runs', c.namespace), name: r.metadata.name ?? '' }, { status: { phase: 'Succeeded', exitCode: 0 } }).catch(() => undefined);
  });
  await runs.start();
  const seq = new Map<string, unknown[]>();
  const wfrs = new ResilientInformer<WorkflowRun>(kc, { path: `/apis/kruntimes.io/v1alpha1/namespaces/${c.namespace}/workflowruns`, transform: (o: never) => o });
  let done = 0;
  wfrs.on('update', (_o, r) => {
    const s = seq.get(r.metadata.name ?? '') ?? [];
    s.push(r.status);
    seq.set(r.metadata.name ?? '', s);
    if (r.status?.phase === 'Succeeded' && _o.status?.phase !== 'Succeeded') done++;
  });
  await wfrs.start();
  for (let i = 0; i < N; i++) {
    const spec: Record<string, unknown> = {};
    for (let j = 0; j < 5; j++) spec[`j${j}`] = { 'runs-on': 'bench-standin', ...(j > 0 ? { needs: [`j${j - 1}`] } : {}), steps: [0, 1].map((s) => ({ name: `s${s}`, run: 'true' })) };
    await kube.create(crd('workflowruns', c.namespace), { apiVersion: 'kruntimes.io/v1alpha1', kind: 'WorkflowRun', metadata: { name: `w${i}` }, spec: { jobs: spec } });
  }
  while (done < N) await new Promise((r) => setTimeout(r, 500));
  await new Promise((r) => setTimeout(r, 5000));
  const hist = new Map<number, number>();
  for (const s of seq.values()) hist.set(s.length, (hist.get(s.length) ?? 0) + 1);
  console.log('status updates per WR:', [...hist].sort());
  const extra = [...seq].find(([, s]) => s.length > 11);
  if (extra) for (const s of extra[1]) console.log(JSON.stringify(s));
  runs.stop(); wfrs.stop();
  await rawJson(kc, 'DELETE', `${leases}/${lease.metadata.name}`).catch(() => undefined);
  await c.cleanup();
  process.exit(0);
}
void main();
