import { describe, expect, it } from '@jest/globals';
import type { PromiseObject } from '../api/types.js';
import { formatFieldError } from '../fielderror.js';
import { validatePromise } from './promise.js';
import { validateWorkflowRun } from './workflowrun.js';

const api = (over: Record<string, unknown> = {}) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'databases.test.kruntimes.dev' },
  spec: {
    group: 'test.kruntimes.dev',
    scope: 'Namespaced',
    names: { kind: 'Database', plural: 'databases' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', properties: { size: { type: 'string' } } } },
          },
        },
      },
    ],
    ...over,
  },
});

const step = (run: string) => ({ main: { 'runs-on': 'bash', steps: [{ name: 'go', run }] } });
const pipeline = (name: string, run = 'echo ${{ resource.spec.size }}') => ({
  apiVersion: 'kruntimes.io/v1alpha1' as const,
  kind: 'Pipeline' as const,
  metadata: { name },
  spec: { jobs: step(run) },
});

function promise(spec: Record<string, unknown> = {}): PromiseObject {
  return {
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'Promise',
    metadata: { name: 'database' },
    spec: { api: api(), workflows: { resource: { configure: [pipeline('a')] } }, ...spec },
  } as PromiseObject;
}

const errorsOf = (p: PromiseObject, old?: PromiseObject) =>
  validatePromise(p, old).errors.map(formatFieldError);

describe('validatePromise', () => {
  it('accepts a valid Promise', () => {
    expect(validatePromise(promise())).toEqual({ errors: [], warnings: [] });
  });

  it("checks the Promise's own pipelines: they need the workflowNamespace and read the Promise as resource", () => {
    const own = (configure: unknown[], extra: Record<string, unknown> = {}) =>
      errorsOf(
        promise({
          workflows: { promise: { configure }, resource: { configure: [pipeline('a')] } },
          ...extra,
        }),
      );
    expect(own([pipeline('install', 'echo ${{ resource.spec.api.spec.group }}')])).toEqual([
      "spec.workflowNamespace: required when spec.workflows.promise has pipelines: the Promise's own pipelines run there",
    ]);
    expect(
      own([pipeline('install', 'echo ${{ resource.spec.api.spec.group }} ${{ resource.metadata.name }}')], {
        workflowNamespace: 'platform',
      }),
    ).toEqual([]);
    expect(own([pipeline('install')], { workflowNamespace: 'platform' })).toEqual([
      expect.stringMatching(
        /^spec\.workflows\.promise\.configure\[0\]\.spec\.jobs\.main\.steps\[0\]\.run: .*the resource schema declares no field "spec\.size"/,
      ),
    ]);
    expect(
      own([pipeline('install', 'true'), pipeline('install', 'true')], { workflowNamespace: 'platform' }),
    ).toEqual(['spec.workflows.promise.configure[1].metadata.name: duplicate pipeline name "install"']);
  });

  it('accepts a cluster-scoped API whose pipelines run in the workflowNamespace', () => {
    expect(
      validatePromise(promise({ api: api({ scope: 'Cluster' }), workflowNamespace: 'platform' })),
    ).toEqual({ errors: [], warnings: [] });
  });

  it.each([
    [{ group: 'kruntimes.io' }, 'spec.api.spec.group: the group kruntimes.io belongs to kruntimes itself'],
    [{ group: 'x.kruntimes.io' }, 'spec.api.spec.group: the group kruntimes.io belongs to kruntimes itself'],
    [{ scope: 'Global' }, 'spec.api.spec.scope: must be Namespaced or Cluster'],
    [
      { scope: 'Cluster' },
      'spec.workflowNamespace: required when spec.api.spec.scope is Cluster: the pipelines of a cluster-scoped resource run there',
    ],
    [
      { names: { kind: 'database', plural: 'databases' } },
      'spec.api.spec.names.kind: must be a CamelCase kind such as Database',
    ],
    [{ versions: [] }, 'spec.api.spec.versions: must list at least one version'],
    [
      { versions: [{ name: 'v1', storage: false, schema: { openAPIV3Schema: { type: 'object' } } }] },
      'spec.api.spec.versions: exactly one version must have storage: true',
    ],
    [
      { versions: [{ name: 'v1', storage: true, schema: {} }] },
      'spec.api.spec.versions[0].schema.openAPIV3Schema: must be a structural schema of type object',
    ],
  ])('refuses an API %j', (over, message) => {
    expect(errorsOf(promise({ api: api(over) }))).toContain(message);
  });

  it('refuses an API that is not a CRD, or whose name is not <plural>.<group>', () => {
    const wrong = { ...api(), apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } };
    expect(errorsOf(promise({ api: wrong }))).toEqual([
      'spec.api.apiVersion: must be apiextensions.k8s.io/v1',
      'spec.api.kind: must be CustomResourceDefinition',
      'spec.api.metadata.name: must be "databases.test.kruntimes.dev" (<plural>.<group>)',
    ]);
  });

  it('refuses duplicate pipeline names, more than one delete pipeline, and invalid jobs', () => {
    expect(
      errorsOf(promise({ workflows: { resource: { configure: [pipeline('a'), pipeline('a')] } } })),
    ).toEqual(['spec.workflows.resource.configure[1].metadata.name: duplicate pipeline name "a"']);
    expect(
      errorsOf(promise({ workflows: { resource: { delete: [pipeline('a'), pipeline('b')] } } })),
    ).toEqual(['spec.workflows.resource.delete: must have at most 1 item']);
    const bad = pipeline('a');
    bad.spec.jobs = {
      main: { 'runs-on': 'bash', needs: ['ghost'], steps: [{ name: 'go', run: 'true' }] },
    } as never;
    expect(errorsOf(promise({ workflows: { resource: { configure: [bad] } } }))).toEqual([
      'spec.workflows.resource.configure[0].spec.jobs.main.needs: job "ghost" does not exist',
    ]);
  });

  it('checks resource paths against the API schema, and refuses inputs in a pipeline', () => {
    expect(
      errorsOf(
        promise({
          workflows: { resource: { configure: [pipeline('a', 'echo ${{ resource.spec.sise }}')] } },
        }),
      ),
    ).toEqual([
      'spec.workflows.resource.configure[0].spec.jobs.main.steps[0].run: "resource.spec.sise": the resource schema declares no field "spec.sise"',
    ]);
    expect(
      errorsOf(
        promise({
          workflows: { resource: { configure: [pipeline('a', 'echo ${{ resource.metadata.name }}')] } },
        }),
      ),
    ).toEqual([]);
    expect(
      errorsOf(promise({ workflows: { resource: { configure: [pipeline('a', 'echo ${{ inputs.x }}')] } } })),
    ).toEqual([
      'spec.workflows.resource.configure[0].spec.jobs.main.steps[0].run: "inputs.x" cannot be used here: a Pipeline has no inputs; read the resource with ${{ resource.<path> }}',
    ]);
  });

  it('refuses a change of the API group or kind, and a bad reconcileInterval', () => {
    const changed = promise({ api: api({ group: 'other.kruntimes.dev' }) });
    (changed.spec.api as { metadata: { name: string } }).metadata.name = 'databases.other.kruntimes.dev';
    expect(errorsOf(changed, promise())).toEqual([
      "spec.api: the resource API's group and kind cannot change (was test.kruntimes.dev/Database, now other.kruntimes.dev/Database)",
    ]);
    expect(errorsOf(promise({ reconcileInterval: 'soon' }))).toEqual([
      'spec.reconcileInterval: "soon" is not a duration such as 30s, 10m, 1h30m or 1d',
    ]);
  });

  it('elsewhere, resource cannot be read: a WorkflowRun has no resource', () => {
    const run = {
      apiVersion: 'kruntimes.io/v1alpha1' as const,
      kind: 'WorkflowRun' as const,
      metadata: { name: 'r', namespace: 'n' },
      spec: { jobs: step('echo ${{ resource.spec.size }}') },
    };
    expect(validateWorkflowRun(run).errors.map(formatFieldError)).toEqual([
      'spec.jobs.main.steps[0].run: "resource.spec.size" cannot be used here: resource is only readable in the pipelines of a Promise',
    ]);
  });

  it('a pipeline has jobs or uses; uses needs spec.workflowNamespace; with reads only the resource', () => {
    const uses = (w: Record<string, unknown>) => ({
      apiVersion: 'kruntimes.io/v1alpha1' as const,
      kind: 'Pipeline' as const,
      metadata: { name: 'u' },
      spec: { uses: 'provision', with: w },
    });
    expect(
      errorsOf(
        promise({ workflows: { resource: { configure: [uses({ a: '${{ resource.spec.size }}' })] } } }),
      ),
    ).toEqual(['spec.workflowNamespace: required: pipeline "u" uses a Workflow']);
    expect(
      errorsOf(
        promise({
          workflowNamespace: 'platform',
          workflows: { resource: { configure: [uses({ a: '${{ inputs.x }}', b: ['x'], c: 3 })] } },
        }),
      ),
    ).toEqual([
      'spec.workflows.resource.configure[0].spec.with.a: "inputs.x" cannot be used here: a Pipeline with passes values from the resource only',
      'spec.workflows.resource.configure[0].spec.with.b: must be a string, number or boolean, not a list (an input value is one scalar)',
    ]);
    const both = { ...pipeline('b'), spec: { jobs: step('true'), uses: 'provision' } };
    expect(
      errorsOf(promise({ workflowNamespace: 'platform', workflows: { resource: { configure: [both] } } })),
    ).toEqual([
      'spec.workflows.resource.configure[0].spec: a Pipeline has one of jobs, containers or uses (a Workflow)',
    ]);
  });

  it('warns (never refuses) when the Workflow a pipeline uses does not exist yet', () => {
    const p = promise({
      workflowNamespace: 'platform',
      workflows: {
        resource: {
          configure: [
            {
              apiVersion: 'kruntimes.io/v1alpha1',
              kind: 'Pipeline',
              metadata: { name: 'u' },
              spec: { uses: 'provision' },
            },
          ],
        },
      },
    });
    expect(validatePromise(p, undefined, () => undefined)).toEqual({
      errors: [],
      warnings: [
        'spec.workflows.resource.configure[0].spec.uses: Workflow "provision" does not exist in namespace "platform" yet; the pipeline fails until it does',
      ],
    });
    expect(validatePromise(p, undefined, () => ({}) as never).warnings).toEqual([]);
  });
});
