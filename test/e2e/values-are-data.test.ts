// Values are data, end to end: an input given to `krt workflow trigger` and a job output passed
// through `with` into a call reach a real bash step with exactly the characters they had, through
// every rendering pass (trigger, child materialisation, Run creation) and the real webhook.
import { randomBytes } from 'node:crypto';
import type { WorkflowRun } from '../../src/api/types.js';
import { crd } from '../../src/kube/rest.js';
import { testCluster, type TestCluster } from '../harness/cluster.js';
import { kubectl } from '../harness/kubectl.js';
import { krt } from '../harness/krt.js';
import { workflowReady, workflowRunInPhase } from '../harness/objects.js';

let c: TestCluster;
beforeAll(async () => {
  c = await testCluster('e2e-data');
  // The step reports the bytes it sees as hex, so the comparison is exact whatever they are.
  const echo = {
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'Workflow',
    metadata: { name: 'echo', namespace: c.namespace },
    spec: {
      inputs: { x: { type: 'string', required: true } },
      outputs: { hex: { value: '${{ jobs.j.outputs.hex }}' } },
      jobs: {
        j: {
          'runs-on': 'bash',
          steps: [
            { name: 'first', run: 'echo secret=s3cr3t >> "$KRT_OUTPUT"' },
            {
              name: 'show',
              env: { X: '${{ inputs.x }}' },
              run: `echo "hex=$(printf '%s' "$X" | od -An -tx1 -v | tr -d ' \\n')" >> "$KRT_OUTPUT"`,
            },
          ],
          outputs: { hex: '${{ steps.show.outputs.hex }}' },
        },
      },
    },
  };
  expect(kubectl(['apply', '-f', '-'], JSON.stringify(echo)).status).toBe(0);
  await workflowReady(c, 'echo');
});
afterAll(async () => {
  await c?.cleanup();
});

const hex = (s: string) => Buffer.from(s, 'utf8').toString('hex');
const HOSTILE = [
  '${{ steps.first.outputs.secret }}',
  '${{ inputs.x }}',
  `}} \${{ '}}' }} it's "quoted" \\back\\slash\nnew line ✓ 日本 $HOME $(id) \`id\``,
  'x'.repeat(1000) + '${{' + '"\'\\'.repeat(300),
];

it.each(HOSTILE.map((v, i) => [i, v]))(
  'krt workflow trigger: value %i reaches the step as given',
  async (_, value) => {
    const t = await krt(c, 'workflow', 'trigger', 'echo', '--input', `x=${value}`, '--wait');
    expect(t.stderr).not.toMatch(/error|denied/i);
    expect(t.status).toBe(0);
    expect(t.stdout.split('\n').slice(1)).toEqual([`hex=${hex(value)}`, '']);
  },
);

it('a job output holding ${{ }} passes through with into a call as data', async () => {
  const name = `caller-${randomBytes(3).toString('hex')}`;
  await c.admin.custom.createNamespacedCustomObject({
    ...crd('workflowruns', c.namespace),
    body: {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'WorkflowRun',
      metadata: { name },
      spec: {
        jobs: {
          make: {
            'runs-on': 'bash',
            // Written by bash, so the template itself holds no placeholder.
            steps: [
              { name: 'm', run: `printf 'v=%s{{ steps.first.outputs.secret }}\\n' '$' >> "$KRT_OUTPUT"` },
            ],
            outputs: { v: '${{ steps.m.outputs.v }}' },
          },
          call: { needs: ['make'], uses: 'echo', with: { x: '${{ jobs.make.outputs.v }}' } },
        },
      },
    },
  });
  const done = (await workflowRunInPhase(c, name, ['Succeeded', 'Failed'], 60_000)) as WorkflowRun;
  expect(done.status?.jobs?.make?.outputs).toEqual({ v: '${{ steps.first.outputs.secret }}' });
  expect(done.status?.jobs?.call).toMatchObject({
    phase: 'Succeeded',
    outputs: { hex: hex('${{ steps.first.outputs.secret }}') },
  });
});

describe('the scanner keeps its place (issue "Security III")', () => {
  const workflow = (name: string, run: string) => ({
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'Workflow',
    metadata: { name, namespace: c.namespace },
    spec: {
      inputs: { who: { type: 'string' } },
      jobs: { j: { 'runs-on': 'bash', steps: [{ name: 's', run }] } },
    },
  });

  it('a `case` in $( ) before a value: admitted, and a hostile value reaches bash as data', async () => {
    const run = 'kind="$(echo case | tr a-z A-Z)"\necho "hello ${{ inputs.who }} $kind"';
    expect(kubectl(['apply', '-f', '-'], JSON.stringify(workflow('cased', run))).status).toBe(0);
    await workflowReady(c, 'cased');
    const t = await krt(c, 'workflow', 'trigger', 'cased', '--input', 'who=$(echo MARKER >&2)', '--wait');
    expect(t.status).toBe(0);
    const name = t.stdout.split('\n')[0]?.trim().split(/\s+/)[0] ?? '';
    const logs = await krt(c, 'wfr', 'logs', name);
    expect(logs.stdout).toContain('hello $(echo MARKER >&2) CASE');
    expect(logs.stdout + logs.stderr).not.toMatch(/^MARKER$/m);
  });

  it.each([
    ['an array subscript', 'a[${{ inputs.who }}]=1'],
    ['a compound assignment subscript', 'a=([${{ inputs.who }}]=1)'],
    ['a -v test', '[[ -v ${{ inputs.who }} ]] && echo set'],
  ])('%s is refused at apply, naming the step', (_, run) => {
    const r = kubectl(['apply', '--dry-run=server', '-f', '-'], JSON.stringify(workflow('refused', run)));
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('spec.jobs.j.steps[0].run: ${{ inputs.who }}: a value');
    expect(r.stderr).toMatch(/subscript|names a variable/);
  });
});
