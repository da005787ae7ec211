import type { WorkflowRun } from '../api/types.js';
import { formatFieldError } from '../fielderror.js';
import { validateRun, validateWorkflowRun } from './index.js';

const wfr = (jobs: unknown): WorkflowRun =>
  ({
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'WorkflowRun',
    metadata: { name: 'r' },
    spec: { jobs },
  }) as WorkflowRun;
const errorsOf = (jobs: unknown) => validateWorkflowRun(wfr(jobs)).errors.map(formatFieldError);
const pod = (step: Record<string, unknown>, job: Record<string, unknown> = {}) => ({
  build: { 'runs-on': 'kubernetes', steps: [{ name: 's', ...step }], ...job },
});

describe('container steps (runs-on: kubernetes)', () => {
  it.each([
    ['a script in an image', { image: 'localhost/tools:1', run: 'make' }],
    ["the image's entrypoint", { image: 'registry.example:5000/team/tool@sha256:' + 'a'.repeat(64) }],
    [
      'exec form with values as words',
      { image: 'busybox', command: ['sh'], args: ['-c', '${{ inputs.x }}'] },
    ],
    [
      'resources and a working directory',
      {
        image: 'b',
        run: 'x',
        workingDir: '/w',
        resources: { requests: { cpu: '250m', memory: '64Mi' }, limits: { memory: '1.5Gi' } },
      },
    ],
  ])('accepts %s', (_, step) => {
    const r = validateWorkflowRun({
      ...wfr(pod(step)),
      metadata: { name: 'r', annotations: {} },
    } as WorkflowRun);
    expect(r.errors.filter((e) => !e.message.includes('inputs')).map(formatFieldError)).toEqual([]);
  });

  it('accepts volumes of a ConfigMap, a Secret and an empty directory, mounted and read whole (envFrom)', () => {
    expect(
      errorsOf(
        pod(
          {
            image: 'b',
            volumeMounts: [
              { name: 'conf', mountPath: '/etc/conf', readOnly: true },
              { name: 'creds', mountPath: '/creds' },
              { name: 'scratch', mountPath: '/scratch' },
            ],
            envFrom: [
              { configMapRef: { name: 'settings' } },
              { secretRef: { name: 'tokens' }, prefix: 'T_' },
            ],
          },
          {
            volumes: [
              { name: 'conf', configMap: { name: 'settings', items: [{ key: 'a', path: 'a.yaml' }] } },
              { name: 'creds', secret: { secretName: 'tokens' } },
              { name: 'scratch', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } },
            ],
          },
        ),
      ),
    ).toEqual([]);
  });

  it('accepts the Pod settings of a job', () => {
    expect(
      errorsOf(
        pod(
          { image: 'b', run: 'x' },
          {
            serviceAccountName: 'reader',
            nodeSelector: { 'kubernetes.io/os': 'linux' },
            tolerations: [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }],
          },
        ),
      ),
    ).toEqual([]);
  });

  it.each([
    [pod({ run: 'x' }), 'spec.jobs.build.steps[0].image: required with runs-on: kubernetes'],
    [
      pod({ image: 'b', run: 'x', command: ['y'] }),
      'spec.jobs.build.steps[0].command: a step has run (a script) or command (exec form), not both',
    ],
    [pod({ image: 'Not/An:Image:Ref' }), 'spec.jobs.build.steps[0].image: must match'],
    [
      pod({ image: 'b', run: 'x', resources: { limits: { memory: '1 GB' } } }),
      'spec.jobs.build.steps[0].resources.limits.memory: must match',
    ],
    [
      pod({ image: 'b', run: 'x', limits: { processes: 5 } }),
      'spec.jobs.build.steps[0].limits: is for sandboxed runtimes',
    ],
    [
      pod({ image: 'b', run: 'x' }, { serviceAccountName: 'Bad_Name' }),
      'spec.jobs.build.serviceAccountName: must match',
    ],
    [pod({ image: 'b', run: 'x' }, { nodeSelector: { 'bad key!': 'x' } }), 'spec.jobs.build.nodeSelector'],
    [
      pod({ image: 'b', run: 'x' }, { tolerations: [{ operator: 'Sometimes' }] }),
      'spec.jobs.build.tolerations[0].operator',
    ],
    [
      { build: { 'runs-on': 'bash', steps: [{ name: 's', run: 'x', image: 'b' }] } },
      'spec.jobs.build.steps[0].image: only a step of runs-on: kubernetes may have image',
    ],
    [
      { build: { 'runs-on': 'bash', serviceAccountName: 'x', steps: [{ name: 's', run: 'x' }] } },
      'spec.jobs.build.serviceAccountName: serviceAccountName, nodeSelector, tolerations and volumes need runs-on: kubernetes',
    ],
    [pod({ image: 'b', args: ['${{ steps.nope.outputs.x }}'] }), 'spec.jobs.build.steps[0].args'],
    [
      pod({ image: 'b', volumeMounts: [{ name: 'nope', mountPath: '/x' }] }),
      'spec.jobs.build.steps[0].volumeMounts[0].name: no volume "nope" in the job\'s volumes',
    ],
    [
      pod(
        { image: 'b', volumeMounts: [{ name: 'v', mountPath: '/kratix/input' }] },
        { volumes: [{ name: 'v', emptyDir: {} }] },
      ),
      'spec.jobs.build.steps[0].volumeMounts[0].mountPath: is where the step finds its own files: mount elsewhere',
    ],
    [
      pod({ image: 'b' }, { volumes: [{ name: 'v', emptyDir: {}, configMap: { name: 'c' } }] }),
      'spec.jobs.build.volumes[0]: a volume has exactly one of configMap, secret, emptyDir',
    ],
    [
      pod({ image: 'b' }, { volumes: [{ name: 'krt', emptyDir: {} }] }),
      'spec.jobs.build.volumes[0].name: "krt" is a volume of the step Pod itself',
    ],
    [
      pod({ image: 'b' }, { volumes: [{ name: 'v', hostPath: { path: '/' } }] }),
      'spec.jobs.build.volumes[0]: a volume has exactly one of configMap, secret, emptyDir',
    ],
    [
      pod({ image: 'b', envFrom: [{}] }),
      'spec.jobs.build.steps[0].envFrom[0]: a source has exactly one of configMapRef, secretRef',
    ],
    [
      {
        build: {
          'runs-on': 'bash',
          steps: [{ name: 's', run: 'x', envFrom: [{ configMapRef: { name: 'c' } }] }],
        },
      },
      'spec.jobs.build.steps[0].envFrom: only a step of runs-on: kubernetes may have envFrom',
    ],
  ])('refuses %j with the field and the rule', (jobs, expected) => {
    expect(errorsOf(jobs).join('\n')).toContain(expected);
  });
});

describe('validateRun of the kubernetes runtime', () => {
  const run = (spec: Record<string, unknown>) =>
    ({ apiVersion: 'kruntimes.io/v1alpha1', kind: 'Run', metadata: { name: 'x' }, spec }) as never;
  it('needs a container, and a container only there', () => {
    expect(validateRun(run({ runtime: 'kubernetes', script: 'x' })).errors.map(formatFieldError)).toEqual([
      'spec.container: required for runtime kubernetes',
    ]);
    expect(
      validateRun(run({ runtime: 'bash', script: 'x', container: { image: 'b' } })).errors.map(
        formatFieldError,
      ),
    ).toEqual(['spec.container: only for runtime kubernetes']);
    expect(validateRun(run({ runtime: 'bash' })).errors.map(formatFieldError)).toEqual([
      'spec.script: required value',
    ]);
    expect(
      validateRun(run({ runtime: 'kubernetes', container: { image: 'b', args: ['a b'] } })).errors,
    ).toEqual([]);
  });
  it('keeps the container immutable', () => {
    const old = run({ runtime: 'kubernetes', container: { image: 'b' } });
    expect(
      validateRun(run({ runtime: 'kubernetes', container: { image: 'c' } }), old).errors.map(
        formatFieldError,
      ),
    ).toEqual(['spec.container: field is immutable after creation']);
  });
});
