import type { Workflow } from '../api/types.js';
import { formatFieldError } from '../fielderror.js';
import { materialize, resolveInputs } from './materialize.js';

const template = {
  apiVersion: 'kruntimes.io/v1alpha1',
  kind: 'Workflow',
  metadata: { name: 'deploy' },
  spec: {
    inputs: {
      environment: { type: 'string', required: true },
      replicas: { type: 'number', default: '2' },
      dry: { type: 'boolean' },
    },
    outputs: { endpoint: { value: "${{ format('{0}/{1}', jobs.apply.outputs.url, inputs.environment) }}" } },
    jobs: {
      apply: {
        'runs-on': 'bash',
        steps: [
          {
            name: 's',
            run: 'deploy ${{ inputs.environment }} x${{ inputs.replicas }} ${{ inputs.dry }}',
            env: { E: '${{ inputs.environment }}' },
          },
        ],
        outputs: { url: '${{ steps.s.outputs.url }}' },
      },
    },
  },
} as unknown as Workflow;

describe('resolveInputs', () => {
  it('applies defaults and reads a missing optional input as empty', () => {
    expect(resolveInputs(template, { environment: 'staging' }, 'inputs')).toEqual({
      values: { environment: 'staging', replicas: '2', dry: '' },
    });
  });
  it.each([
    [{}, 'inputs: required input "environment" of workflow "deploy" is not given'],
    [
      { environment: 'x', colour: 'red' },
      'inputs.colour: input "colour" is not declared by workflow "deploy"',
    ],
    [
      { environment: 'x', replicas: 'many' },
      'inputs.replicas: "many" is not a number (input "replicas" of workflow "deploy")',
    ],
    [
      { environment: 'x', dry: 'yes' },
      'inputs.dry: "yes" is not a boolean (input "dry" of workflow "deploy")',
    ],
  ])('refuses %j', (given, message) => {
    const r = resolveInputs(template, given as Record<string, string>, 'inputs');
    expect('errors' in r && r.errors.map(formatFieldError)).toEqual([message]);
  });
});

describe('materialize', () => {
  it('renders inputs into every string and leaves the rest for the run', () => {
    const m = materialize(template, { environment: 'staging', replicas: '3', dry: 'false' });
    expect(m.jobs.apply?.steps?.[0]).toEqual({
      name: 's',
      run: 'deploy staging x3 false',
      env: { E: 'staging' },
    });
    expect(m.jobs.apply?.outputs).toEqual({ url: '${{ steps.s.outputs.url }}' });
    expect(m.annotations).toEqual({
      'kruntimes.io/workflow-output.endpoint': "${{ format('{0}/{1}', jobs.apply.outputs.url, 'staging') }}",
    });
    expect(template.spec.jobs.apply?.steps?.[0]?.run).toContain('${{ inputs.environment }}');
  });
});
