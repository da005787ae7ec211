// Restart safety: the controller SIGKILLed 20 times at random moments during a batch of nested
// runs. Every run finishes with the right outputs and no child is made twice (deterministic names;
// AlreadyExists with our owner means adopt).
import type { Run, WorkflowRun } from '../../src/api/types.js';
import { crd } from '../../src/kube/rest.js';
import { eventually, testCluster, type TestCluster } from '../harness/cluster.js';
import { controllerSees } from '../harness/caches.js';
import { controllerPid, isLeader, startController } from '../harness/controller.js';
import { kubectl } from '../harness/kubectl.js';
import { processAlive } from '../harness/webhook.js';

const KILLS = 20;
const RUNS = 6;
const inline = (run: string, extra: object = {}) => ({
  'runs-on': 'bash',
  steps: [{ name: 'main', run }],
  ...extra,
});

let c: TestCluster;
beforeAll(async () => {
  c = await testCluster('restart');
});
afterAll(async () => {
  if (!processAlive(controllerPid())) startController();
  // Leave a leading controller behind for the suites that run next.
  await eventually(async () => (await isLeader()) === 1, 40000, 'the controller to lead again');
  await c?.cleanup();
});

function apply(obj: object) {
  const r = kubectl(['apply', '-n', c.namespace, '-f', '-'], JSON.stringify(obj));
  if (r.status !== 0) throw new Error(r.stderr);
}

it(`finishes every run with correct outputs and no duplicate child across ${KILLS} SIGKILLs`, async () => {
  const wf = (name: string, spec: object) =>
    apply({ apiVersion: 'kruntimes.io/v1alpha1', kind: 'Workflow', metadata: { name }, spec });
  wf('leaf', {
    inputs: { n: {} },
    outputs: { value: { value: '${{ jobs.make.outputs.value }}' } },
    jobs: {
      make: {
        'runs-on': 'bash',
        steps: [
          {
            name: 'main',
            run: 'sleep 0.3; echo "value=leaf-$N" >> "$KRT_OUTPUT"',
            env: { N: '${{ inputs.n }}' },
          },
        ],
        outputs: { value: '${{ steps.main.outputs.value }}' },
      },
    },
  });
  wf('mid', {
    inputs: { n: {} },
    outputs: { value: { value: '${{ jobs.call.outputs.value }}' } },
    jobs: {
      prep: inline('sleep 0.2'),
      call: { needs: ['prep'], uses: 'leaf', with: { n: '${{ inputs.n }}' } },
    },
  });
  await controllerSees(c, 'leaf', 'mid');
  for (let i = 0; i < RUNS; i++)
    apply({
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'WorkflowRun',
      metadata: {
        name: `batch-${i}`,
        annotations: { 'kruntimes.io/workflow-output.value': '${{ jobs.call.outputs.value }}' },
      },
      spec: {
        jobs: {
          call: { uses: 'mid', with: { n: String(i) } },
          after: {
            needs: ['call'],
            'runs-on': 'bash',
            steps: [{ name: 'main', run: 'echo "$V"', env: { V: '${{ jobs.call.outputs.value }}' } }],
          },
        },
      },
    });

  let leaderKills = 0;
  for (let k = 0; k < KILLS; k++) {
    // Each kill lands while the controller leads and works: after it took the lease, at a random moment.
    await eventually(async () => (await isLeader()) === 1, 30000, 'the restarted controller to lead');
    leaderKills++;
    // At a random moment of its work: chaos, not synchronisation.
    await new Promise((r) => setTimeout(r, 100 + Math.random() * 600));
    const pid = controllerPid();
    if (processAlive(pid)) process.kill(pid, 'SIGKILL');
    await eventually(async () => !processAlive(pid), 5000, 'the controller to die');
    startController();
  }

  expect(leaderKills).toBe(KILLS);
  const list = async () =>
    (
      (await c.admin.custom.listNamespacedCustomObject({ ...crd('workflowruns', c.namespace) })) as {
        items: WorkflowRun[];
      }
    ).items;
  await eventually(
    async () =>
      (await list())
        .filter((r) => r.metadata.name?.startsWith('batch-') && !r.metadata.name.includes('-call-'))
        .every((r) => ['Succeeded', 'Failed', 'Cancelled'].includes(r.status?.phase ?? '')),
    120_000,
    'every batch run to end',
  );
  const all = await list();
  for (let i = 0; i < RUNS; i++) {
    const root = all.find((r) => r.metadata.name === `batch-${i}`);
    expect({ name: root?.metadata.name, phase: root?.status?.phase, outputs: root?.status?.outputs }).toEqual(
      { name: `batch-${i}`, phase: 'Succeeded', outputs: { value: `leaf-${i}` } },
    );
  }
  // One child and one grandchild per root, each owned by its direct parent only; one Run per step.
  expect(all).toHaveLength(RUNS * 3);
  const owners = all
    .filter((r) => r.metadata.name?.includes('-call-'))
    .map((r) => r.metadata.ownerReferences?.length);
  expect(owners.every((n) => n === 1)).toBe(true);
  const runs = (
    (await c.admin.custom.listNamespacedCustomObject({ ...crd('runs', c.namespace) })) as { items: Run[] }
  ).items;
  // Per root: its `after` step, the child's `prep` step and the grandchild's `make` step.
  expect(runs).toHaveLength(RUNS * 3);
}, 300_000);
