// The Work planner, given its input frozen: the finalizer first, each object applied, pruning only
// after every object applied, refusals and unknown kinds in the status with when to try again, and
// a deleted Work's objects removed before its finalizer comes off.
import { describe, expect, it } from '@jest/globals';
import type { AppliedObject, Work } from '../api/types.js';
import { FINALIZER_APPLIED_OBJECTS, LABEL_PROMISE } from '../labels.js';
import { manifestKey } from '../promise/documents.js';
import { frozen } from './frozen.testing.js';
import { planWork as planner, workActionId, workDone, type Kind, type WorkDone } from './work.js';

const NOW = new Date('2026-12-07T12:00:00Z');
const cm = (name: string, namespace?: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(namespace ? { namespace } : {}) },
});
const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team', namespace: 'ignored' } };
const applied = (name: string, kind = 'ConfigMap', namespace: string | undefined = 'ns'): AppliedObject => ({
  apiVersion: 'v1',
  kind,
  ...(namespace ? { namespace } : {}),
  name,
});

function work(o: {
  objects?: object[];
  applied?: AppliedObject[];
  finalizers?: string[];
  deleting?: boolean;
  promise?: string | null;
}): Work {
  return {
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'Work',
    metadata: {
      name: 'w',
      namespace: 'ns',
      uid: 'work-1',
      generation: 3,
      labels: o.promise === null ? {} : { [LABEL_PROMISE]: o.promise ?? 'db' },
      finalizers: o.finalizers ?? [FINALIZER_APPLIED_OBJECTS],
      ...(o.deleting ? { deletionTimestamp: '2026-12-07T11:00:00Z' } : {}),
    },
    spec: { objects: o.objects ?? [] },
    ...(o.applied ? { status: { applied: o.applied } } : {}),
  } as unknown as Work;
}

const KINDS: Record<string, Kind> = { ConfigMap: { namespaced: true }, Namespace: { namespaced: false } };

/** The planner over a frozen Work, with what this reconcile's actions came to so far. */
function plan(w: Work, done: Partial<WorkDone> = {}) {
  return planner({
    work: frozen(w),
    kindOf: (apiVersion, kind) => (apiVersion === 'v1' ? KINDS[kind] : undefined),
    done: { ...workDone(), ...done },
    now: NOW,
  });
}

const ids = (p: ReturnType<typeof plan>) => p.actions.map(workActionId);
const keys = (...names: string[]) => new Set(names.map((n) => manifestKey(applied(n))));
const key = (name: string) => manifestKey(applied(name));

describe('planWork', () => {
  it('puts its finalizer on first, and plans nothing else', () => {
    const p = plan(work({ objects: [cm('a')], finalizers: ['other'] }));
    expect(p.actions).toEqual([{ type: 'addFinalizer', finalizers: ['other', FINALIZER_APPLIED_OBJECTS] }]);
  });

  it('applies each object, placed in the Work namespace unless it names one or is cluster-scoped', () => {
    const p = plan(work({ objects: [cm('a'), cm('b', 'elsewhere'), ns] }));
    expect(p.actions.map((a) => (a.type === 'apply' ? a.object.metadata : a.type))).toEqual([
      { name: 'a', namespace: 'ns' },
      { name: 'b', namespace: 'elsewhere' },
      { name: 'team' },
    ]);
    expect(p.actions.every((a) => a.type === 'apply' && a.promise === 'db')).toBe(true);
  });

  it('prunes what the Work no longer holds only once every object applied', () => {
    const w = work({ objects: [cm('a'), cm('b')], applied: [applied('a'), applied('old')] });
    expect(ids(plan(w))).toEqual([`apply/${key('a')}`, `apply/${key('b')}`]);
    const all = plan(w, { applied: keys('a', 'b') });
    expect(ids(all)).toEqual([`delete/${key('old')}`]);
    expect(all.actions[0]).toMatchObject({ why: 'prune', object: applied('old') });
    const pruned = plan(w, { applied: keys('a', 'b'), deleted: keys('old') });
    expect(pruned.actions).toEqual([]);
    expect(pruned.status).toMatchObject({
      observedGeneration: 3,
      applied: [applied('a'), applied('b')],
      message: '2 object(s) applied',
      conditions: [{ type: 'Applied', status: 'True', reason: 'Applied' }],
    });
    expect(pruned.requeueAfter).toBeUndefined();
  });

  it('reports a refused object, keeps what was applied before, prunes nothing and tries again later', () => {
    const w = work({ objects: [cm('a'), cm('taken')], applied: [applied('old')] });
    const p = plan(w, {
      applied: keys('a'),
      refused: new Map([[key('taken'), "not the Work's"]]),
    });
    expect(p.actions).toEqual([]);
    expect(p.status).toMatchObject({
      applied: [applied('old'), applied('a')],
      message: "ConfigMap ns/taken: not the Work's",
      conditions: [{ status: 'False', reason: 'ApplyFailed' }],
    });
    expect(p.requeueAfter).toBe(5000);
  });

  it('names a kind the API server does not serve, and a prune that failed', () => {
    const unknown = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'x' } };
    const p = plan(work({ objects: [unknown] }));
    expect(p.status.message).toBe('Widget x: the API server serves no kind Widget in example.com/v1');
    const w = work({ objects: [cm('a')], applied: [applied('old')] });
    const failed = plan(w, {
      applied: keys('a'),
      deleted: keys('old'),
      pruneFailed: new Map([[key('old'), 'forbidden']]),
    });
    expect(failed.status.message).toBe('pruning ConfigMap ns/old: forbidden');
  });

  it('applies nothing for a Work without its Promise label, and says so', () => {
    const p = plan(work({ objects: [cm('a')], promise: null }));
    expect(p.actions).toEqual([]);
    expect(p.status.message).toBe(`the Work has no ${LABEL_PROMISE} label: nothing is applied`);
  });

  it("deletes a deleted Work's objects, waits for those still there, then takes its finalizer off", () => {
    const w = work({
      deleting: true,
      finalizers: ['other', FINALIZER_APPLIED_OBJECTS],
      applied: [applied('a'), applied('team', 'Namespace', undefined), applied('gone', 'Gadget')],
    });
    const first = plan(w);
    expect(ids(first)).toEqual([
      `delete/${key('a')}`,
      `delete/${manifestKey(applied('team', 'Namespace', undefined))}`,
    ]);
    expect(first.gone).toBeUndefined();
    const deleted = new Set([key('a'), manifestKey(applied('team', 'Namespace', undefined))]);
    expect(plan(w, { deleted, stillThere: keys('a') })).toMatchObject({ actions: [], requeueAfter: 1000 });
    expect(plan(w, { deleted })).toMatchObject({
      actions: [{ type: 'removeFinalizer', finalizers: ['other'] }],
      gone: true,
    });
    // Without its Promise label nothing was applied as the Work: the finalizer simply comes off.
    expect(ids(plan({ ...w, metadata: { ...w.metadata, labels: {} } }))).toEqual(['removeFinalizer/other']);
  });

  it('lets a deleted Work without its finalizer go, writing nothing', () => {
    expect(plan(work({ deleting: true, finalizers: [] }))).toMatchObject({ actions: [], gone: true });
  });
});
