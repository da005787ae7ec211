// Every admission rule through the real API server, which calls the real webhook over TLS: the
// violating object is denied with its exact text, a valid counterpart is accepted.
import { crd } from '../../src/kube/rest.js';
import { rejection, testCluster, type TestCluster } from '../harness/cluster.js';
import { webhookSees } from '../harness/caches.js';
import { kubectl } from '../harness/kubectl.js';

type Plural = 'workflows' | 'workflowruns' | 'runs';
const KIND: Record<Plural, string> = { workflows: 'Workflow', workflowruns: 'WorkflowRun', runs: 'Run' };
const inline = (run = 'true', extra: object = {}) => ({
  'runs-on': 'bash',
  steps: [{ name: 'main', run }],
  ...extra,
});

let c: TestCluster;
let n = 0;
beforeAll(async () => {
  c = await testCluster('webhook');
});
afterAll(async () => c?.cleanup());

function create(plural: Plural, spec: unknown, name = `obj-${++n}`, metadata: object = {}) {
  return c.admin.custom.createNamespacedCustomObject({
    ...crd(plural, c.namespace),
    body: { apiVersion: 'kruntimes.io/v1alpha1', kind: KIND[plural], metadata: { name, ...metadata }, spec },
  }) as Promise<{ metadata: { name: string }; spec: Record<string, unknown> }>;
}

async function denial(plural: Plural, spec: unknown, name?: string, metadata?: object): Promise<string> {
  const r = await rejection(create(plural, spec, name, metadata));
  return r.message;
}

const denied = (text: string) => `admission webhook "validate.kruntimes.io" denied the request: ${text}`;

describe('WorkflowRun rules only the webhook can check', () => {
  it.each([
    [
      'an unknown need',
      { a: inline('true', { needs: ['ghost'] }) },
      'spec.jobs.a.needs: job "ghost" does not exist',
    ],
    ['a self need', { a: inline('true', { needs: ['a'] }) }, 'spec.jobs.a.needs: job "a" cannot need itself'],
    [
      'a dependency cycle',
      { a: inline('true', { needs: ['b'] }), b: inline('true', { needs: ['a'] }) },
      'spec.jobs: job dependency cycle: a -> b -> a',
    ],
    [
      'an expression that does not parse',
      { a: inline('echo ${{ jobs.b.outputs }') },
      'spec.jobs.a.steps[0].run: unexpected character "}" at position 24 in "echo ${{ jobs.b.outputs }"',
    ],
    [
      'inputs in a WorkflowRun',
      { a: inline('echo ${{ inputs.env }}') },
      'spec.jobs.a.steps[0].run: "inputs.env" cannot be used here: a WorkflowRun has no inputs',
    ],
    [
      'a job that is not upstream',
      { a: inline('true', { outputs: { o: 'x' } }), b: inline('echo ${{ jobs.a.outputs.o }}') },
      '"jobs.a.outputs.o": job "a" is not upstream of job "b" (add it to needs)',
    ],
    [
      'a later step',
      {
        a: {
          'runs-on': 'bash',
          steps: [
            { name: 'one', run: 'echo ${{ steps.two.outputs.x }}' },
            { name: 'two', run: 'true' },
          ],
        },
      },
      '"steps.two.outputs.x": "two" is not an earlier step of job "a"',
    ],
    [
      'duplicate step names (list-map keys)',
      {
        a: {
          'runs-on': 'bash',
          steps: [
            { name: 'x', run: 'a' },
            { name: 'x', run: 'b' },
          ],
        },
      },
      'Duplicate value',
    ],
  ])('denies %s', async (_what, jobs, text) => {
    const message = await denial('workflowruns', { jobs });
    expect(message).toContain(text);
  });

  it('accepts the valid counterpart', async () => {
    const ok = await create('workflowruns', {
      jobs: {
        a: {
          'runs-on': 'bash',
          steps: [
            { name: 'one', run: 'true' },
            { name: 'two', run: 'echo ${{ steps.one.outputs.x }}' },
          ],
          outputs: { o: '${{ steps.two.outputs.y }}' },
        },
        b: inline('echo "$O"', { needs: ['a'] }),
      },
    });
    expect(ok.metadata.name).toMatch(/^obj-/);
  });

  it('denies a bad frozen output annotation and accepts a good one', async () => {
    const jobs = { apply: inline('true', { outputs: { endpoint: 'x' } }) };
    const bad = await denial('workflowruns', { jobs }, undefined, {
      annotations: { 'kruntimes.io/workflow-output.endpoint': '${{ jobs.missing.outputs.endpoint }}' },
    });
    expect(bad).toContain(denied('WorkflowRun "obj-'));
    expect(bad).toContain(
      'metadata.annotations[kruntimes.io/workflow-output.endpoint]: "jobs.missing.outputs.endpoint": job "missing" does not exist',
    );
    await expect(
      create('workflowruns', { jobs }, undefined, {
        annotations: { 'kruntimes.io/workflow-output.endpoint': '${{ jobs.apply.outputs.endpoint }}' },
      }),
    ).resolves.toBeTruthy();
  });

  it('keeps spec.jobs immutable and cancelRequested one-way (CRD rules, same words)', async () => {
    await create('workflowruns', { jobs: { a: inline() } }, 'mutable');
    const r = kubectl([
      'patch',
      'wfr',
      'mutable',
      '-n',
      c.namespace,
      '--type=merge',
      '-p',
      '{"spec":{"jobs":{"a":{"steps":[{"name":"main","run":"rm -rf /"}]}}}}',
    ]);
    expect(r.stderr).toContain('spec.jobs is immutable after creation');
    expect(
      kubectl([
        'patch',
        'wfr',
        'mutable',
        '-n',
        c.namespace,
        '--type=merge',
        '-p',
        '{"spec":{"cancelRequested":true}}',
      ]).status,
    ).toBe(0);
    const back = kubectl([
      'patch',
      'wfr',
      'mutable',
      '-n',
      c.namespace,
      '--type=merge',
      '-p',
      '{"spec":{"cancelRequested":false}}',
    ]);
    expect(back.stderr).toContain('spec.cancelRequested cannot go back to false');
  });
});

describe('call jobs and the Workflow graph', () => {
  const callee = (name: string, spec: object) => create('workflows', spec, name);

  beforeAll(async () => {
    await callee('deploy', {
      inputs: { environment: { required: true }, region: { default: 'eu' } },
      outputs: { endpoint: { value: '${{ jobs.apply.outputs.endpoint }}' } },
      jobs: { apply: inline('echo "$E"', { outputs: { endpoint: 'x' } }) },
    });
    await callee('ring-a', { jobs: { next: { uses: 'ring-b' } } });
    await webhookSees(c, 'deploy', 'ring-a');
  });

  it('denies B calling A when A already calls B, on whichever arrives last', async () => {
    const message = await denial('workflows', { jobs: { back: { uses: 'ring-a' } } }, 'ring-b');
    expect(message).toContain(
      denied('Workflow "ring-b" is invalid: spec.jobs.back: workflow call cycle: ring-b -> ring-a -> ring-b'),
    );
  });

  it('denies a Workflow calling itself', async () => {
    expect(await denial('workflows', { jobs: { me: { uses: 'selfish' } } }, 'selfish')).toContain(
      'spec.jobs.me: workflow call cycle: selfish -> selfish',
    );
  });

  it('denies a chain deeper than 8 and accepts exactly 8', async () => {
    for (let i = 8; i >= 2; i--)
      await callee(`d${i}`, { jobs: i === 8 ? { leaf: inline() } : { c: { uses: `d${i + 1}` } } });
    await webhookSees(c, 'd2', 'd3', 'd4', 'd5', 'd6', 'd7', 'd8');
    await expect(callee('d1', { jobs: { c: { uses: 'd2' } } })).resolves.toBeTruthy();
    await webhookSees(c, 'd1');
    expect(await denial('workflows', { jobs: { c: { uses: 'd1' } } }, 'd0')).toContain(
      'workflow call depth exceeds maximum 8: d0 -> d1 -> d2 -> d3 -> d4 -> d5 -> d6 -> d7 -> d8',
    );
    // A WorkflowRun is not a Workflow of the chain: calling d1 roots a chain of exactly 8.
    await expect(create('workflowruns', { jobs: { go: { uses: 'd1' } } })).resolves.toBeTruthy();
  });

  it('checks with against the callee inputs', async () => {
    const message = await denial('workflowruns', {
      jobs: { go: { uses: 'deploy', with: { colour: 'red' } } },
    });
    expect(message).toContain(
      'spec.jobs.go.with.colour: input "colour" is not declared by workflow "deploy"',
    );
    expect(message).toContain(
      'spec.jobs.go.with: required input "environment" of workflow "deploy" is not given',
    );
    await expect(
      create('workflowruns', { jobs: { go: { uses: 'deploy', with: { environment: 'staging' } } } }),
    ).resolves.toBeTruthy();
  });

  it('only warns about a callee that does not exist yet', () => {
    const r = kubectl(
      ['apply', '-n', c.namespace, '-f', '-'],
      JSON.stringify({
        apiVersion: 'kruntimes.io/v1alpha1',
        kind: 'WorkflowRun',
        metadata: { name: 'late' },
        spec: { jobs: { go: { uses: 'not-yet' } } },
      }),
    );
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(
      'Warning: spec.jobs.go: workflow "not-yet" not found: not-yet (calls are late-bound',
    );
  });

  it('warns, and allows, deleting a Workflow that others call', async () => {
    const r = kubectl([
      'delete',
      'workflow',
      'ring-b-missing-does-not-exist',
      '-n',
      c.namespace,
      '--ignore-not-found',
    ]);
    expect(r.status).toBe(0);
    kubectl(
      ['apply', '-n', c.namespace, '-f', '-'],
      JSON.stringify({
        apiVersion: 'kruntimes.io/v1alpha1',
        kind: 'Workflow',
        metadata: { name: 'caller' },
        spec: { jobs: { go: { uses: 'deploy', with: { environment: 'x' } } } },
      }),
    );
    await webhookSees(c, 'caller');
    const del = kubectl(['delete', 'workflow', 'deploy', '-n', c.namespace]);
    expect(del.status).toBe(0);
    expect(del.stderr).toContain(
      'Warning: workflow "deploy" is still called by "caller": their call jobs will fail until it exists again',
    );
  });
});

const nested = (levels: number): unknown => {
  let v: unknown = 'leaf';
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
};

describe('Workflow rules', () => {
  it.each([
    [
      'a with value nested 200 levels deep',
      { jobs: { c: { uses: 'other', with: { msg: nested(200) } } } },
      'spec.jobs.c.with.msg: nests deeper than 64 levels',
    ],
    [
      'a value in a shell comment of a script',
      { inputs: { v: {} }, jobs: { a: inline('echo hi # ${{ inputs.v }}') } },
      'spec.jobs.a.steps[0].run: ${{ inputs.v }}: a value inside a shell comment would run as code if it held a newline',
    ],
    [
      'an undeclared input',
      { jobs: { a: inline('true', { steps: [{ name: 's', run: 'x', env: { V: '${{ inputs.nope }}' } }] }) } },
      'spec.jobs.a.steps[0].env.V: input "nope" is not declared in spec.inputs',
    ],
    [
      'an output of a job that does not exist',
      { outputs: { e: { value: '${{ jobs.zz.outputs.e }}' } }, jobs: { a: inline() } },
      'spec.outputs.e.value: "jobs.zz.outputs.e": job "zz" does not exist',
    ],
    [
      'a default that does not match its type',
      { inputs: { n: { type: 'number', default: 'ten' } }, jobs: { a: inline() } },
      'spec.inputs.n.default: "ten" is not a number',
    ],
    [
      'a contract over the annotation budget',
      {
        outputs: Object.fromEntries(
          Array.from({ length: 33 }, (_, i) => [
            `o${i}`,
            { value: '${{ jobs.a.outputs.x }}' + ' '.repeat(8000) },
          ]),
        ),
        jobs: { a: inline('true', { outputs: { x: 'y' } }) },
      },
      'spec.outputs: the frozen output contract does not fit: annotations take',
    ],
  ])('denies %s', async (_what, spec, text) => {
    expect(await denial('workflows', spec)).toContain(text);
  });

  it('defaults an input type to string (mutating webhook) and warns about an unused input', async () => {
    const r = kubectl(
      ['apply', '-n', c.namespace, '-f', '-'],
      JSON.stringify({
        apiVersion: 'kruntimes.io/v1alpha1',
        kind: 'Workflow',
        metadata: { name: 'risky' },
        spec: { inputs: { target: {}, spare: {} }, jobs: { a: inline('deploy ${{ inputs.target }}') } },
      }),
    );
    expect(r.status).toBe(0);
    // The value is escaped for its shell context when the Run is made: nothing to warn about.
    expect(r.stderr).not.toContain('steps[0].run');
    expect(r.stderr).toContain('Warning: spec.inputs.spare: the input is declared but never used');
    const stored = kubectl([
      'get',
      'workflow',
      'risky',
      '-n',
      c.namespace,
      '-o',
      'jsonpath={.spec.inputs.target.type}',
    ]);
    expect(stored.stdout).toBe('string');
  });
});

describe('Runs', () => {
  it('lets only the controller or an admin create a Run, even with RBAC to create it', async () => {
    kubectl([
      'create',
      'role',
      'run-maker',
      '-n',
      c.namespace,
      '--verb=create,get',
      '--resource=runs.kruntimes.io',
    ]);
    kubectl([
      'create',
      'rolebinding',
      'run-maker',
      '-n',
      c.namespace,
      '--role=run-maker',
      '--user=kruntimes-user',
    ]);
    const r = await rejection(
      c.user.custom.createNamespacedCustomObject({
        ...crd('runs', c.namespace),
        body: {
          apiVersion: 'kruntimes.io/v1alpha1',
          kind: 'Run',
          metadata: { name: 'injected' },
          spec: { runtime: 'bash', script: 'curl evil' },
        },
      }),
    );
    expect(r.code).toBe(403);
    expect(r.message).toBe(
      denied(
        'Runs are created by the kruntimes controller: user "kruntimes-user" may not create Run "injected"',
      ),
    );
    await expect(create('runs', { runtime: 'bash', script: 'true' })).resolves.toBeTruthy();
  });
});

describe('kubectl apply --dry-run=server', () => {
  it('reports the same denial and stores nothing', () => {
    const bad = JSON.stringify({
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'WorkflowRun',
      metadata: { name: 'dry' },
      spec: { jobs: { a: inline('true', { needs: ['ghost'] }) } },
    });
    const dry = kubectl(['apply', '--dry-run=server', '-n', c.namespace, '-f', '-'], bad);
    const real = kubectl(['apply', '-n', c.namespace, '-f', '-'], bad);
    expect(dry.status).not.toBe(0);
    expect(dry.stderr).toContain(
      denied('WorkflowRun "dry" is invalid: spec.jobs.a.needs: job "ghost" does not exist'),
    );
    expect(dry.stderr.replace(/\s+$/, '')).toBe(real.stderr.replace(/\s+$/, ''));
    expect(kubectl(['get', 'wfr', 'dry', '-n', c.namespace]).stderr).toContain('NotFound');
  });
});

describe('krt validate', () => {
  it('prints the same message offline as the webhook gives through the API server', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const { spawnSync } = await import('node:child_process');
    const { repoRoot } = await import('../harness/paths.js');
    const manifest = JSON.stringify({
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'WorkflowRun',
      metadata: { name: 'same-words' },
      spec: {
        jobs: { a: inline('echo ${{ jobs.b.outputs.x }}'), b: inline('true', { outputs: { x: 'y' } }) },
      },
    });
    const file = join(mkdtempSync(join(tmpdir(), 'krt-')), 'run.json');
    writeFileSync(file, manifest);
    const offline = spawnSync(join(repoRoot, 'bin/krt'), ['validate', '-f', file], { encoding: 'utf8' });
    const online = kubectl(['apply', '-n', c.namespace, '-f', file]);
    const rule =
      'spec.jobs.a.steps[0].run: "jobs.b.outputs.x": job "b" is not upstream of job "a" (add it to needs)';
    expect(offline.status).toBe(2);
    expect(offline.stdout).toBe(`${file}: WorkflowRun/same-words: ${rule}\n`);
    expect(online.stderr).toContain(denied(`WorkflowRun "same-words" is invalid: ${rule}`));
  });
});
