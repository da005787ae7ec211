// Admission through the real API server and the real webhook over TLS: `with` takes typed scalars,
// the frozen output contract cannot be edited, and an object too large for etcd is refused with the
// limit named instead of failing in etcd after admission.
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { crd } from '../../src/kube/rest.js';
import { MAX_JOBS, MAX_STEPS_PER_JOB } from '../../src/limits.js';
import { eventually, rejection, testCluster, type TestCluster } from '../harness/cluster.js';
import { kubectl } from '../harness/kubectl.js';

let c: TestCluster;
beforeAll(async () => {
  c = await testCluster('admission');
  const deploy = {
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'Workflow',
    metadata: { name: 'deploy', namespace: c.namespace },
    spec: {
      inputs: {
        environment: { type: 'string', required: true },
        count: { type: 'number' },
        dry: { type: 'boolean' },
      },
      jobs: {
        go: {
          'runs-on': 'bash',
          steps: [
            { name: 's', run: 'echo "$C $D"', env: { C: '${{ inputs.count }}', D: '${{ inputs.dry }}' } },
          ],
        },
      },
    },
  };
  expect(kubectl(['apply', '-f', '-'], JSON.stringify(deploy)).status).toBe(0);
  // The webhook reads Workflows from its cache: wait until it knows this one's inputs.
  await eventually(
    async () =>
      /not declared/.test(
        (await rejection(createRun('probe', { go: { uses: 'deploy', with: { nope: 'x' } } }))).message,
      ),
    10_000,
    "the webhook's cache to hold Workflow deploy",
  );
});
afterAll(async () => c?.cleanup());

const prefix = 'admission webhook "validate.kruntimes.io" denied the request: ';

function createRun(name: string, jobs: object, annotations?: Record<string, string>) {
  return c.admin.custom.createNamespacedCustomObject({
    ...crd('workflowruns', c.namespace),
    body: {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'WorkflowRun',
      metadata: { name, ...(annotations ? { annotations } : {}) },
      spec: { jobs },
    },
  });
}

describe('with', () => {
  it('takes numbers and booleans, and the child gets them as the inputs', async () => {
    await createRun('typed', { call: { uses: 'deploy', with: { environment: 'x', count: 3, dry: true } } });
    await eventually(
      async () => {
        const child = (await c.admin.custom
          .getNamespacedCustomObject({ ...crd('workflowruns', c.namespace), name: 'typed-call-call' })
          .catch(() => undefined)) as { spec: { jobs: { go: { steps: { env: object }[] } } } } | undefined;
        if (!child) return false;
        expect(child.spec.jobs.go.steps[0]?.env).toEqual({ C: '3', D: 'true' });
        return true;
      },
      20_000,
      'the child run typed-call-call',
    );
  });

  it('refuses a value of the wrong type and a nested object, each with its own message', async () => {
    const wrong = await rejection(
      createRun('wrong', { call: { uses: 'deploy', with: { environment: 'x', count: true } } }),
    );
    expect(wrong).toEqual({
      code: 422,
      message: `${prefix}WorkflowRun "wrong" is invalid: spec.jobs.call.with.count: true is not a number (input "count" of workflow "deploy")`,
    });
    const nested = await rejection(
      createRun('nested', { call: { uses: 'deploy', with: { environment: { k: 'v' } } } }),
    );
    expect(nested.message).toBe(
      `${prefix}WorkflowRun "nested" is invalid: spec.jobs.call.with.environment: must be a string, number or boolean, not an object (an input value is one scalar)`,
    );
  });
});

describe('the frozen output contract', () => {
  const key = 'kruntimes.io/workflow-output.endpoint';
  const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  const patch = (annotations: Record<string, string | null>) =>
    c.admin.custom.patchNamespacedCustomObject(
      { ...crd('workflowruns', c.namespace), name: 'frozen', body: { metadata: { annotations } } },
      merge,
    );

  it('cannot be added, changed or removed after creation; other annotations can', async () => {
    await createRun(
      'frozen',
      { a: { 'runs-on': 'bash', steps: [{ name: 's', run: 'true' }], outputs: { e: 'x' } } },
      {
        [key]: '${{ jobs.a.outputs.e }}',
      },
    );
    const changed = await rejection(patch({ [key]: 'https://evil.example.com' }));
    expect(changed).toEqual({
      code: 422,
      message: `${prefix}WorkflowRun "frozen" is invalid: metadata.annotations[${key}]: the frozen output contract is immutable after creation (cannot be changed)`,
    });
    expect((await rejection(patch({ [key]: null }))).message).toContain('(cannot be removed)');
    expect((await rejection(patch({ 'kruntimes.io/workflow-output.more': 'x' }))).message).toContain(
      'metadata.annotations[kruntimes.io/workflow-output.more]: the frozen output contract is immutable after creation (cannot be added)',
    );
    const r = kubectl(['annotate', '-n', c.namespace, 'wfr/frozen', `${key}=other`, '--overwrite']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('the frozen output contract is immutable after creation');
    await expect(patch({ 'example.com/note': 'fine' })).resolves.toBeTruthy();
  });
});

describe('objects etcd can store', () => {
  it('refuses a 1.5 MiB WorkflowRun of many small jobs at admission, naming the limit', async () => {
    const jobs = Object.fromEntries(
      Array.from({ length: MAX_JOBS }, (_, j) => [
        `job-${j}`,
        {
          'runs-on': 'bash',
          steps: Array.from({ length: MAX_STEPS_PER_JOB }, (_, s) => ({
            name: `s${s}`,
            run: 'x'.repeat(300),
          })),
        },
      ]),
    );
    const r = await rejection(createRun('huge', jobs));
    expect(r.code).toBe(422);
    expect(r.message).toMatch(
      new RegExp(
        `^${prefix.replace(/[.]/g, '\\.')}WorkflowRun "huge" is invalid: the WorkflowRun takes \\d+ bytes; an object must take at most 1048576 bytes \\(1 MiB\\)`,
      ),
    );
    expect(r.message).not.toContain('etcdserver');
  });

  it("refuses a Workflow whose WorkflowRun, made with the inputs' defaults, could not be stored", async () => {
    const jobs = Object.fromEntries(
      Array.from({ length: 20 }, (_, j) => [
        `j${j}`,
        {
          'runs-on': 'bash',
          steps: Array.from({ length: 10 }, (_, s) => ({ name: `s${s}`, run: 'echo "${{ inputs.big }}"' })),
        },
      ]),
    );
    const r = await rejection(
      c.admin.custom.createNamespacedCustomObject({
        ...crd('workflows', c.namespace),
        body: {
          apiVersion: 'kruntimes.io/v1alpha1',
          kind: 'Workflow',
          metadata: { name: 'expands' },
          spec: { inputs: { big: { type: 'string', default: 'b'.repeat(8000) } }, jobs },
        },
      }),
    );
    expect(r.code).toBe(422);
    expect(r.message).toMatch(
      /Workflow "expands" is invalid: spec\.jobs: the WorkflowRun made from this Workflow with its inputs' defaults would take about \d+ bytes; a WorkflowRun must take at most 1048576 bytes/,
    );
  });
});
