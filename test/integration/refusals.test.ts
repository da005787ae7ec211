// A create that the API server refuses for good (here its CRD schema: a rendered script or child
// longer than the API allows) fails only that job, with the refusal's message; its dependents are
// Skipped, the rest of the run goes on, and the run's status keeps being derived to its end.
import type { WorkflowRun } from '../../src/api/types.js';
import { crd } from '../../src/kube/rest.js';
import { MAX_SCRIPT_LENGTH } from '../../src/limits.js';
import { eventually, testCluster, type TestCluster } from '../harness/cluster.js';
import { kubectl } from '../harness/kubectl.js';
import { workflowRunInPhase } from '../harness/objects.js';

let c: TestCluster;
beforeAll(async () => {
  c = await testCluster('refusals');
});
afterAll(async () => {
  await c?.cleanup();
});

const inline = (run: string, extra: object = {}) => ({
  'runs-on': 'bash',
  steps: [{ name: 's', run }],
  ...extra,
});
// 4,000 characters, rendered 20 times: 80,000 > MAX_SCRIPT_LENGTH.
const big = '${{ jobs.a.outputs.v }}\n'.repeat(20);

it('fails the refused jobs, skips their dependents and finishes the others', async () => {
  expect(4000 * 20).toBeGreaterThan(MAX_SCRIPT_LENGTH);
  const wf = {
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'Workflow',
    metadata: { name: 'echoes', namespace: c.namespace },
    spec: {
      inputs: { x: { type: 'string', required: true } },
      jobs: { j: inline('${{ inputs.x }}\n'.repeat(20)) },
    },
  };
  expect(kubectl(['apply', '-f', '-'], JSON.stringify(wf)).status).toBe(0);
  const run = (await c.admin.custom.createNamespacedCustomObject({
    ...crd('workflowruns', c.namespace),
    body: {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'WorkflowRun',
      metadata: { name: 'refused' },
      spec: {
        jobs: {
          a: inline(`printf 'v=%s\\n' "$(head -c 4000 /dev/zero | tr '\\0' x)" >> "$KRT_OUTPUT"`, {
            outputs: { v: '${{ steps.s.outputs.v }}' },
          }),
          b: inline(big, { needs: ['a'] }),
          after: inline('true', { needs: ['b'] }),
          call: { needs: ['a'], uses: 'echoes', with: { x: '${{ jobs.a.outputs.v }}' } },
          'after-call': inline('true', { needs: ['call'] }),
          independent: inline('sleep 1; echo done'),
        },
      },
    },
  })) as WorkflowRun;
  const done = await workflowRunInPhase(c, run.metadata.name ?? '', ['Failed'], 60_000);
  const jobs = done.status?.jobs ?? {};
  expect(jobs.a?.phase).toBe('Succeeded');
  expect(jobs.independent?.phase).toBe('Succeeded');
  expect(jobs.b).toMatchObject({ phase: 'Failed' });
  expect(jobs.b?.message).toMatch(
    /^the API server refused to create Run "refused-b-s": .*spec\.script.*Too long/,
  );
  expect(jobs.call).toMatchObject({ phase: 'Failed' });
  expect(jobs.call?.message).toMatch(
    /^the API server refused to create WorkflowRun "refused-call-call": .*spec\.jobs\.j\.steps\[0\]\.run: Too long/,
  );
  expect(jobs.after).toEqual(
    expect.objectContaining({ phase: 'Skipped', message: 'needs job "b", which did not succeed' }),
  );
  expect(jobs['after-call']).toEqual(
    expect.objectContaining({ phase: 'Skipped', message: 'needs job "call", which did not succeed' }),
  );
  expect(done.status?.progress).toBe('6/6');
  expect(done.status?.conditions?.[0]).toMatchObject({ type: 'Succeeded', status: 'False' });
  // Neither the Run nor the child was made; the refusal is on record as an Event.
  const runs = (await c.admin.custom.listNamespacedCustomObject({ ...crd('runs', c.namespace) })) as {
    items: { metadata: { name: string } }[];
  };
  expect(runs.items.map((r) => r.metadata.name).sort()).toEqual(['refused-a-s', 'refused-independent-s']);
  await eventually(
    async () => {
      const events = await c.admin.core.listNamespacedEvent({ namespace: c.namespace });
      return events.items.some(
        (e) => e.reason === 'JobFailed' && /job "b" failed: the API server refused/.test(e.message ?? ''),
      );
    },
    10_000,
    'a JobFailed event for job b',
  );
});
