// Promises for the suites: each test its own resource API (a unique kind in test.kruntimes.dev), the
// controller granted that group through the aggregated kruntimes-promises role, each Promise's Works
// what the tests apply through its own account, resources created and read through the real API server.
import { randomBytes } from 'node:crypto';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { Pipeline, PromiseObject, ResourceObject } from '../../src/api/types.js';
import { promiseServiceAccount } from '../../src/names.js';
import { eventually, testCluster, type TestCluster } from './cluster.js';
import { channel, type Channel } from './channel.js';
import { controllerPid, startController } from './controller.js';
import { processAlive } from './webhook.js';
import { kubectl } from './kubectl.js';

export const TEST_GROUP = 'test.kruntimes.dev';

/** Grants the controller the test group and ConfigMaps, and waits until the aggregation shows it. */
export async function grantTestGroup(): Promise<void> {
  const role = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'kruntimes-test-promises', labels: { 'kruntimes.io/aggregate-to-promises': 'true' } },
    rules: [
      {
        apiGroups: [TEST_GROUP],
        resources: ['*'],
        verbs: ['get', 'list', 'watch', 'patch', 'update', 'delete'],
      },
    ],
  };
  // What the tests' Works apply, granted to each test Promise's own account (applyPromise).
  const works = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: PROMISE_WORKS_ROLE },
    rules: [
      // Namespaces: a cluster-scoped kind a Work may apply, for the cleanup tests.
      {
        apiGroups: [''],
        resources: ['configmaps', 'namespaces'],
        verbs: ['get', 'create', 'patch', 'delete'],
      },
    ],
  };
  for (const o of [role, works]) {
    const r = kubectl(['apply', '-f', '-'], JSON.stringify(o));
    if (r.status !== 0) throw new Error(r.stderr);
  }
  await eventually(
    async () =>
      kubectl([
        'get',
        'clusterrole',
        'kruntimes-promises',
        '-o',
        'jsonpath={.rules[*].apiGroups}',
      ]).stdout.includes(TEST_GROUP),
    30_000,
    'the aggregated kruntimes-promises role to include the test group',
  );
}

export interface TestApi {
  promise: string;
  kind: string;
  plural: string;
  /** TEST_GROUP unless a test needs a group the controller was not granted. */
  group?: string;
}

export const pipeline = (name: string, run: string, env: Record<string, string> = {}): Pipeline => ({
  apiVersion: 'kruntimes.io/v1alpha1',
  kind: 'Pipeline',
  metadata: { name },
  spec: { jobs: { main: { 'runs-on': 'bash', steps: [{ name: 'go', run, env }] } } },
});

export function promiseFor(api: TestApi, configure: Pipeline[], extra: Partial<PromiseObject['spec']> = {}) {
  return {
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'Promise',
    metadata: { name: api.promise },
    spec: {
      api: {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: `${api.plural}.${api.group ?? TEST_GROUP}` },
        spec: {
          group: api.group ?? TEST_GROUP,
          scope: 'Namespaced',
          names: { kind: api.kind, plural: api.plural },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: {
                  type: 'object',
                  properties: { spec: { type: 'object', properties: { size: { type: 'string' } } } },
                },
              },
            },
          ],
        },
      },
      workflows: { resource: { configure } },
      ...extra,
    },
  };
}

/** A new API name for one test. */
export function newApi(): TestApi {
  const id = randomBytes(3).toString('hex');
  return { promise: `p-${id}`, kind: `Thing${id}`, plural: `things${id}` };
}

/** The ClusterRole of what the tests' Works may apply (ConfigMaps, Namespaces). */
export const PROMISE_WORKS_ROLE = 'kruntimes-test-promise-works';

/** Grants a Promise's own account (which its Works act as) what the tests' Works apply. */
export function grantPromiseWorks(promise: string): void {
  const binding = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: `kruntimes-test-works-${promise}`, labels: { 'kruntimes.io/test': 'promise-works' } },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: PROMISE_WORKS_ROLE },
    subjects: [
      { kind: 'ServiceAccount', name: promiseServiceAccount(promise), namespace: 'kruntimes-system' },
    ],
  };
  const r = kubectl(['apply', '-f', '-'], JSON.stringify(binding));
  if (r.status !== 0) throw new Error(r.stderr);
}

/** Applies the Promise, its Works granted what the tests' Works apply, and waits until its API is served. */
export async function applyPromise(promise: object): Promise<void> {
  const name = (promise as { metadata: { name: string } }).metadata.name;
  grantPromiseWorks(name);
  const r = kubectl(['apply', '-f', '-'], JSON.stringify(promise));
  if (r.status !== 0) throw new Error(r.stderr);
  const w = kubectl(['wait', '--for=condition=Available', '--timeout=30s', `promise/${name}`]);
  if (w.status !== 0) throw new Error(`promise ${name} not Available: ${w.stderr}`);
}

export function resourceClient(c: TestCluster, api: TestApi) {
  const coords = { group: TEST_GROUP, version: 'v1', plural: api.plural, namespace: c.namespace };
  const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  const get = async (name: string) =>
    (await c.admin.custom.getNamespacedCustomObject({ ...coords, name })) as ResourceObject;
  /** Polls the resource until `ok` holds; a timeout says what part of it was seen last. */
  const until = async (
    name: string,
    ok: (r: ResourceObject) => boolean,
    what: string,
    shown: (r: ResourceObject | undefined) => unknown,
    timeoutMs: number,
  ): Promise<ResourceObject> => {
    let last: ResourceObject | undefined;
    await eventually(
      async () => {
        last = await get(name).catch(() => undefined);
        return last !== undefined && ok(last);
      },
      timeoutMs,
      () => `${api.kind} ${name} ${what} (last: ${JSON.stringify(shown(last))})`,
    );
    return last as ResourceObject;
  };
  return {
    create: (name: string, spec: object, labels: Record<string, string> = {}) =>
      c.admin.custom.createNamespacedCustomObject({
        ...coords,
        body: { apiVersion: `${TEST_GROUP}/v1`, kind: api.kind, metadata: { name, labels }, spec },
      }),
    get,
    patch: (name: string, body: object) =>
      c.admin.custom.patchNamespacedCustomObject({ ...coords, name, body }, merge),
    /** Waits until the resource's configure workflow is in `phase`, for round `round` at least. */
    workflow: (name: string, phase: string, round = 1, timeoutMs = 60_000) =>
      until(
        name,
        (r) => {
          const w = r.status?.kruntimes?.workflows;
          return w?.phase === phase && (w.round ?? 0) >= round;
        },
        `to be ${phase} in round ${round}`,
        (r) => r?.status?.kruntimes ?? {},
        timeoutMs,
      ),
    /** Waits until the resource carries condition `type` with `status`. */
    condition: (name: string, type: string, status: 'True' | 'False', timeoutMs = 60_000) =>
      until(
        name,
        (r) => r.status?.conditions?.some((x) => x.type === type && x.status === status) ?? false,
        `to have ${type}=${status}`,
        (r) => r?.status?.conditions ?? [],
        timeoutMs,
      ),
  };
}

export function deletePromise(name: string): void {
  kubectl(['delete', 'promise', name, '--wait=false', '--ignore-not-found']);
}

/**
 * The life of a Promise suite: its namespace, a channel for its steps, the test group granted; after
 * it, a controller a test killed is started again and its Promises deleted.
 */
export function promiseSuite(name: string): { c: TestCluster; ch: Channel; promises: string[] } {
  const suite = { c: undefined as unknown as TestCluster, ch: undefined as unknown as Channel, promises: [] };
  beforeAll(async () => {
    suite.c = await testCluster(name);
    suite.ch = await channel();
    await grantTestGroup();
  });
  afterAll(async () => {
    if (!processAlive(controllerPid())) startController();
    for (const p of suite.promises) deletePromise(p);
    await suite.c?.cleanup();
    await suite.ch?.close();
  });
  return suite;
}
