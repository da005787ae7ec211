// failurePolicy: Fail. With the webhook process stopped, nothing of ours can be created unchecked;
// deletion, which the webhook only warns about, is not held up (failurePolicy: Ignore for DELETE).
import { type Clients } from '../../src/kube/client.js';
import { crd, statusCode } from '../../src/kube/rest.js';
import { agentClients } from '../harness/agent.js';
import { createRun, patchRun } from '../harness/objects.js';
import { eventually, KCM_WAIT_MS, rejection, testCluster, type TestCluster } from '../harness/cluster.js';
import { processAlive, webhookControl, webhookEndpoint } from '../harness/webhook.js';

let c: TestCluster;
beforeAll(async () => {
  c = await testCluster('webhookdown');
});
/** Whether the webhook runs (a stopped one may have left no pid file). */
function webhookAlive(): boolean {
  try {
    return processAlive(webhookEndpoint().pid);
  } catch {
    return false;
  }
}

afterAll(async () => {
  if (!webhookAlive()) webhookControl('start');
  await c?.cleanup();
});

const body = {
  apiVersion: 'kruntimes.io/v1alpha1',
  kind: 'WorkflowRun',
  metadata: { name: 'unchecked' },
  spec: { jobs: { a: { 'runs-on': 'bash', steps: [{ name: 's', run: 'true' }] } } },
};

it('refuses to create a WorkflowRun while the webhook is down, and stores nothing', async () => {
  const { pid } = webhookEndpoint();
  webhookControl('stop');
  // Started again whatever the assertions say: every later suite needs the webhook.
  try {
    await refusedWhileDown(pid);
  } finally {
    if (!webhookAlive()) webhookControl('start');
  }
  await expect(
    c.admin.custom.createNamespacedCustomObject({ ...crd('workflowruns', c.namespace), body }),
  ).resolves.toBeTruthy();
});

async function refusedWhileDown(pid: number): Promise<void> {
  expect(processAlive(pid)).toBe(false);
  const r = await rejection(
    c.admin.custom.createNamespacedCustomObject({ ...crd('workflowruns', c.namespace), body }),
  );
  expect(r.code).toBe(500);
  // The mutating webhook is the first to be called: it records the run's creator, and must not be
  // skipped (a run without one may use no Secret).
  expect(r.message).toContain('failed calling webhook "mutate.kruntimes.io"');
  const list = (await c.admin.custom.listNamespacedCustomObject({ ...crd('workflowruns', c.namespace) })) as {
    items: unknown[];
  };
  expect(list.items).toEqual([]);
}

it(
  'lets Workflows and a namespace holding them be deleted while the webhook is down',
  async () => {
    const other = await testCluster('webhookdown-ns');
    const wf = (name: string) => ({
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'Workflow',
      metadata: { name },
      spec: { jobs: { a: { 'runs-on': 'bash', steps: [{ name: 's', run: 'true' }] } } },
    });
    for (const name of ['one', 'two'])
      await other.admin.custom.createNamespacedCustomObject({
        ...crd('workflows', other.namespace),
        body: wf(name),
      });
    webhookControl('stop');
    try {
      await expect(
        other.admin.custom.deleteNamespacedCustomObject({
          ...crd('workflows', other.namespace),
          name: 'one',
        }),
      ).resolves.toBeTruthy();
      await other.admin.core.deleteNamespace({ name: other.namespace });
      await eventually(
        async () => {
          const gone = await other.admin.core
            .readNamespace({ name: other.namespace })
            .then(() => false)
            .catch((e: unknown) => statusCode(e) === 404);
          return gone;
        },
        KCM_WAIT_MS,
        'the namespace to be deleted with the webhook down',
      );
    } finally {
      webhookControl('start');
    }
  },
  2 * KCM_WAIT_MS,
);

it("lets a Run's holder report while the webhook is down, and holds up every other agent's write", async () => {
  const as = agentClients;
  const status = (who: Clients, body: object) => patchRun(c, 'held', body, true, who);
  const holder = as('holder');
  const other = as('other');
  // A runtime no agent serves: nobody but this test writes the Run.
  await createRun(c, 'held', { runtime: 'webhookdown-nobody', script: 'true' });
  await status(holder, { status: { phase: 'Running', assignedTo: 'holder', attempts: 1 } });
  webhookControl('stop');
  try {
    await expect(
      status(holder, { status: { heartbeatTime: new Date().toISOString() } }),
    ).resolves.toBeTruthy();
    const r = await rejection(status(other, { status: { phase: 'Pending', assignedTo: null } }));
    expect(r.code).toBe(500);
    expect(r.message).toContain('failed calling webhook "validate-run-status.kruntimes.io"');
    await expect(
      status(holder, { status: { phase: 'Succeeded', reason: 'Completed', exitCode: 0 } }),
    ).resolves.toBeTruthy();
  } finally {
    webhookControl('start');
  }
});
