// The CRD schema is the second line of defense: applied straight to the API server in a namespace
// the webhook skips (kruntimes.io/admission=disabled), malformed objects are rejected and valid
// counterparts accepted.
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { crd } from '../../src/kube/rest.js';
import { rejection, testCluster, type TestCluster } from '../harness/cluster.js';

type Plural = 'workflows' | 'workflowruns' | 'runs';
const KIND: Record<Plural, string> = { workflows: 'Workflow', workflowruns: 'WorkflowRun', runs: 'Run' };

const inline = { 'runs-on': 'bash', steps: [{ name: 'package', run: 'make package' }] };
const call = { uses: 'deploy-workflow', with: { environment: 'staging' } };

let c: TestCluster;
let n = 0;
beforeAll(async () => {
  c = await testCluster('crdschema', { 'kruntimes.io/admission': 'disabled' });
});
afterAll(async () => c?.cleanup());

function create(plural: Plural, spec: unknown, name = `obj-${++n}`, extraMeta: object = {}) {
  return c.admin.custom.createNamespacedCustomObject({
    ...crd(plural, c.namespace),
    body: { apiVersion: 'kruntimes.io/v1alpha1', kind: KIND[plural], metadata: { name, ...extraMeta }, spec },
  });
}

async function denied(plural: Plural, spec: unknown, name?: string): Promise<string> {
  const r = await rejection(create(plural, spec, name));
  expect(r.code).toBe(422);
  return r.message;
}

describe('WorkflowRun schema', () => {
  it('accepts inline and call jobs', async () => {
    await expect(
      create('workflowruns', { jobs: { build: inline, deploy: { ...call, needs: ['build'] } } }),
    ).resolves.toBeTruthy();
  });

  it.each([
    ['no jobs', {}, 'spec.jobs: Required value'],
    [
      'empty jobs',
      { jobs: {} },
      'spec.jobs: Invalid value: 0: spec.jobs in body should have at least 1 properties',
    ],
    [
      'spec.uses',
      { jobs: { build: inline }, uses: 'deploy-workflow' },
      'a WorkflowRun holds inline jobs only',
    ],
    [
      'spec.with',
      { jobs: { build: inline }, with: { a: 'b' } },
      'start a Workflow template with `krt workflow trigger`',
    ],
    [
      'a call job with steps',
      { jobs: { deploy: { ...call, steps: inline.steps } } },
      'a call job cannot have steps, runs-on or outputs',
    ],
    [
      'a call job with runs-on',
      { jobs: { deploy: { ...call, 'runs-on': 'bash' } } },
      'a call job cannot have steps, runs-on or outputs',
    ],
    [
      'an inline job without steps',
      { jobs: { build: { 'runs-on': 'bash' } } },
      'an inline job needs runs-on and steps',
    ],
    [
      'an inline job without runs-on',
      { jobs: { build: { steps: inline.steps } } },
      'an inline job needs runs-on and steps',
    ],
    [
      'with on an inline job',
      { jobs: { build: { ...inline, with: { a: 'b' } } } },
      'with is only allowed on a call job (uses)',
    ],
    [
      'an empty step list',
      { jobs: { build: { 'runs-on': 'bash', steps: [] } } },
      'should have at least 1 items',
    ],
    ['a bad job name', { jobs: { '-bad': inline } }, 'job names must match'],
    ['a job name over 63', { jobs: { ['j'.repeat(64)]: inline } }, 'job names must be at most 63 characters'],
    [
      'a bad step name',
      { jobs: { build: { 'runs-on': 'bash', steps: [{ name: 'a b', run: 'x' }] } } },
      'spec.jobs.build.steps[0].name',
    ],
    [
      'duplicate step names',
      {
        jobs: {
          build: {
            'runs-on': 'bash',
            steps: [
              { name: 'a', run: 'x' },
              { name: 'a', run: 'y' },
            ],
          },
        },
      },
      'Duplicate value',
    ],
    [
      'a step without run',
      { jobs: { build: { 'runs-on': 'bash', steps: [{ name: 'a' }] } } },
      'a step needs run, or an image (runs-on: kubernetes)',
    ],
    ['a bad uses', { jobs: { deploy: { uses: 'Deploy_Workflow' } } }, 'spec.jobs.deploy.uses'],
    [
      'a bad env name',
      { jobs: { build: { 'runs-on': 'bash', steps: [{ name: 'a', run: 'x', env: { 'A-B': '1' } }] } } },
      'environment variable names must match',
    ],
    [
      'too many jobs',
      { jobs: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`j${i}`, inline])) },
      'spec.jobs: Too many: 101: must have at most 100 items',
    ],
    [
      'too many steps',
      {
        jobs: {
          build: {
            'runs-on': 'bash',
            steps: Array.from({ length: 51 }, (_, i) => ({ name: `s${i}`, run: 'x' })),
          },
        },
      },
      'must have at most 50 items',
    ],
    [
      'a script over 64 KiB',
      { jobs: { build: { 'runs-on': 'bash', steps: [{ name: 'a', run: 'x'.repeat(65537) }] } } },
      'Too long: may not be more than 65536',
    ],
  ])('rejects %s', async (_what, spec, message) => {
    expect(await denied('workflowruns', spec)).toContain(message);
  });

  it('keeps spec.jobs immutable and cancelRequested one-way', async () => {
    await create('workflowruns', { jobs: { build: inline }, cancelRequested: true }, 'immutable');
    const patch = (body: unknown) =>
      c.admin.custom.patchNamespacedCustomObject(
        { ...crd('workflowruns', c.namespace), name: 'immutable', body },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    const changed = await rejection(
      patch({ spec: { jobs: { build: { steps: [{ name: 'package', run: 'rm -rf /' }] } } } }),
    );
    expect(changed.code).toBe(422);
    expect(changed.message).toContain('spec.jobs is immutable after creation');
    const back = await rejection(patch({ spec: { cancelRequested: false } }));
    expect(back.message).toContain('spec.cancelRequested cannot go back to false');
    const removed = await rejection(patch({ spec: { cancelRequested: null } }));
    expect(removed.message).toContain('spec.cancelRequested cannot go back to false');
  });
});

describe('Workflow schema', () => {
  it('accepts a template with inputs and outputs', async () => {
    await expect(
      create(
        'workflows',
        {
          inputs: { environment: { type: 'string', required: true } },
          outputs: { endpoint: { value: '${{ jobs.apply.outputs.endpoint }}' } },
          jobs: { apply: inline },
        },
        'deploy-workflow',
      ),
    ).resolves.toBeTruthy();
  });

  it.each([
    ['an uppercase name', 'Deploy', 'a Workflow name must be a DNS-1123 label of at most 63 characters'],
    ['a dotted name', 'a.b', 'a Workflow name must be a DNS-1123 label'],
    ['a name over 63', 'w'.repeat(64), 'a Workflow name must be a DNS-1123 label of at most 63 characters'],
  ])('rejects %s', async (_what, name, message) => {
    expect(await denied('workflows', { jobs: { apply: inline } }, name)).toContain(message);
  });

  it.each([
    [
      'an output name over 47',
      { outputs: { ['o'.repeat(48)]: { value: 'x' } }, jobs: { apply: inline } },
      'output names must be at most 47 characters',
    ],
    [
      'a bad output name',
      { outputs: { '-x': { value: 'x' } }, jobs: { apply: inline } },
      'output names must match',
    ],
    ['an output without value', { outputs: { x: {} }, jobs: { apply: inline } }, 'value: Required value'],
    [
      'a bad input type',
      { inputs: { x: { type: 'list' } }, jobs: { apply: inline } },
      'Unsupported value: "list"',
    ],
    ['a bad input name', { inputs: { 'x y': {} }, jobs: { apply: inline } }, 'input names must match'],
    ['no jobs', { inputs: {} }, 'spec.jobs: Required value'],
  ])('rejects %s', async (_what, spec, message) => {
    expect(await denied('workflows', spec)).toContain(message);
  });
});

describe('Run schema', () => {
  it('accepts a Run and rejects malformed ones', async () => {
    await expect(
      create('runs', { runtime: 'bash', script: 'true', timeoutSeconds: 10 }),
    ).resolves.toBeTruthy();
    expect(await denied('runs', { script: 'true' })).toContain('spec.runtime: Required value');
    expect(await denied('runs', { runtime: 'bash', script: '' })).toContain('spec.script');
    expect(await denied('runs', { runtime: 'bash', script: 'x', timeoutSeconds: 0 })).toContain(
      'spec.timeoutSeconds',
    );
    expect(
      await denied('runs', { runtime: 'bash', script: 'x', env: [{ name: '1X', value: 'v' }] }),
    ).toContain('spec.env[0].name');
  });
});
