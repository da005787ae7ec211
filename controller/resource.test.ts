// How the resource reconciler applies its plan's actions, over a recording API client: a pipeline
// run made again after a crash is adopted only when it is this resource's, finalizers go with the
// observed resourceVersion, a Work is applied whole, and a Work already gone is no failure.
import { describe, expect, it } from '@jest/globals';
import type { ResourceObject, WorkflowRun } from '../src/api/types.js';
import { HttpError } from '../src/kube/raw.js';
import type { ObjectCoordinates } from '../src/kube/rest.js';
import { LABEL_RESOURCE_UID } from '../src/labels.js';
import type { ResourceApi } from '../src/promise/api.js';
import { applyResourceAction, NameTaken, Refusals, type ActionDeps } from './resource.js';

const api = {
  group: 'test.kruntimes.dev',
  version: 'v1',
  kind: 'Db',
  plural: 'dbs',
  namespaced: true,
} as ResourceApi;
const resource = {
  apiVersion: 'test.kruntimes.dev/v1',
  kind: 'Db',
  metadata: { name: 'db1', namespace: 'ns', uid: 'r-1', resourceVersion: '42' },
} as ResourceObject;
const run = {
  metadata: { name: 'db1-make-abcde', namespace: 'ns' },
  spec: { jobs: {} },
} as unknown as WorkflowRun;
const madeFor = (uid: string) => ({
  metadata: {
    name: run.metadata.name,
    labels: { [LABEL_RESOURCE_UID]: uid },
    ownerReferences: [{ uid, controller: true, kind: 'Db', name: 'db1', apiVersion: 'x' }],
  },
});

/** Deps whose API server answers creates with `createCode` (or takes them) and holds `existing`. */
function deps(createCode?: number, existing?: object, deleteCode?: number) {
  const calls: string[] = [];
  const kube = {
    create: async (c: { plural: string }) => {
      calls.push(`create ${c.plural}`);
      if (createCode) throw new HttpError(createCode, '{}');
    },
    get: async () => existing,
    patch: async (o: ObjectCoordinates, body: unknown) => {
      calls.push(`patch ${o.plural}/${o.name} ${JSON.stringify(body)}`);
      return resource;
    },
    apply: async (o: ObjectCoordinates, body: { apiVersion: string }) =>
      void calls.push(`apply ${o.namespace}/${o.plural}/${o.name} ${body.apiVersion}`),
    delete: async (o: ObjectCoordinates) => {
      calls.push(`delete ${o.plural}/${o.name}`);
      if (deleteCode) throw new HttpError(deleteCode, '{}');
    },
  };
  const d = {
    api,
    promise: () => ({ spec: {} }),
    kube,
    events: { record: (_o: unknown, _t: string, reason: string) => calls.push(`event ${reason}`) },
  } as unknown as ActionDeps;
  return { d, calls };
}

describe('applyResourceAction', () => {
  const create = { type: 'createRun', pipeline: 'make', run } as const;

  it('creates a pipeline run, and adopts one of its name only when it was made for this resource', async () => {
    const fresh = deps();
    await applyResourceAction(create, resource, fresh.d);
    expect(fresh.calls).toEqual(['create workflowruns']);
    await expect(applyResourceAction(create, resource, deps(409, madeFor('r-1')).d)).resolves.toBeUndefined();
    await expect(applyResourceAction(create, resource, deps(409, madeFor('other')).d)).rejects.toBeInstanceOf(
      NameTaken,
    );
    await expect(applyResourceAction(create, resource, deps(503).d)).rejects.toBeInstanceOf(HttpError);
  });

  it('patches finalizers with the observed resourceVersion, and labels without one', async () => {
    const { d, calls } = deps();
    await applyResourceAction({ type: 'setFinalizers', finalizers: ['f'] }, resource, d);
    await applyResourceAction({ type: 'setLabels', labels: { a: null } }, resource, d);
    expect(calls).toEqual([
      'patch dbs/db1 {"metadata":{"finalizers":["f"],"resourceVersion":"42"}}',
      'patch dbs/db1 {"metadata":{"labels":{"a":null}}}',
    ]);
  });

  it('applies a Work whole in the run namespace, and takes a Work already gone as deleted', async () => {
    const { d, calls } = deps(undefined, undefined, 404);
    const work = { metadata: { name: 'db1-make' }, spec: {} };
    await applyResourceAction({ type: 'writeWork', work } as never, resource, d);
    await applyResourceAction({ type: 'deleteWork', name: 'db1-old' } as never, resource, d);
    expect(calls).toEqual(['apply ns/works/db1-make kruntimes.io/v1alpha1', 'delete works/db1-old']);
    await expect(
      applyResourceAction(
        { type: 'deleteWork', name: 'x' } as never,
        resource,
        deps(undefined, undefined, 500).d,
      ),
    ).rejects.toBeInstanceOf(HttpError);
  });
});

describe("Refusals (how a failed action counts, for resources and a Promise's own workflow alike)", () => {
  const create = { type: 'createRun', pipeline: 'make', run } as const;
  const status = (code: number, body: object) => new HttpError(code, JSON.stringify(body));

  it('stops at a failed label or finalizer patch, and retries any other failure that is not a create', () => {
    const r = new Refusals();
    expect(r.failed({ type: 'setLabels', labels: {} }, status(422, {}))).toBe('fatal');
    expect(r.failed({ type: 'setFinalizers', finalizers: [] }, status(503, {}))).toBe('fatal');
    expect(r.failed({ type: 'cancelRun', name: 'x' }, status(422, {}))).toBe('transient');
    expect(r.refused).toEqual({});
  });

  it('fails the pipeline of a run refused for good, or whose name another holds, and plans again', () => {
    const r = new Refusals();
    expect(r.failed(create, status(422, { message: 'spec.jobs: invalid' }))).toBe('replan');
    expect(r.refused.make).toBe(
      'the API server refused to create WorkflowRun "db1-make-abcde": spec.jobs: invalid',
    );
    expect(r.failed(create, new NameTaken('taken'))).toBe('replan');
    expect(r.refused.make).toBe('taken');
    expect(r.namespaceTerminating).toBe(false);
  });

  it('halts the pipelines when the namespace is being deleted or gone, and retries a busy API server', () => {
    const terminating = new Refusals();
    const cause = {
      details: { causes: [{ reason: 'NamespaceTerminating' }] },
      message: 'is being terminated',
    };
    expect(terminating.failed(create, status(403, cause))).toBe('replan');
    expect(terminating.namespaceTerminating).toBe(true);
    const gone = new Refusals();
    expect(gone.failed(create, status(404, { details: { kind: 'namespaces' } }))).toBe('replan');
    expect(gone.namespaceTerminating).toBe(true);
    const busy = new Refusals();
    expect(busy.failed(create, status(503, {}))).toBe('transient');
    expect(
      busy.failed(create, status(403, { message: 'User "x" cannot create resource "workflowruns"' })),
    ).toBe('transient');
    expect({ ...busy.refused, terminating: busy.namespaceTerminating }).toEqual({ terminating: false });
  });
});
