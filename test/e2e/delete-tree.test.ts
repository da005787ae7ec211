// Deleting a root WorkflowRun while its own step and its call job's child step both run: the
// whole tree goes and both steps stop, whatever the garbage collector is doing. Under load the
// collector's graph can lag a minute behind (seen once: 5 objects of such a tree and both steps
// still there 60 s after the delete); here kube-controller-manager is stopped (SIGSTOP) for the
// test, so only the controller's own clean-up can make it hold.
import { AppsV1Api } from '@kubernetes/client-node';
import type { Run, WorkflowRun } from '../../src/api/types.js';
import { apiClient } from '../../src/kube/client.js';
import { crd } from '../../src/kube/rest.js';
import { eventually, testCluster, type TestCluster } from '../harness/cluster.js';
import { processesWith, workflowReady } from '../harness/objects.js';
import { pidOf, processAlive } from '../harness/processes.js';

let c: TestCluster;
const kcm = () => pidOf('kube-controller-manager');
beforeAll(async () => {
  c = await testCluster('e2e-delete-tree');
});
afterAll(async () => {
  // Whatever happened above, the collector runs again for the suites after this one.
  if (processAlive(kcm())) process.kill(kcm(), 'SIGCONT');
  await c?.cleanup();
});

const marker = () => String(100000 + Math.floor(Math.random() * 800000));
const list = async <T>(plural: 'workflowruns' | 'runs') =>
  ((await c.admin.custom.listNamespacedCustomObject({ ...crd(plural, c.namespace) })) as { items: T[] })
    .items;
const revisions = async () =>
  (await apiClient(c.admin.kc, AppsV1Api).listNamespacedControllerRevision({ namespace: c.namespace })).items;

it('stops both steps and removes the tree while the garbage collector is stopped', async () => {
  const own = marker();
  const called = marker();
  await c.admin.custom.createNamespacedCustomObject({
    ...crd('workflows', c.namespace),
    body: {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'Workflow',
      metadata: { name: 'slow' },
      spec: { jobs: { work: { 'runs-on': 'bash', steps: [{ name: 'sleep', run: `sleep ${called}` }] } } },
    },
  });
  await workflowReady(c, 'slow');
  await c.admin.custom.createNamespacedCustomObject({
    ...crd('workflowruns', c.namespace),
    body: {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'WorkflowRun',
      metadata: { name: 'root' },
      spec: {
        jobs: {
          own: { 'runs-on': 'bash', steps: [{ name: 'sleep', run: `sleep ${own}` }] },
          call: { uses: 'slow' },
        },
      },
    },
  });
  await eventually(
    async () => processesWith(`sleep ${own}`).length > 0 && processesWith(`sleep ${called}`).length > 0,
    60_000,
    'both steps to run',
  );
  expect((await list<WorkflowRun>('workflowruns')).map((r) => r.metadata.name).sort()).toEqual([
    'root',
    'root-call-call',
  ]);
  expect(await list<Run>('runs')).toHaveLength(2);
  expect(await revisions()).toHaveLength(2);

  process.kill(kcm(), 'SIGSTOP');
  try {
    await c.admin.custom.deleteNamespacedCustomObject({ ...crd('workflowruns', c.namespace), name: 'root' });
    await eventually(
      async () => processesWith(`sleep ${own}`).length === 0 && processesWith(`sleep ${called}`).length === 0,
      20_000,
      () =>
        `both steps to stop (still running: ${[own, called].filter((m) => processesWith(`sleep ${m}`).length)})`,
    );
    let left: string[] = [];
    await eventually(
      async () => {
        left = [
          ...(await list<WorkflowRun>('workflowruns')).map((r) => `WorkflowRun ${r.metadata.name}`),
          ...(await list<Run>('runs')).map((r) => `Run ${r.metadata.name}`),
          ...(await revisions()).map((r) => `ControllerRevision ${r.metadata?.name}`),
        ];
        return left.length === 0;
      },
      20_000,
      () => `the tree to go (left: ${left.join(', ')})`,
    );
  } finally {
    process.kill(kcm(), 'SIGCONT');
  }
});
