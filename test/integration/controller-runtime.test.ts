// The controller runtime against the real API server: a resource API that appears while the
// process runs (a CRD applied at run time) gets a controller, its objects are reconciled, and when
// the controller is removed its watch is closed.
import {
  ApiextensionsV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { apiClient } from '../../src/kube/client.js';
import { defineController } from '../../src/kube/controller/controller.js';
import { ControllerManager } from '../../src/kube/controller/manager.js';
import { eventually, testCluster, type TestCluster } from '../harness/cluster.js';

const GROUP = 'krt-runtime-test.example.com';
const PLURAL = 'widgets';
const CRD = `${PLURAL}.${GROUP}`;
type Widget = {
  metadata: { name: string; namespace: string; generation?: number };
  status?: { seen?: number };
};

let c: TestCluster;
let m: ControllerManager;
beforeAll(async () => {
  c = await testCluster('runtime');
  m = new ControllerManager(c.admin.kc, { registry: new Registry() });
  await m.start();
});
afterAll(async () => {
  await m?.stop();
  await apiClient(c.admin.kc, ApiextensionsV1Api)
    .deleteCustomResourceDefinition({ name: CRD })
    .catch(() => undefined);
  await c?.cleanup();
});

it('adds a controller for a CRD made at run time, reconciles its objects, removes it and closes its watch', async () => {
  const ext = apiClient(c.admin.kc, ApiextensionsV1Api);
  await ext.createCustomResourceDefinition({
    body: {
      metadata: { name: CRD },
      spec: {
        group: GROUP,
        scope: 'Namespaced',
        names: { plural: PLURAL, singular: 'widget', kind: 'Widget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: { type: 'object', x_kubernetes_preserve_unknown_fields: true },
                  status: { type: 'object', properties: { seen: { type: 'integer' } } },
                },
              },
            },
          },
        ],
      },
    },
  });
  await eventually(
    async () =>
      (await ext.readCustomResourceDefinition({ name: CRD })).status?.conditions?.some(
        (x) => x.type === 'Established' && x.status === 'True',
      ) ?? false,
    20_000,
    'the CRD to be established',
  );

  const custom = apiClient(c.admin.kc, CustomObjectsApi);
  const at = { group: GROUP, version: 'v1', plural: PLURAL, namespace: c.namespace };
  const path = `/apis/${GROUP}/v1/${PLURAL}`;
  const widgets = m.informer<Widget>({ path });
  const reconciled: string[] = [];
  await m.add(
    defineController({
      name: 'widgets',
      for: widgets,
      reconcile: async (key) => {
        reconciled.push(key);
        const [namespace, name] = key.split('/') as [string, string];
        const w = widgets.get(namespace, name);
        if (!w || w.status?.seen === w.metadata.generation) return;
        await custom.patchNamespacedCustomObjectStatus(
          { ...at, name, body: { status: { seen: w.metadata.generation } } },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        );
      },
    }),
  );
  expect(m.watching).toContain(`${path}?`);
  expect(widgets.running).toBe(true);

  await custom.createNamespacedCustomObject({
    ...at,
    body: { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 1 } },
  });
  await eventually(
    async () =>
      ((await custom.getNamespacedCustomObject({ ...at, name: 'w1' })) as Widget).status?.seen === 1,
    20_000,
    'widget w1 to be reconciled',
  );
  expect(reconciled).toContain(`${c.namespace}/w1`);
  await eventually(async () => widgets.watchOpen, 10_000, 'the watch to be open');

  await m.remove('widgets');
  expect(widgets.running).toBe(false);
  expect(m.watching).not.toContain(`${path}?`);
  await eventually(async () => !widgets.watchOpen, 10_000, 'the watch to be closed');
  // The API disappears as a Promise's would; nothing of the manager minds.
  await ext.deleteCustomResourceDefinition({ name: CRD });
  expect(m.healthy()).toBe(true);
});
