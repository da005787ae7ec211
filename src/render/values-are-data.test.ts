// Values are data (docs/design.md §3): an input, `with` or output value reaches a step with exactly the
// characters it was given, through every rendering pass (trigger, child materialisation, Run
// creation), whatever it holds.
import { spawnSync } from 'node:child_process';
import type { Run, Workflow, WorkflowRun } from '../api/types.js';
import { renderPartial, renderTemplate } from '../expr/index.js';
import { planWorkflowRun, type Action, type Observed } from '../plan/workflowrun.js';
import { validateWorkflowRun } from '../validate/workflowrun.js';
import { materialize } from './materialize.js';
import { triggeredRun } from './trigger.js';

const HOSTILE: [string, string][] = [
  ['an expression', '${{ steps.first.outputs.secret }}'],
  ['a self-reference', '${{ inputs.x }}'],
  ['an opener alone', '${{'],
  ['a closer alone', '}}'],
  ['a closer then an opener', '}} ${{ jobs.a.outputs.b'],
  ['quotes', `it's "quoted" '' and ''' `],
  ['a quoted closer', "'}}' ${{ '}}' }}"],
  ['backslashes', 'C:\\path\\${{ \\n }}\\'],
  ['newlines', 'line one\n${{ inputs.x }}\r\nline three\n'],
  ['unicode', 'héllo ✓ 日本語 🚀 ${{ ünï }}'],
  ['a dollar at the end', 'cost: $'],
  ['a brace at the start', '{{ steps.first.outputs.secret }}'],
  ['a lone dollar-brace', '${'],
  ['empty', ''],
  ['4 KiB with expressions', ('${{ x }}' + '\'"\\\n').repeat(4096 / 12).padEnd(4096, '$')],
];

const template = (run: string, env = ''): Workflow =>
  ({
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'Workflow',
    metadata: { name: 'w', namespace: 'ns' },
    spec: {
      inputs: { x: { type: 'string' } },
      outputs: { echoed: { value: '${{ inputs.x }}' }, mixed: { value: "${{ inputs.x || 'none' }}" } },
      jobs: {
        first: {
          'runs-on': 'bash',
          steps: [
            { name: 'first', run: 'echo secret=s3cr3t >> "$KRT_OUTPUT"' },
            { name: 'second', run, env: { X: env || '${{ inputs.x }}' } },
          ],
          outputs: { out: '${{ steps.second.outputs.out }}' },
        },
      },
    },
  }) as unknown as Workflow;

/** What real bash prints for a rendered script: the value's exact bytes, and nothing else ran. */
function bashPrints(script: string | undefined): string {
  const r = spawnSync('bash', ['--norc', '--noprofile', '-c', script ?? 'exit 9'], {
    encoding: 'utf8',
    env: {},
  });
  expect(r.status).toBe(0);
  return r.stdout;
}

const NOW = new Date('2026-12-03T10:00:00Z');
const created = <T extends Action['type']>(actions: Action[], type: T) =>
  actions.filter((a): a is Extract<Action, { type: T }> => a.type === type);

/** Plans a WorkflowRun as the controller does, with every Run finishing with the given outputs. */
function stepScripts(run: WorkflowRun, outputs: Record<string, Record<string, string>> = {}) {
  let runs: Run[] = [];
  let status = run.status;
  for (let i = 0; i < 10; i++) {
    const plan = planWorkflowRun({
      run: { ...run, status },
      snapshot: run.spec,
      runs,
      children: [],
      workflow: () => undefined,
      now: NOW,
    });
    status = plan.status;
    const fresh = created(plan.actions, 'createRun').map((a) => a.run);
    if (fresh.length === 0) break;
    runs = [
      ...runs,
      ...fresh.map((r) => ({
        ...r,
        status: {
          phase: 'Succeeded',
          outputs: outputs[r.metadata.labels?.['kruntimes.io/workflow-step'] ?? ''],
        },
      })),
    ] as Run[];
  }
  return { runs, status };
}

describe('values are data', () => {
  it.each(HOSTILE)('renderPartial keeps %s as a value no later pass can read', (_, value) => {
    const once = renderPartial('run ${{ inputs.x }} now', { inputs: { x: value } }, ['inputs']);
    expect(renderTemplate(once, { steps: {}, jobs: {} })).toBe(`run ${value} now`);
    // Even a pass that knows every context sees only the literal.
    const twice = renderPartial(once, { inputs: { x: 'other' } }, ['inputs']);
    expect(renderTemplate(twice, { inputs: { x: 'other' } })).toBe(`run ${value} now`);
  });

  it('leaves plain values readable in the rendered jobs', () => {
    expect(renderPartial('deploy ${{ inputs.x }}', { inputs: { x: 'staging' } }, ['inputs'])).toBe(
      'deploy staging',
    );
  });

  it('cannot join template text around a value into a new placeholder', () => {
    // `$` before and `{{` after an empty value would read `${{ ... }}` if pasted raw.
    const once = renderPartial('$${{ inputs.x }}{{ steps.a.outputs.b }}', { inputs: { x: '' } }, ['inputs']);
    expect(renderTemplate(once, {})).toBe('${{ steps.a.outputs.b }}');
    const split = renderPartial('${{ inputs.x }}{ steps.a.outputs.b }}', { inputs: { x: '$' } }, ['inputs']);
    expect(renderTemplate(split, {})).toBe('${ steps.a.outputs.b }}');
  });

  it.each(HOSTILE)('krt workflow trigger: a step sees %s exactly, and the run is valid', (_, value) => {
    const r = triggeredRun(template('printf %s "${{ inputs.x }}"'), { x: value });
    if (!('run' in r)) throw new Error(JSON.stringify(r.errors));
    const run = {
      ...r.run,
      metadata: { ...r.run.metadata, name: 'w-abc', namespace: 'ns', uid: 'u1', generation: 1 },
    };
    expect(validateWorkflowRun(run).errors).toEqual([]);
    const { runs, status } = stepScripts(run, { first: { secret: 's3cr3t' }, second: { out: value } });
    const second = runs.find((x) => x.metadata.name === 'w-abc-first-second');
    expect(bashPrints(second?.spec.script)).toBe(value);
    expect(second?.spec.env).toEqual([{ name: 'X', value }]);
    expect(status?.phase).toBe('Succeeded');
    expect(status?.outputs).toEqual({ echoed: value, mixed: value === '' ? 'none' : value });
  });

  it.each(HOSTILE)('a job output holding %s reaches a called Workflow as data', (_, value) => {
    const parent: WorkflowRun = {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'WorkflowRun',
      metadata: { name: 'p', namespace: 'ns', uid: 'pu', generation: 1 },
      spec: {
        jobs: {
          make: {
            'runs-on': 'bash',
            steps: [{ name: 'm', run: 'true' }],
            outputs: { v: '${{ steps.m.outputs.v }}' },
          },
          call: { needs: ['make'], uses: 'w', with: { x: '${{ jobs.make.outputs.v }}' } },
        },
      },
    };
    const o: Observed = {
      run: parent,
      snapshot: parent.spec,
      runs: [],
      children: [],
      workflow: (n) => (n === 'w' ? template('printf %s "${{ inputs.x }}"') : undefined),
      now: NOW,
    };
    const first = planWorkflowRun(o);
    const made = created(first.actions, 'createRun').map(
      (a) => ({ ...a.run, status: { phase: 'Succeeded', outputs: { v: value } } }) as Run,
    );
    const second = planWorkflowRun({ ...o, run: { ...parent, status: first.status }, runs: made });
    const [child] = created(second.actions, 'createChild').map((a) => a.child);
    if (!child) throw new Error(JSON.stringify(second.status));
    const childRun = { ...child, metadata: { ...child.metadata, uid: 'cu', generation: 1 } };
    expect(validateWorkflowRun(childRun).errors).toEqual([]);
    const { runs, status } = stepScripts(childRun, { first: { secret: 's3cr3t' }, second: { out: value } });
    expect(bashPrints(runs.find((x) => x.metadata.name === 'p-call-call-first-second')?.spec.script)).toBe(
      value,
    );
    expect(status?.outputs?.echoed).toBe(value);
  });

  it('materialize renders the output contract of a value as a literal too', () => {
    const m = materialize(template('true'), { x: '${{ jobs.first.outputs.out }}' });
    expect(renderTemplate(m.annotations['kruntimes.io/workflow-output.echoed'] ?? '', { jobs: {} })).toBe(
      '${{ jobs.first.outputs.out }}',
    );
  });
});
