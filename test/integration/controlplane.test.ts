// The local control plane is real: CRDs served, the garbage collector deletes owned objects, and
// RBAC forbids an identity with no bindings.
import { execFileSync } from 'node:child_process';
import { crd } from '../../src/kube/rest.js';
import { eventually, KCM_WAIT_MS, rejection, testCluster, type TestCluster } from '../harness/cluster.js';
import { adminKubeconfig, kubectlPath } from '../harness/paths.js';

const wfr = (name: string) => ({
  apiVersion: 'kruntimes.io/v1alpha1',
  kind: 'WorkflowRun',
  metadata: { name },
  spec: { jobs: { build: { 'runs-on': 'bash', steps: [{ name: 'package', run: 'true' }] } } },
});

let c: TestCluster;
beforeAll(async () => {
  c = await testCluster('controlplane');
});
afterAll(async () => c?.cleanup());

function kubectl(...args: string[]): string {
  return execFileSync(kubectlPath, ['--kubeconfig', adminKubeconfig, ...args], { encoding: 'utf8' });
}

describe('local control plane', () => {
  it('serves the three CRDs with their short names and printer columns', async () => {
    const names = kubectl(
      'get',
      'crd',
      'workflowruns.kruntimes.io',
      'workflows.kruntimes.io',
      'runs.kruntimes.io',
      '-o',
      'name',
    );
    expect(names.trim().split('\n').sort()).toEqual([
      'customresourcedefinition.apiextensions.k8s.io/runs.kruntimes.io',
      'customresourcedefinition.apiextensions.k8s.io/workflowruns.kruntimes.io',
      'customresourcedefinition.apiextensions.k8s.io/workflows.kruntimes.io',
    ]);
    await c.admin.custom.createNamespacedCustomObject({
      ...crd('workflowruns', c.namespace),
      body: wfr('columns'),
    });
    const table = kubectl('get', 'wfr', '-n', c.namespace);
    expect(table.split('\n')[0]).toMatch(/^NAME\s+PHASE\s+JOBS\s+MESSAGE\s+AGE$/);
    expect(kubectl('get', 'wfr', 'columns', '-n', c.namespace, '-o', 'wide').split('\n')[0]).toMatch(
      /^NAME\s+PHASE\s+JOBS\s+SUCCEEDED\s+MESSAGE\s+AGE$/,
    );
    await c.admin.custom.createNamespacedCustomObject({
      ...crd('workflows', c.namespace),
      body: {
        apiVersion: 'kruntimes.io/v1alpha1',
        kind: 'Workflow',
        metadata: { name: 'w' },
        spec: wfr('w').spec,
      },
    });
    expect(kubectl('get', 'wf', '-n', c.namespace).split('\n')[0]).toMatch(/^NAME\s+READY\s+AGE$/);
    expect(kubectl('explain', 'workflowrun.spec.cancelRequested')).toContain('cannot be set back to false');
  });

  it(
    'lets the real garbage collector delete an owned object after its owner',
    async () => {
      const owner = (await c.admin.custom.createNamespacedCustomObject({
        ...crd('workflowruns', c.namespace),
        body: wfr('owner'),
      })) as { metadata: { uid: string } };
      await c.admin.custom.createNamespacedCustomObject({
        ...crd('runs', c.namespace),
        body: {
          apiVersion: 'kruntimes.io/v1alpha1',
          kind: 'Run',
          metadata: {
            // Not a name the controller gives a Run of this WorkflowRun: it creates those itself.
            name: 'owner-gc-probe',
            ownerReferences: [
              {
                apiVersion: 'kruntimes.io/v1alpha1',
                kind: 'WorkflowRun',
                name: 'owner',
                uid: owner.metadata.uid,
                controller: true,
              },
            ],
          },
          spec: { runtime: 'bash', script: 'true' },
        },
      });
      const runExists = async () => {
        try {
          await c.admin.custom.getNamespacedCustomObject({
            ...crd('runs', c.namespace),
            name: 'owner-gc-probe',
          });
          return true;
        } catch {
          return false;
        }
      };
      expect(await runExists()).toBe(true);
      await c.admin.custom.deleteNamespacedCustomObject({
        ...crd('workflowruns', c.namespace),
        name: 'owner',
      });
      await eventually(
        async () => !(await runExists()),
        KCM_WAIT_MS,
        'the garbage collector to delete the owned Run',
      );
    },
    2 * KCM_WAIT_MS,
  );

  it('forbids the identity with no RBAC bindings to create a WorkflowRun', async () => {
    const r = await rejection(
      c.user.custom.createNamespacedCustomObject({
        ...crd('workflowruns', c.namespace),
        body: wfr('forbidden'),
      }),
    );
    expect(r.code).toBe(403);
    expect(r.message).toContain(
      'User "kruntimes-user" cannot create resource "workflowruns" in API group "kruntimes.io"',
    );
  });
});
