// The Work reconciler over a recording API client and a fixed discovery: each object applied as the
// Promise's own account, one that exists and is not the Work's left alone and reported, pruning only
// after a whole success, a transient failure retried, and a deleted Work's objects removed before
// its finalizer comes off.
import { describe, expect, it } from '@jest/globals';
import type { Work } from '../src/api/types.js';
import type { KubeAccess } from '../src/kube/access.js';
import { HttpError } from '../src/kube/raw.js';
import type { ObjectCoordinates } from '../src/kube/rest.js';
import { FINALIZER_APPLIED_OBJECTS, LABEL_PROMISE, LABEL_WORK_UID } from '../src/labels.js';
import { reconcileWork, type WorkDeps } from './work.js';

const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });

function work(o: {
  objects?: object[];
  applied?: object[];
  deleting?: boolean;
  finalizers?: string[];
}): Work {
  return {
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'Work',
    metadata: {
      name: 'w',
      namespace: 'ns',
      uid: 'work-1',
      generation: 1,
      resourceVersion: '7',
      labels: { [LABEL_PROMISE]: 'db' },
      finalizers: o.finalizers ?? [FINALIZER_APPLIED_OBJECTS],
      ...(o.deleting ? { deletionTimestamp: '2026-12-07T00:00:00Z' } : {}),
    },
    spec: { objects: o.objects ?? [] },
    ...(o.applied ? { status: { applied: o.applied } } : {}),
  } as unknown as Work;
}

/**
 * Deps whose API server holds `live` (by name, with its labels) and fails the names in `failing`;
 * every call is recorded as "<identity> <verb> <name>".
 */
function deps(
  w: Work,
  live: Record<string, Record<string, string>> = {},
  failing: Record<string, number> = {},
) {
  const calls: string[] = [];
  const statuses: unknown[] = [];
  const client = (who: string) => ({
    as: (access: KubeAccess) => client((access as unknown as { who: string }).who),
    get: async (o: ObjectCoordinates) => {
      const labels = live[o.name];
      if (!labels) throw new HttpError(404, '{}');
      return { metadata: { name: o.name, labels } };
    },
    apply: async (o: ObjectCoordinates) => {
      calls.push(`${who} apply ${o.namespace}/${o.name}`);
      const code = failing[o.name];
      if (code) throw new HttpError(code, JSON.stringify({ message: `refused ${o.name}` }));
    },
    delete: async (o: ObjectCoordinates) => void calls.push(`${who} delete ${o.namespace}/${o.name}`),
    patch: async (o: ObjectCoordinates, body: { metadata: { finalizers: string[] } }) =>
      void calls.push(`${who} finalizers ${o.name} ${body.metadata.finalizers.join(',') || '-'}`),
    replaceStatus: async (_o: ObjectCoordinates, body: { status: unknown }) =>
      void statuses.push(body.status),
  });
  const d: WorkDeps = {
    actAs: (promise) => ({ who: `sa:${promise}` }) as unknown as KubeAccess,
    works: { get: () => w } as unknown as WorkDeps['works'],
    kube: client('controller') as unknown as WorkDeps['kube'],
    discovery: {
      resource: async (apiVersion: string, kind: string) =>
        apiVersion === 'v1' && kind === 'ConfigMap'
          ? { base: '/api/v1', plural: 'configmaps', namespaced: true }
          : undefined,
    } as unknown as WorkDeps['discovery'],
    events: { record: () => undefined },
    clock: () => new Date('2026-12-07T12:00:00Z'),
  };
  return { d, calls, statuses };
}

const ours = { [LABEL_WORK_UID]: 'work-1' };

describe('reconcileWork', () => {
  it('puts its finalizer on first, before anything is applied', async () => {
    const w = work({ objects: [cm('a')], finalizers: [] });
    const { d, calls } = deps(w);
    await reconcileWork('ns/w', d);
    expect(calls).toEqual([`controller finalizers w ${FINALIZER_APPLIED_OBJECTS}`]);
  });

  it("applies each object as the Promise's account and prunes what the Work no longer has", async () => {
    const w = work({
      objects: [cm('a'), cm('b')],
      applied: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'old' }],
    });
    const { d, calls, statuses } = deps(w, { old: ours });
    await reconcileWork('ns/w', d);
    expect(calls).toEqual(['sa:db apply ns/a', 'sa:db apply ns/b', 'sa:db delete ns/old']);
    expect(statuses).toMatchObject([{ message: '2 object(s) applied', conditions: [{ status: 'True' }] }]);
  });

  it("leaves an object that is not the Work's alone, reports it, and prunes nothing", async () => {
    const w = work({
      objects: [cm('a'), cm('taken')],
      applied: [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'old' }],
    });
    const { d, calls, statuses } = deps(w, { taken: { owner: 'someone' }, old: ours });
    const result = await reconcileWork('ns/w', d);
    expect(calls).toEqual(['sa:db apply ns/a']);
    expect(statuses).toMatchObject([
      {
        conditions: [{ status: 'False', reason: 'ApplyFailed' }],
        applied: expect.arrayContaining([
          { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'old' },
        ]),
      },
    ]);
    expect(JSON.stringify(statuses)).toContain('it exists and was not created by this Work');
    expect(result).toMatchObject({ requeueAfter: expect.any(Number) });
  });

  it('reports a refusal as the result and retries a transient failure', async () => {
    const refused = deps(work({ objects: [cm('a')] }), {}, { a: 403 });
    await reconcileWork('ns/w', refused.d);
    expect(JSON.stringify(refused.statuses)).toContain('refused a');
    const busy = deps(work({ objects: [cm('a')] }), {}, { a: 503 });
    await expect(reconcileWork('ns/w', busy.d)).rejects.toBeInstanceOf(HttpError);
    expect(busy.statuses).toEqual([]);
  });

  it("deletes a deleted Work's objects, and takes its finalizer off once they are gone", async () => {
    const applied = [{ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'a' }];
    const going = deps(work({ applied, deleting: true }), { a: ours });
    expect(await reconcileWork('ns/w', going.d)).toMatchObject({ requeueAfter: 1000 });
    expect(going.calls).toEqual(['sa:db delete ns/a']);
    const gone = deps(work({ applied, deleting: true }));
    await reconcileWork('ns/w', gone.d);
    expect(gone.calls).toEqual(['controller finalizers w -']);
  });
});
