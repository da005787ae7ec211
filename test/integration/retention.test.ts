// Retention: a finished root WorkflowRun is deleted after spec.ttlSecondsAfterFinished, and what
// it made goes with it: its Runs and snapshot (the real garbage collector), its child runs, and the
// step logs runtimed kept for its Runs.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Run } from '../../src/api/types.js';
import { crd, statusCode } from '../../src/kube/rest.js';
import { runLogDir } from '../../src/runtime/logpaths.js';
import { controllerSees } from '../harness/caches.js';
import { eventually, KCM_WAIT_MS, testCluster, type TestCluster } from '../harness/cluster.js';
import { kubectl } from '../harness/kubectl.js';
import { getRun, workflowRunInPhase } from '../harness/objects.js';
import { stateDir } from '../harness/paths.js';

let c: TestCluster;
beforeAll(async () => {
  c = await testCluster('retention');
});
afterAll(async () => c?.cleanup());

it(
  'deletes a finished run after its ttlSecondsAfterFinished, with its Runs, child, snapshot and logs',
  async () => {
    const leaf = {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'Workflow',
      metadata: { name: 'leaf', namespace: c.namespace },
      spec: { jobs: { j: { 'runs-on': 'bash', steps: [{ name: 's', run: 'echo leaf' }] } } },
    };
    expect(kubectl(['apply', '-f', '-'], JSON.stringify(leaf)).status).toBe(0);
    await controllerSees(c, 'leaf');
    await c.admin.custom.createNamespacedCustomObject({
      ...crd('workflowruns', c.namespace),
      body: {
        apiVersion: 'kruntimes.io/v1alpha1',
        kind: 'WorkflowRun',
        metadata: { name: 'brief' },
        spec: {
          ttlSecondsAfterFinished: 2,
          jobs: {
            work: { 'runs-on': 'bash', steps: [{ name: 's', run: 'echo hello' }] },
            call: { uses: 'leaf' },
          },
        },
      },
    });
    const done = await workflowRunInPhase(c, 'brief', ['Succeeded', 'Failed']);
    expect(done.status?.phase).toBe('Succeeded');
    const run: Run = await getRun(c, 'brief-work-s');
    const logs = runLogDir(join(stateDir, 'runtimed'), c.namespace, run.metadata.uid ?? '');
    expect(existsSync(logs)).toBe(true);

    const gone = async (plural: 'workflowruns' | 'runs', name: string) =>
      c.admin.custom
        .getNamespacedCustomObject({ ...crd(plural, c.namespace), name })
        .then(() => false)
        .catch((e: unknown) => statusCode(e) === 404);
    await eventually(() => gone('workflowruns', 'brief'), 20_000, 'the run to be deleted');
    // A child run has no retention of its own: it goes with its root, by the garbage collector.
    await eventually(
      async () =>
        (await gone('runs', 'brief-work-s')) &&
        (await gone('workflowruns', 'brief-call-call')) &&
        (await gone('runs', 'brief-call-call-j-s')),
      KCM_WAIT_MS,
      'its Runs and child to be collected',
    );
    const revisions = kubectl(['get', 'controllerrevisions', '-n', c.namespace, '-o', 'name']).stdout.trim();
    await eventually(
      async () =>
        kubectl(['get', 'controllerrevisions', '-n', c.namespace, '-o', 'name']).stdout.trim() === '',
      KCM_WAIT_MS,
      `its snapshots to be collected (were: ${revisions})`,
    );
    await eventually(async () => !existsSync(logs), 10_000, 'runtimed to remove its logs');
  },
  3 * KCM_WAIT_MS,
);
