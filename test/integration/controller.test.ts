// The controller through the real API server with the webhook registered; the Runs it creates are
// executed by the local runtimed (real bash).
import { join } from 'node:path';
import type { Run, WorkflowRun } from '../../src/api/types.js';
import { crd } from '../../src/kube/rest.js';
import { eventually, testCluster, type TestCluster } from '../harness/cluster.js';
import { controllerSees } from '../harness/caches.js';
import { kubectl } from '../harness/kubectl.js';
import { krt } from '../harness/krt.js';
import { getWorkflowRun, workflowRunInPhase } from '../harness/objects.js';
import { repoRoot } from '../harness/paths.js';
import { channel } from '../harness/channel.js';

const inline = (run: string, extra: object = {}) => ({
  'runs-on': 'bash',
  steps: [{ name: 'main', run }],
  ...extra,
});

async function listRuns(c: TestCluster): Promise<WorkflowRun[]> {
  return (
    (await c.admin.custom.listNamespacedCustomObject({ ...crd('workflowruns', c.namespace) })) as {
      items: WorkflowRun[];
    }
  ).items;
}

function apply(c: TestCluster, obj: object) {
  const r = kubectl(['apply', '-n', c.namespace, '-f', '-'], JSON.stringify(obj));
  if (r.status !== 0) throw new Error(r.stderr);
}
const workflow = (name: string, spec: object) => ({
  apiVersion: 'kruntimes.io/v1alpha1',
  kind: 'Workflow',
  metadata: { name },
  spec,
});

describe('the seed topology, three levels', () => {
  let c: TestCluster;
  beforeAll(async () => {
    c = await testCluster('ctrl-seed');
  });
  afterAll(async () => {
    await c?.cleanup();
  });

  it('runs release -> deploy -> verify and the innermost output reaches the root', async () => {
    expect(kubectl(['apply', '-n', c.namespace, '-k', join(repoRoot, 'config/samples')]).status).toBe(0);
    await controllerSees(c, 'release', 'deploy-workflow', 'verify-workflow');
    const t = await krt(c, 'workflow', 'trigger', 'release', '--wait');
    expect(t.stderr).toContain(': Succeeded');
    expect(t.status).toBe(0);
    const root = t.stdout.trim().split('\n')[0] as string;
    const runs = await listRuns(c);
    const byName = new Map(runs.map((r) => [r.metadata.name, r]));
    const child = byName.get(`${root}-call-deploy`);
    const grandchild = byName.get(`${root}-call-deploy-call-verify`);
    expect(runs).toHaveLength(3);
    // Each WorkflowRun owns only its direct children.
    expect(child?.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'WorkflowRun', name: root });
    expect(grandchild?.metadata.ownerReferences?.[0]).toMatchObject({
      kind: 'WorkflowRun',
      name: `${root}-call-deploy`,
    });
    expect(grandchild?.status?.jobs?.smoke?.outputs).toEqual({ endpoint: 'https://staging.example.com' });
    expect(child?.status?.jobs?.verify).toMatchObject({
      phase: 'Succeeded',
      workflowRunName: `${root}-call-deploy-call-verify`,
      outputs: { endpoint: 'https://staging.example.com' },
    });
    const top = byName.get(root);
    expect(top?.status?.jobs?.deploy?.outputs).toEqual({ endpoint: 'https://staging.example.com' });
    const notify = (await c.admin.custom.getNamespacedCustomObject({
      ...crd('runs', c.namespace),
      name: `${root}-notify-send`,
    })) as Run;
    expect(notify.spec.env).toEqual([{ name: 'ENDPOINT', value: 'https://staging.example.com' }]);
    expect(top?.status?.conditions?.[0]).toMatchObject({ type: 'Succeeded', status: 'True' });
    expect(
      kubectl(['wait', '--for=condition=Succeeded', `wfr/${root}`, '-n', c.namespace, '--timeout=5s']).status,
    ).toBe(0);
  });
});

describe('cycles and failures', () => {
  let c: TestCluster;
  beforeAll(async () => {
    // The webhook would refuse the cycles; this namespace skips it, as if it were removed.
    c = await testCluster('ctrl-cycle', { 'kruntimes.io/admission': 'disabled' });
    apply(c, workflow('a', { jobs: { call: { uses: 'b' } } }));
    apply(c, workflow('b', { jobs: { call: { uses: 'a' } } }));
    apply(c, workflow('self', { jobs: { me: { uses: 'self' } } }));
  });
  afterAll(async () => {
    await c?.cleanup();
  });

  it('krt workflow trigger refuses A -> B -> A and A -> A, creating nothing', async () => {
    const ab = await krt(c, 'workflow', 'trigger', 'a');
    expect(ab.stderr.trim()).toBe('krt: workflow call cycle: a -> b -> a');
    expect(ab.status).toBe(2);
    const self = await krt(c, 'wf', 'trigger', 'self');
    expect(self.stderr.trim()).toBe('krt: workflow call cycle: self -> self');
    expect(await listRuns(c)).toEqual([]);
  });

  it('fails a call job whose Workflow became cyclic, with the same text, no child, dependents skipped', async () => {
    apply(c, {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'WorkflowRun',
      metadata: { name: 'late-cycle' },
      spec: { jobs: { go: { uses: 'a' }, after: inline('true', { needs: ['go'] }) } },
    });
    const run = await workflowRunInPhase(c, 'late-cycle', ['Failed']);
    expect(run.status?.jobs?.go).toMatchObject({
      phase: 'Failed',
      message: 'workflow call cycle: a -> b -> a',
    });
    expect(run.status?.jobs?.go?.workflowRunName).toBeUndefined();
    expect(run.status?.jobs?.after?.phase).toBe('Skipped');
    expect((await listRuns(c)).map((r) => r.metadata.name)).toEqual(['late-cycle']);
  });

  it('fails the caller job when an output annotation refers to a missing job output, and skips its dependents', async () => {
    apply(
      c,
      workflow('leaky', {
        outputs: { e: { value: '${{ jobs.x.outputs.nope }}' } },
        jobs: { x: inline('true', { outputs: { real: 'y' } }) },
      }),
    );
    apply(c, {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'WorkflowRun',
      metadata: { name: 'leak' },
      spec: { jobs: { go: { uses: 'leaky' }, after: inline('true', { needs: ['go'] }) } },
    });
    const run = await workflowRunInPhase(c, 'leak', ['Failed']);
    expect(run.status?.jobs?.go?.message).toContain(
      'output "e" of workflow run "leak-call-go": jobs.x.outputs.nope is not defined',
    );
    expect(run.status?.jobs?.after?.phase).toBe('Skipped');
  });

  it('fails a job whose Run name is taken by another owner, with a clear message', async () => {
    apply(c, {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'Run',
      metadata: { name: 'squat-a-main' },
      spec: { runtime: 'bash', script: 'true' },
    });
    apply(c, {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'WorkflowRun',
      metadata: { name: 'squat' },
      spec: { jobs: { a: inline('true') } },
    });
    const run = await workflowRunInPhase(c, 'squat', ['Failed']);
    expect(run.status?.jobs?.a?.message).toBe('Run "squat-a-main" exists and belongs to another owner');
  });

  it("waits for the Runs of a deleted run of the same name to go, then runs: they are not another owner's", async () => {
    const wfr = {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'WorkflowRun',
      metadata: { name: 'again' },
      spec: { jobs: { a: inline('true') } },
    };
    apply(c, wfr);
    const first = await workflowRunInPhase(c, 'again', ['Succeeded']);
    // The old Run is held (a finalizer) past its run's deletion, as a slow garbage collector would.
    const hold = ['patch', 'run', 'again-a-main', '-n', c.namespace, '--type=merge'];
    expect(kubectl([...hold, '-p', '{"metadata":{"finalizers":["kruntimes.io/test-hold"]}}']).status).toBe(0);
    expect(kubectl(['delete', 'wfr', 'again', '-n', c.namespace, '--wait=false']).status).toBe(0);
    await eventually(
      async () => (await getWorkflowRun(c, 'again').catch(() => undefined)) === undefined,
      30_000,
      'the first run to be gone',
    );
    apply(c, wfr);
    await eventually(
      async () =>
        (await getWorkflowRun(c, 'again')).status?.jobs?.a?.message ===
        'waiting for Run "again-a-main" of a deleted run of this name to go',
      30_000,
      'the new run to wait for the old Run',
    );
    const second = await getWorkflowRun(c, 'again');
    expect(second.metadata.uid).not.toBe(first.metadata.uid);
    expect(second.status?.jobs?.a?.phase).toBe('Pending');
    expect(kubectl([...hold, '-p', '{"metadata":{"finalizers":null}}']).status).toBe(0);
    const done = await workflowRunInPhase(c, 'again', ['Succeeded', 'Failed']);
    expect([done.metadata.uid, done.status?.phase]).toEqual([second.metadata.uid, 'Succeeded']);
  });

  it('fails a job whose step exits 3 and skips its dependents', async () => {
    apply(c, {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'WorkflowRun',
      metadata: { name: 'exit3' },
      spec: { jobs: { a: inline('exit 3'), b: inline('true', { needs: ['a'] }) } },
    });
    const run = await workflowRunInPhase(c, 'exit3', ['Failed']);
    expect(run.status?.jobs?.a?.message).toBe('step "main" failed with exit code 3');
    expect(run.status?.jobs?.b?.phase).toBe('Skipped');
    expect(run.status?.conditions?.[0]).toMatchObject({
      type: 'Succeeded',
      status: 'False',
      reason: 'Failed',
    });
  });
});

describe('template edits and cancellation', () => {
  let c: TestCluster;
  beforeAll(async () => {
    c = await testCluster('ctrl-edit');
  });
  afterAll(async () => {
    await c?.cleanup();
  });

  it('a child sees a template edit made before its call job is runnable, and not one made after', async () => {
    const tpl = (word: string) =>
      workflow('tpl', {
        outputs: { word: { value: '${{ jobs.say.outputs.word }}' } },
        jobs: {
          say: inline(`echo word=${word} >> "$KRT_OUTPUT"`, {
            outputs: { word: '${{ steps.main.outputs.word }}' },
          }),
        },
      });
    // The first job waits for a gate this test opens, so the call job is runnable only then.
    const ch = await channel();
    const gate = ch.gate();
    apply(c, tpl('old'));
    apply(c, {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'WorkflowRun',
      metadata: { name: 'edits' },
      spec: {
        jobs: {
          wait: inline(gate.wait),
          call: { uses: 'tpl', needs: ['wait'] },
        },
      },
    });
    apply(c, tpl('before')); // the call job is not runnable yet
    await controllerSees(c, 'tpl');
    gate.open();
    await eventually(
      async () => (await listRuns(c)).some((r) => r.metadata.name === 'edits-call-call'),
      30000,
      'the child',
    );
    apply(c, tpl('after')); // the child exists now
    const run = await workflowRunInPhase(c, 'edits', ['Succeeded']);
    expect(run.status?.jobs?.call?.outputs).toEqual({ word: 'before' });
    const child = await getWorkflowRun(c, 'edits-call-call');
    expect(child.spec.jobs.say?.steps?.[0]?.run).toBe('echo word=before >> "$KRT_OUTPUT"');
    await ch.close();
  });

  it('cancelling a root while a grandchild runs ends every level Cancelled, children first', async () => {
    apply(c, workflow('inner', { jobs: { slow: inline('sleep 60') } }));
    apply(c, workflow('middle', { jobs: { call: { uses: 'inner' } } }));
    await controllerSees(c, 'inner', 'middle');
    apply(c, {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'WorkflowRun',
      metadata: { name: 'root' },
      spec: { jobs: { call: { uses: 'middle' }, after: inline('true', { needs: ['call'] }) } },
    });
    await eventually(
      async () => {
        const r = (await c.admin.custom.listNamespacedCustomObject({ ...crd('runs', c.namespace) })) as {
          items: Run[];
        };
        return r.items.some(
          (x) => x.metadata.name === 'root-call-call-call-call-slow-main' && x.status?.phase === 'Running',
        );
      },
      30000,
      'the grandchild step to run',
    );
    expect(
      kubectl([
        'patch',
        'wfr',
        'root',
        '-n',
        c.namespace,
        '--type=merge',
        '-p',
        '{"spec":{"cancelRequested":true}}',
      ]).status,
    ).toBe(0);
    const root = await workflowRunInPhase(c, 'root', ['Cancelled', 'Failed', 'Succeeded']);
    expect(root.status?.phase).toBe('Cancelled');
    const child = await getWorkflowRun(c, 'root-call-call');
    const grandchild = await getWorkflowRun(c, 'root-call-call-call-call');
    expect([child.status?.phase, grandchild.status?.phase]).toEqual(['Cancelled', 'Cancelled']);
    const t = (r: WorkflowRun) => Date.parse(r.status?.finishedAt ?? '');
    expect(t(grandchild)).toBeLessThanOrEqual(t(child));
    expect(t(child)).toBeLessThanOrEqual(t(root));
    expect(root.status?.jobs?.after?.phase).toBe('Cancelled');
  });
});
