import { describe, expect, it } from '@jest/globals';
import type { Pipeline, PromiseObject, ResourceObject } from '../api/types.js';
import { formatFieldError } from '../fielderror.js';
import { validatePromise } from '../validate/promise.js';
import { buildPipelineRun, containerJobs } from './pipeline.js';

const kratix = (containers: unknown[], extra: Record<string, unknown> = {}): Pipeline =>
  ({
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'Pipeline',
    metadata: { name: 'instance' },
    spec: { containers, ...extra },
  }) as Pipeline;

const promise = (configure: Pipeline[]): PromiseObject =>
  ({
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'Promise',
    metadata: { name: 'namespace-as-a-service' },
    spec: {
      api: {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'teams.test.kruntimes.dev' },
        spec: {
          group: 'test.kruntimes.dev',
          scope: 'Namespaced',
          names: { kind: 'Team', plural: 'teams' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: {
                  type: 'object',
                  properties: { spec: { type: 'object', properties: { quota: { type: 'string' } } } },
                },
              },
            },
          ],
        },
      },
      workflows: { resource: { configure: configure } },
    },
  }) as PromiseObject;

describe('Kratix-shaped pipelines (spec.containers)', () => {
  const two = [
    { name: 'render', image: 'localhost/tools:1', command: ['sh', '-c', 'echo ${{ resource.spec.quota }}'] },
    {
      name: 'publish',
      image: 'localhost/tools:1',
      env: [
        { name: 'MODE', value: 'strict' },
        { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'creds', key: 'token' } } },
      ],
    },
  ];

  it('are one job of the kubernetes runtime, its containers the steps in order', () => {
    expect(containerJobs(kratix(two))).toEqual({
      instance: {
        'runs-on': 'kubernetes',
        steps: [
          {
            name: 'render',
            image: 'localhost/tools:1',
            command: ['sh', '-c', 'echo ${{ resource.spec.quota }}'],
          },
          {
            name: 'publish',
            image: 'localhost/tools:1',
            env: { MODE: 'strict' },
            secretEnv: { TOKEN: { name: 'creds', key: 'token' } },
          },
        ],
      },
    });
  });

  it('are admitted, and their errors are said at the container', () => {
    expect(validatePromise(promise([kratix(two)])).errors).toEqual([]);
    const bad = kratix([
      { name: 'a', image: 'x', command: ['${{ resource.spec.nope }}'] },
      { name: 'a', image: 'x' },
    ]);
    expect(validatePromise(promise([bad])).errors.map(formatFieldError)).toEqual([
      'spec.workflows.resource.configure[0].spec.containers[1].name: duplicate step name "a"',
      expect.stringContaining('spec.workflows.resource.configure[0].spec.containers[0].command[0]: '),
    ]);
  });

  it('take volumes, volumeMounts and envFrom, their errors said at the pipeline and the container', () => {
    const withVolumes = kratix(
      [
        {
          name: 'a',
          image: 'x',
          volumeMounts: [{ name: 'conf', mountPath: '/conf' }],
          envFrom: [{ secretRef: { name: 's' } }],
        },
      ],
      { volumes: [{ name: 'conf', configMap: { name: 'settings' } }] },
    );
    expect(validatePromise(promise([withVolumes])).errors).toEqual([]);
    expect(containerJobs(withVolumes)?.instance).toMatchObject({
      volumes: [{ name: 'conf', configMap: { name: 'settings' } }],
      steps: [
        { volumeMounts: [{ name: 'conf', mountPath: '/conf' }], envFrom: [{ secretRef: { name: 's' } }] },
      ],
    });
    const p = kratix([{ name: 'a', image: 'x', volumeMounts: [{ name: 'v', mountPath: '/v' }] }], {
      volumes: [
        { name: 'w', emptyDir: {} },
        { name: 'w', emptyDir: {} },
      ],
    });
    expect(validatePromise(promise([p])).errors.map(formatFieldError)).toEqual([
      'spec.workflows.resource.configure[0].spec.volumes[1].name: duplicate volume name "w"',
      'spec.workflows.resource.configure[0].spec.containers[0].volumeMounts[0].name: no volume "v" in the job\'s volumes',
    ]);
    expect(
      validatePromise(
        promise([
          {
            ...kratix(two),
            spec: {
              containers: two,
              jobs: { main: { 'runs-on': 'bash', steps: [{ name: 'a', run: 'x' }] } },
            },
          } as Pipeline,
        ]),
      ).errors.map(formatFieldError),
    ).toEqual([
      'spec.workflows.resource.configure[0].spec: a Pipeline has one of jobs, containers or uses (a Workflow)',
    ]);
  });

  it("run with the resource rendered as data and Kratix's variables", () => {
    const resource = {
      apiVersion: 'test.kruntimes.dev/v1',
      kind: 'Team',
      metadata: { name: 'blue', namespace: 'teams', uid: 'u1', generation: 2 },
      spec: { quota: "1'; rm -rf /" },
    } as ResourceObject;
    const p = promise([kratix(two)]);
    const run = buildPipelineRun(resource, p, kratix(two), { round: 1, hash: 'h', earlier: {} });
    if ('error' in run) throw new Error(run.error);
    const [render, publish] = run.spec.jobs.instance?.steps ?? [];
    expect(render?.command).toEqual(['sh', '-c', "echo 1'; rm -rf /"]);
    expect(publish?.env).toMatchObject({
      MODE: 'strict',
      KRATIX_WORKFLOW_ACTION: 'configure',
      KRATIX_WORKFLOW_TYPE: 'resource',
      KRATIX_PROMISE_NAME: 'namespace-as-a-service',
      KRATIX_PIPELINE_NAME: 'instance',
      KRATIX_OBJECT_KIND: 'Team',
      KRATIX_OBJECT_GROUP: 'test.kruntimes.dev',
      KRATIX_OBJECT_VERSION: 'v1',
      KRATIX_OBJECT_NAME: 'blue',
      KRATIX_OBJECT_NAMESPACE: 'teams',
      KRATIX_CRD_PLURAL: 'teams',
      KRATIX_CLUSTER_SCOPED: 'false',
      KRT_OBSERVED_GENERATION: '2',
    });
    expect(run.spec.inputFiles?.['object.yaml']).toContain('name: blue');
  });
});
