import type { Workflow } from '../api/types.js';
import { formatFieldError } from '../fielderror.js';
import { parseInputFlags, triggeredRun } from './trigger.js';

const template = {
  apiVersion: 'kruntimes.io/v1alpha1',
  kind: 'Workflow',
  metadata: { name: 'deploy-workflow' },
  spec: {
    inputs: { environment: { type: 'string', required: true } },
    outputs: { endpoint: { value: '${{ jobs.apply.outputs.endpoint }}' } },
    jobs: {
      apply: {
        'runs-on': 'bash',
        steps: [{ name: 'deploy', run: 'deploy ${{ inputs.environment }}' }],
        outputs: { endpoint: 'x' },
      },
    },
  },
} as unknown as Workflow;

describe('krt workflow trigger, the pure part', () => {
  it('parses --input flags and refuses one without =', () => {
    expect(parseInputFlags(['a=1', 'b=x=y', 'c='])).toEqual({ values: { a: '1', b: 'x=y', c: '' } });
    const bad = parseInputFlags(['environment']);
    expect('errors' in bad && bad.errors.map(formatFieldError)).toEqual([
      '--input: "environment" is not key=value',
    ]);
  });

  it('builds an inline run with rendered jobs, the output contract and the template label', () => {
    const r = triggeredRun(template, { environment: 'staging' });
    expect('run' in r && r.run).toEqual({
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'WorkflowRun',
      metadata: {
        generateName: 'deploy-workflow-',
        labels: { 'kruntimes.io/workflow': 'deploy-workflow' },
        annotations: { 'kruntimes.io/workflow-output.endpoint': '${{ jobs.apply.outputs.endpoint }}' },
      },
      spec: {
        jobs: {
          apply: {
            'runs-on': 'bash',
            steps: [{ name: 'deploy', run: 'deploy staging' }],
            outputs: { endpoint: 'x' },
          },
        },
      },
    });
  });

  it('refuses undeclared and missing inputs', () => {
    const r = triggeredRun(template, { colour: 'red' });
    expect('errors' in r && r.errors.map(formatFieldError)).toEqual([
      '--input.colour: input "colour" is not declared by workflow "deploy-workflow"',
      '--input: required input "environment" of workflow "deploy-workflow" is not given',
    ]);
  });
});
