// A call job or a resource's pipeline fails for good when its Workflow does not exist, so the
// controller does not take its cache's word for it: a Workflow created just before what calls it
// may not have reached the cache yet. The reconcilers run here against the real API server with
// caches that never change (a lagging informer, held still), so what they do with a cache miss is
// seen exactly.
import type * as k8s from '@kubernetes/client-node';
import type { PromiseObject, ResourceObject, Run, Work, Workflow, WorkflowRun } from '../../src/api/types.js';
import { crd, KubeClient, statusCode } from '../../src/kube/rest.js';
import { ResilientInformer } from '../../src/kube/informer.js';
import type { ListWatch } from '../../src/kube/list-watch.js';
import { LABEL_WORKFLOWRUN_UID } from '../../src/labels.js';
import type { EventRecorder } from '../../controller/events.js';
import type { Result } from '../../src/kube/controller/controller.js';
import { reconcileResource } from '../../controller/resource.js';
import { reconcileWorkflowRun } from '../../controller/workflowrun.js';
import { SnapshotSpecs } from '../../controller/snapshots.js';
import { LABEL_RESOURCE_UID } from '../../src/labels.js';
import { testCluster, type TestCluster } from '../harness/cluster.js';

let c: TestCluster;
beforeAll(async () => {
  c = await testCluster('cache-lag');
  await c.admin.custom.createNamespacedCustomObject({
    ...crd('workflows', c.namespace),
    body: {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'Workflow',
      metadata: { name: 'leaf' },
      spec: { jobs: { j: { 'runs-on': 'bash', steps: [{ name: 's', run: 'echo leaf' }] } } },
    },
  });
});
afterAll(async () => c?.cleanup());

/** An informer whose list returns `items` and whose watch never says anything. */
async function heldStill<T extends { metadata: k8s.V1ObjectMeta }>(items: T[], indexLabels: string[] = []) {
  const lw: ListWatch<T> = {
    list: async () => ({ items, metadata: { resourceVersion: '1' } }),
    watch: async () => ({ abort: () => undefined }),
  };
  const inf = new ResilientInformer<T>(c.admin.kc, {
    path: '/held-still',
    listWatch: lw as ListWatch<never>,
    indexLabels,
  });
  await inf.start();
  return inf;
}

/** What a reconcile returned or threw, and the writes it counted; its caches are stopped after. */
async function outcomeOf(
  caches: Record<string, { stop(): void }>,
  writes: string[],
  reconcile: Promise<Result | undefined>,
) {
  const settled = await reconcile.then(
    (r) => ({ requeueAfter: r?.requeueAfter, error: undefined as unknown }),
    (error: unknown) => ({ requeueAfter: undefined, error }),
  );
  for (const inf of Object.values(caches)) inf.stop();
  return { ...settled, writes };
}

/** Reconciles a run calling `uses` whose snapshot the controller wrote and whose Workflow cache is empty. */
async function reconcileCalling(uses: string) {
  const uid = `uid-${uses}`;
  const name = `calls-${uses}`;
  const run: WorkflowRun = {
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'WorkflowRun',
    metadata: { name, namespace: c.namespace, uid, resourceVersion: '1', generation: 1 },
    spec: { jobs: { call: { uses } } },
    status: { phase: 'Pending' },
  };
  const writes: string[] = [];
  const caches = {
    workflowRuns: await heldStill<WorkflowRun>([run]),
    runs: await heldStill<Run>([], [LABEL_WORKFLOWRUN_UID]),
    workflows: await heldStill<Workflow>([]),
  };
  // The controller wrote the run's snapshot: its spec is remembered.
  const snapshotSpecs = new SnapshotSpecs(new KubeClient(c.admin.kc));
  snapshotSpecs.remember(uid, run.spec);
  return outcomeOf(
    caches,
    writes,
    reconcileWorkflowRun(`${c.namespace}/${name}`, {
      caches,
      kube: new KubeClient(c.admin.kc, { inc: (l) => writes.push(`${l.verb} ${l.resource}`) }),
      snapshotSpecs,
      events: { record: () => undefined } satisfies EventRecorder,
    }),
  );
}

/** Reconciles a new resource whose configure pipeline uses Workflow `uses`, with an empty Workflow cache. */
async function reconcileResourceUsing(uses: string) {
  const api = {
    group: 'lag.kruntimes.dev',
    version: 'v1',
    kind: 'Lag',
    plural: 'lags',
    schema: {},
    namespaced: true,
  };
  const resource = {
    apiVersion: `${api.group}/v1`,
    kind: api.kind,
    metadata: { name: `uses-${uses}`, namespace: c.namespace, uid: `uid-r-${uses}`, generation: 1 },
    spec: {},
  } as unknown as ResourceObject;
  const promise = {
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'Promise',
    metadata: { name: 'lag', uid: 'uid-promise' },
    spec: {
      workflowNamespace: c.namespace,
      workflows: {
        resource: {
          configure: [
            {
              apiVersion: 'kruntimes.io/v1alpha1',
              kind: 'Pipeline',
              metadata: { name: 'a' },
              spec: { uses },
            },
          ],
        },
      },
    },
  } as unknown as PromiseObject;
  const writes: string[] = [];
  const caches = {
    resources: await heldStill<ResourceObject>([resource]),
    workflowRuns: await heldStill<WorkflowRun>([], [LABEL_RESOURCE_UID]),
    runs: await heldStill<Run>([], [LABEL_WORKFLOWRUN_UID]),
    works: await heldStill<Work>([], [LABEL_RESOURCE_UID]),
    workflows: await heldStill<Workflow>([]),
  };
  return outcomeOf(
    caches,
    writes,
    reconcileResource(`${c.namespace}/${resource.metadata.name}`, {
      ...caches,
      api,
      promise: () => promise,
      kube: new KubeClient(c.admin.kc, { inc: (l) => writes.push(`${l.verb} ${l.resource}`) }),
      events: { record: () => undefined } satisfies EventRecorder,
    }),
  );
}

describe.each([
  { what: 'a WorkflowRun calling', reconcile: reconcileCalling, statusWrite: 'update workflowruns/status' },
  {
    what: "a resource's pipeline using",
    reconcile: reconcileResourceUsing,
    statusWrite: 'update lags/status',
  },
])('$what a Workflow its cache lacks', ({ reconcile, statusWrite }) => {
  it('looks again later, writing nothing, when the API server has the Workflow', async () => {
    const { requeueAfter, error, writes } = await reconcile('leaf');
    expect(error).toBeUndefined();
    expect(requeueAfter).toBeGreaterThan(0);
    expect(writes).toEqual([]);
  });

  it('fails the job or pipeline when the API server confirms the Workflow is missing', async () => {
    // The run or resource exists only in the held-still cache, so the status write that fails it is
    // refused with 404: what matters is that the reconciler went on to write it.
    const { error, writes } = await reconcile('absent');
    expect(writes).toEqual([statusWrite]);
    expect(statusCode(error)).toBe(404);
  });
});
