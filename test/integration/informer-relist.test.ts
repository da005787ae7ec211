// The informer's relist after its resourceVersion is gone (issue "Reliability under faults"): while
// its watch is away, objects change, the API server restarts (so its watch cache starts after the
// changes) and etcd's history is compacted; the watch is answered with 410 Gone, and
// the informer lists again and reports what changed, deletions included. Real API server and etcd;
// the test only holds the informer's next watch request back until the history is gone.
import * as k8s from '@kubernetes/client-node';
import { ResilientInformer } from '../../src/kube/informer.js';
import { apiServerListWatch, type ListWatch } from '../../src/kube/list-watch.js';
import { startApiServer, stopApiServer } from '../harness/apiserver.js';
import { eventually, testCluster, type TestCluster } from '../harness/cluster.js';
import { compactEtcd } from '../harness/etcd.js';

type ConfigMap = k8s.V1ConfigMap & { code?: number };

let c: TestCluster;
let informer: ResilientInformer<ConfigMap> | undefined;
beforeAll(async () => {
  c = await testCluster('informer-relist');
});
afterAll(async () => {
  informer?.stop();
  await c?.cleanup();
});

it('lists again after a 410 Gone and reports every change it missed, deletions included', async () => {
  const real = apiServerListWatch<ConfigMap>(c.admin.kc);
  let held = Promise.resolve();
  const calls: string[] = [];
  const lw: ListWatch<ConfigMap> = {
    list: async (path, selector, each) => {
      calls.push('list');
      return real.list(path, selector, each);
    },
    watch: async (path, params, onEvent, onDone) => {
      await held;
      calls.push(`watch from ${params.resourceVersion}`);
      return real.watch(
        path,
        params,
        (phase, obj) => {
          if (phase === 'ERROR') calls.push(`error ${obj.code}`);
          onEvent(phase, obj);
        },
        onDone,
      );
    },
  };
  const cm = (name: string, value: string) =>
    c.admin.core.createNamespacedConfigMap({
      namespace: c.namespace,
      body: { metadata: { name }, data: { value } },
    });
  await cm('kept', 'v1');
  await cm('removed', 'v1');

  const i = new ResilientInformer<ConfigMap>(c.admin.kc, {
    path: `/api/v1/namespaces/${c.namespace}/configmaps`,
    listWatch: lw as ListWatch<never>,
    minBackoffMs: 100,
  });
  informer = i;
  const deleted: string[] = [];
  i.on('delete', (o) => deleted.push(o.metadata?.name ?? ''));
  await i.start();
  const names = () =>
    i
      .list()
      .map((o) => `${o.metadata?.name}=${o.data?.value}`)
      .sort();
  await eventually(async () => calls.some((s) => s.startsWith('watch from')), 10_000, 'the first watch');
  expect(names()).toEqual(['kept=v1', 'removed=v1']);

  // From here the informer's next watch request waits until the history it would resume from is gone.
  let release = () => {};
  held = new Promise((r) => (release = r));
  await stopApiServer();
  await startApiServer();
  // The changes it misses.
  await c.admin.core.deleteNamespacedConfigMap({ namespace: c.namespace, name: 'removed' });
  await c.admin.core.patchNamespacedConfigMap(
    { namespace: c.namespace, name: 'kept', body: { data: { value: 'v2' } } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
  );
  await cm('added', 'v1');
  // Gone from the API server's watch cache (it starts again from now) and from etcd.
  await stopApiServer();
  await startApiServer();
  await compactEtcd();
  const listsBefore = calls.filter((s) => s === 'list').length;
  release();

  await eventually(
    async () => JSON.stringify(names()) === JSON.stringify(['added=v1', 'kept=v2']),
    30_000,
    `the informer to hold what the server holds (has ${names().join(', ')})`,
  );
  expect(deleted).toEqual(['removed']);
  // It got there by the 410 and a list, not by a watch that replayed the changes.
  const after = calls.slice(calls.findIndex((s, n) => n > 0 && s === 'error 410'));
  expect(after[0]).toBe('error 410');
  expect(after.slice(1)).toContain('list');
  expect(calls.filter((s) => s === 'list').length).toBeGreaterThan(listsBefore);
});
