// The API server's refusals, classified as the controller and runtimed classify them
// (src/kube/retry.ts), from what the real API server sends: a namespace being deleted (by the Status's
// NamespaceTerminating cause, not its words), an RBAC denial, an admission webhook's denial. (A full
// ResourceQuota needs the quota controller, which the local control plane does not run: the cluster
// suite's quota test sees it classified, a Run waiting on it.)
import { KubeClient, type Coordinates } from '../../src/kube/rest.js';
import {
  isAuthorizationDenial,
  isDeterministicRefusal,
  isNamespaceTerminating,
  isQuotaExceeded,
} from '../../src/kube/retry.js';
import { testCluster, type TestCluster } from '../harness/cluster.js';

let c: TestCluster;
let admin: KubeClient;
beforeAll(async () => {
  c = await testCluster('api-errors');
  admin = new KubeClient(c.admin.kc);
});
afterAll(async () => {
  await c?.cleanup();
});

const configMaps = (namespace: string): Coordinates => ({
  group: '',
  version: 'v1',
  plural: 'configmaps',
  namespace,
});
const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });

/** The error a call fails with; the test fails if it does not. */
async function refusal(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => {
      throw new Error('the call succeeded');
    },
    (e: unknown) => e,
  );
}

it('tells a namespace being deleted by the cause in its Status', async () => {
  const namespace = `${c.namespace}-ending`;
  const namespaces = { group: '', version: 'v1', plural: 'namespaces' };
  await admin.create(namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  // A ConfigMap with a finalizer holds the namespace in Terminating for as long as the test needs.
  await admin.create(configMaps(namespace), {
    ...configMap('held'),
    metadata: { name: 'held', finalizers: ['kruntimes.dev/test'] },
  });
  await admin.delete({ ...namespaces, name: namespace });
  const e = await refusal(admin.create(configMaps(namespace), configMap('late')));
  expect([isNamespaceTerminating(e), isDeterministicRefusal(e), isQuotaExceeded(e)]).toEqual([
    true,
    false,
    false,
  ]);
  await admin.patch({ ...configMaps(namespace), name: 'held' }, { metadata: { finalizers: null } });
});

it('tells an RBAC denial from an admission denial', async () => {
  const other = new KubeClient(c.user.kc);
  const denied = await refusal(other.create(configMaps('kube-system'), configMap('x')));
  expect([isAuthorizationDenial(denied), isDeterministicRefusal(denied)]).toEqual([true, false]);
  const runs = { group: 'kruntimes.io', version: 'v1alpha1', plural: 'workflowruns', namespace: c.namespace };
  const invalid = await refusal(
    admin.create(runs, {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'WorkflowRun',
      metadata: { name: 'bad' },
      spec: { jobs: { a: { 'runs-on': 'bash', steps: [{ run: 'echo ${{ nosuch.x }}' }] } } },
    }),
  );
  expect([isAuthorizationDenial(invalid), isDeterministicRefusal(invalid)]).toEqual([false, true]);
});
