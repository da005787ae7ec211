import type { Run, WorkflowRun } from '../api/types.js';
import { snapshotName } from '../names.js';
import {
  alive,
  goneOwner,
  parseTeardownKey,
  teardown,
  teardownKey,
  teardownsFor,
  type Lookup,
} from './teardown.js';

const ref = (name: string, uid: string, over: object = {}) => ({
  apiVersion: 'kruntimes.io/v1alpha1',
  kind: 'WorkflowRun',
  name,
  uid,
  controller: true,
  ...over,
});
const wfr = (name: string, uid: string, meta: object = {}, phase?: string): WorkflowRun =>
  ({
    metadata: { namespace: 'ns', name, uid, ...meta },
    spec: { jobs: {} },
    ...(phase ? { status: { phase } } : {}),
  }) as WorkflowRun;
const run = (name: string, ownerUid: string, phase?: string, uid = `${name}-uid`): Run =>
  ({
    metadata: { namespace: 'ns', name, uid, ownerReferences: [ref('root', ownerUid)] },
    spec: { runtime: 'bash' },
    ...(phase ? { status: { phase } } : {}),
  }) as Run;
const lookupOf =
  (...runs: WorkflowRun[]): Lookup =>
  (namespace, name) =>
    runs.find((r) => r.metadata.namespace === namespace && r.metadata.name === name);

describe('teardown keys', () => {
  it('round-trip, and anything else is no key', () => {
    expect(parseTeardownKey(teardownKey({ namespace: 'ns', name: 'a', uid: 'u' }))).toEqual({
      namespace: 'ns',
      name: 'a',
      uid: 'u',
    });
    for (const bad of ['ns/a', 'ns/a/u/x', '/a/u', 'ns//u', 'ns/a/', ''])
      expect(parseTeardownKey(bad)).toBeUndefined();
  });
});

describe('alive', () => {
  it('is the run of that uid, not being deleted', () => {
    expect(alive(wfr('a', 'u'), 'u')).toBe(true);
    expect(alive(wfr('a', 'other'), 'u')).toBe(false);
    expect(alive(wfr('a', 'u', { deletionTimestamp: '2026-12-07T00:00:00Z' }), 'u')).toBe(false);
    expect(alive(undefined, 'u')).toBe(false);
  });
});

describe('goneOwner', () => {
  it('names the controlling WorkflowRun when it is gone, deleting, or replaced under its name', () => {
    const r = run('root-a-s', 'u1');
    expect(goneOwner(r, lookupOf(wfr('root', 'u1')))).toBeUndefined();
    const gone = { namespace: 'ns', name: 'root', uid: 'u1' };
    expect(goneOwner(r, lookupOf())).toEqual(gone);
    expect(goneOwner(r, lookupOf(wfr('root', 'u2')))).toEqual(gone);
    expect(goneOwner(r, lookupOf(wfr('root', 'u1', { deletionTimestamp: 'now' })))).toEqual(gone);
  });

  it('ignores owners that are not a kruntimes WorkflowRun, not the controller, or incomplete', () => {
    const withRef = (o: object) =>
      ({ metadata: { namespace: 'ns', name: 'x', ownerReferences: [o] } }) as unknown as Run;
    for (const o of [
      ref('root', 'u1', { kind: 'Widget' }),
      ref('root', 'u1', { apiVersion: 'argoproj.io/v1alpha1' }),
      ref('root', 'u1', { controller: false }),
      ref('', 'u1'),
      ref('root', ''),
    ])
      expect(goneOwner(withRef(o), lookupOf())).toBeUndefined();
    expect(goneOwner({ metadata: { namespace: 'ns', name: 'x' } }, lookupOf())).toBeUndefined();
  });
});

describe('teardownsFor', () => {
  it('a deleted or deleting run asks for its own teardown', () => {
    expect(teardownsFor(wfr('root', 'u1'), lookupOf())).toEqual([
      { namespace: 'ns', name: 'root', uid: 'u1' },
    ]);
    const deleting = wfr('root', 'u1', { deletionTimestamp: 'now' });
    expect(teardownsFor(deleting, lookupOf(deleting))).toEqual([
      { namespace: 'ns', name: 'root', uid: 'u1' },
    ]);
  });

  it('an alive child of a gone parent asks for the parent’s; an alive run of an alive parent for none', () => {
    const child = wfr('root-call-c', 'c1', { ownerReferences: [ref('root', 'u1')] });
    expect(teardownsFor(child, lookupOf(child))).toEqual([{ namespace: 'ns', name: 'root', uid: 'u1' }]);
    expect(teardownsFor(child, lookupOf(child, wfr('root', 'u1')))).toEqual([]);
    expect(teardownsFor(child, lookupOf())).toEqual([
      { namespace: 'ns', name: 'root-call-c', uid: 'c1' },
      { namespace: 'ns', name: 'root', uid: 'u1' },
    ]);
  });
});

describe('teardown', () => {
  const gone = { namespace: 'ns', name: 'root', uid: 'u1' };
  const child = (phase?: string) => wfr('root-call-c', 'c1', { ownerReferences: [ref('root', 'u1')] }, phase);

  it('deletes every Run, child and the snapshot while anything of it still runs', () => {
    const runs = [run('root-a-s', 'u1', 'Running'), run('root-b-s', 'u1', 'Succeeded')];
    expect(teardown(gone, runs, [child('Succeeded')])).toEqual([
      { resource: 'runs', name: 'root-a-s', uid: 'root-a-s-uid' },
      { resource: 'runs', name: 'root-b-s', uid: 'root-b-s-uid' },
      { resource: 'workflowruns', name: 'root-call-c', uid: 'c1' },
      { resource: 'controllerrevisions', name: snapshotName('root', 'u1') },
    ]);
    // A child still running is enough, and a Run not yet claimed counts as running.
    expect(teardown(gone, [run('root-b-s', 'u1', 'Succeeded')], [child('Running')])).toHaveLength(3);
    expect(teardown(gone, [run('root-a-s', 'u1')], [])).toHaveLength(2);
  });

  it('leaves a tree that had ended to the garbage collector', () => {
    expect(teardown(gone, [run('root-a-s', 'u1', 'Failed')], [child('Cancelled')])).toEqual([]);
    expect(teardown(gone, [], [])).toEqual([]);
  });

  it('counts only what the gone run controls (labels can be copied, owner references of uid not)', () => {
    expect(teardown(gone, [run('forged', 'u9', 'Running')], [])).toEqual([]);
  });
});
