// Waiting until a component's informer cache holds what a test just wrote, observed through the
// component's own answers, never by sleeping.
import type { Workflow } from '../../src/api/types.js';
import { crd } from '../../src/kube/rest.js';
import { eventually, type TestCluster } from './cluster.js';
import { kubectl } from './kubectl.js';

/**
 * The webhook's cache holds these Workflows: a dry-run call of each with an input nobody declares
 * is denied naming the Workflow only when the webhook can see it (a missing callee is a warning).
 */
export async function webhookSees(c: TestCluster, ...names: string[]): Promise<void> {
  for (const name of names) {
    const probe = {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'WorkflowRun',
      metadata: { name: 'cache-probe', namespace: c.namespace },
      spec: { jobs: { probe: { uses: name, with: { 'krt-cache-probe': 'x' } } } },
    };
    await eventually(
      async () =>
        kubectl(['create', '--dry-run=server', '-f', '-'], JSON.stringify(probe)).stderr.includes(
          `input "krt-cache-probe" is not declared by workflow "${name}"`,
        ),
      10_000,
      `the webhook's cache to hold Workflow ${name}`,
    );
  }
}

/**
 * The controller's cache holds these Workflows as they are now: each one's Ready condition was
 * computed from its current generation (whatever it says).
 */
export async function controllerSees(c: TestCluster, ...names: string[]): Promise<void> {
  for (const name of names)
    await eventually(
      async () => {
        const w = (await c.admin.custom
          .getNamespacedCustomObject({ ...crd('workflows', c.namespace), name })
          .catch(() => undefined)) as Workflow | undefined;
        const ready = w?.status?.conditions?.find((x) => x.type === 'Ready');
        return ready !== undefined && ready.observedGeneration === w?.metadata.generation;
      },
      10_000,
      `the controller's cache to hold Workflow ${name}`,
    );
}
