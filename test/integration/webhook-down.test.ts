// failurePolicy: Fail. With the webhook process stopped, nothing of ours can be created unchecked.
import { crd } from '../../src/kube/client.js';
import { rejection, testCluster, type TestCluster } from '../harness/cluster.js';
import { processAlive, webhookControl, webhookEndpoint } from '../harness/webhook.js';

let c: TestCluster;
beforeAll(async () => {
  c = await testCluster('webhookdown');
});
afterAll(async () => {
  if (!processAlive(webhookEndpoint().pid)) webhookControl('start');
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
  expect(processAlive(pid)).toBe(false);
  const r = await rejection(
    c.admin.custom.createNamespacedCustomObject({ ...crd('workflowruns', c.namespace), body }),
  );
  expect(r.code).toBe(500);
  expect(r.message).toContain('failed calling webhook "validate.kruntimes.io"');
  const list = (await c.admin.custom.listNamespacedCustomObject({ ...crd('workflowruns', c.namespace) })) as {
    items: unknown[];
  };
  expect(list.items).toEqual([]);

  webhookControl('start');
  await expect(
    c.admin.custom.createNamespacedCustomObject({ ...crd('workflowruns', c.namespace), body }),
  ).resolves.toBeTruthy();
});
