import { describe, expect, it } from '@jest/globals';
import {
  applyPlanned,
  reconcilePlanned,
  writeStatusIfChanged,
  type Failure,
  type PlannedReconcile,
} from './planned.js';

interface Obj {
  name: string;
  version: number;
  status?: Status;
}
interface Status {
  phase: string;
  conditions?: { type: string; lastTransitionTime: string }[];
}
type Act = { type: 'create' | 'label' | 'event' | 'delete'; name: string };
type P = { status: Status; actions: Act[]; requeueAfter?: number; missing?: string[] };

const T0 = new Date('2026-12-05T00:00:00Z');

/** A reconcile over an in-memory client that records every call in order. */
function harness(o: {
  object?: Obj;
  plans: ((refusals: string[], now: Date) => P)[];
  failWith?: Record<string, { error: Error; as: Failure }>;
  lag?: number;
  patches?: boolean;
}) {
  const calls: string[] = [];
  const refusals: string[] = [];
  const writes: string[] = [];
  let planned = 0;
  const object: Obj = o.object ?? { name: 'x', version: 1, status: { phase: 'Pending' } };
  const spec: PlannedReconcile<Obj, Status, Act, P> = {
    object,
    statusOf: (x) => x.status,
    plan: (now) => {
      const make = o.plans[Math.min(planned, o.plans.length - 1)] as (r: string[], n: Date) => P;
      planned++;
      calls.push(`plan ${planned}`);
      return make([...refusals], now);
    },
    confirmMissing: async (p) => ((p.missing?.length ?? 0) > 0 ? o.lag : undefined),
    ends: (a) => a.type === 'delete',
    afterStatus: (a) => a.type === 'event',
    id: (a) => `${a.type}/${a.name}`,
    apply: async (a, target) => {
      calls.push(`apply ${a.type}/${a.name} to v${target.version}`);
      const failure = o.failWith?.[a.name];
      if (failure) throw failure.error;
      if (a.type === 'label' && o.patches) return { ...target, version: target.version + 1 };
      return undefined;
    },
    failed: (a, e) => {
      const failure = o.failWith?.[a.name];
      if (failure?.as === 'replan') refusals.push(a.name);
      calls.push(`failed ${a.name}: ${(e as Error).message}`);
      return failure?.as ?? 'transient';
    },
    gone: (p) => p.status.phase === 'Gone',
    writeStatus: async (target, status) => {
      writes.push('update objs/status');
      calls.push(`status ${status.phase} on v${target.version}`);
    },
    announce: (before, after) => calls.push(`announce ${before?.phase} -> ${after.phase}`),
    clock: () => T0,
  };
  return { spec, calls, writes };
}

describe('reconcilePlanned', () => {
  it('plans again after an action that says so, applying each action once, and writes the status once', async () => {
    const h = harness({
      plans: [
        () => ({ status: { phase: 'Pending' }, actions: [{ type: 'create', name: 'snapshot' }] }),
        () => ({
          status: { phase: 'Running' },
          actions: [
            { type: 'create', name: 'snapshot' },
            { type: 'create', name: 'first' },
          ],
        }),
      ],
    });
    h.spec.replanAfter = (a) => a.name === 'snapshot';
    await reconcilePlanned(h.spec);
    expect(h.calls).toEqual([
      'plan 1',
      'apply create/snapshot to v1',
      'plan 2',
      'apply create/first to v1',
      'status Running on v1',
      'announce Pending -> Running',
    ]);
    expect(h.writes).toEqual(['update objs/status']);
  });

  it('writes nothing when the plan says what the status says, and passes on when to look again', async () => {
    const h = harness({ plans: [() => ({ status: { phase: 'Pending' }, actions: [], requeueAfter: 5000 })] });
    expect(await reconcilePlanned(h.spec)).toEqual({ requeueAfter: 5000 });
    expect(h.calls).toEqual(['plan 1']);
    expect(h.writes).toEqual([]);
  });

  it('applies the actions, then writes a changed status once (counted) and announces it', async () => {
    const h = harness({
      plans: [() => ({ status: { phase: 'Running' }, actions: [{ type: 'create', name: 'a' }] })],
    });
    expect(await reconcilePlanned(h.spec)).toBeUndefined();
    expect(h.calls).toEqual([
      'plan 1',
      'apply create/a to v1',
      'status Running on v1',
      'announce Pending -> Running',
    ]);
    expect(h.writes).toEqual(['update objs/status']);
  });

  it('takes a status that differs only in condition times as unchanged', async () => {
    const h = harness({
      object: {
        name: 'x',
        version: 1,
        status: { phase: 'Ready', conditions: [{ type: 'Ready', lastTransitionTime: 'then' }] },
      },
      plans: [
        () => ({
          status: { phase: 'Ready', conditions: [{ type: 'Ready', lastTransitionTime: 'now' }] },
          actions: [],
        }),
      ],
    });
    await reconcilePlanned(h.spec);
    expect(h.writes).toEqual([]);
  });

  it('gives the planner the injected clock, the same instant for every plan of one reconcile', async () => {
    const seen: Date[] = [];
    const h = harness({
      plans: [
        (_r, now) => (
          seen.push(now),
          { status: { phase: 'Running' }, actions: [{ type: 'create', name: 'a' }] }
        ),
        (_r, now) => (seen.push(now), { status: { phase: 'Failed' }, actions: [] }),
      ],
      failWith: { a: { error: new Error('refused'), as: 'replan' } },
    });
    await reconcilePlanned(h.spec);
    expect(seen).toEqual([T0, T0]);
  });

  it('waits for the cache, writing nothing, when what the plan missed exists', async () => {
    const h = harness({
      plans: [
        () => ({ status: { phase: 'Failed' }, actions: [{ type: 'create', name: 'a' }], missing: ['wf'] }),
      ],
      lag: 500,
    });
    expect(await reconcilePlanned(h.spec)).toEqual({ requeueAfter: 500 });
    expect(h.calls).toEqual(['plan 1']);
  });

  it('goes on with the plan when what it missed is really missing', async () => {
    const h = harness({
      plans: [() => ({ status: { phase: 'Failed' }, actions: [], missing: ['wf'] })],
      lag: undefined,
    });
    await reconcilePlanned(h.spec);
    expect(h.calls).toEqual(['plan 1', 'status Failed on v1', 'announce Pending -> Failed']);
  });

  it('applies an ending action alone and then stops', async () => {
    const h = harness({
      plans: [
        () => ({
          status: { phase: 'Deleted' },
          actions: [
            { type: 'create', name: 'a' },
            { type: 'delete', name: 'self' },
          ],
        }),
      ],
    });
    expect(await reconcilePlanned(h.spec)).toBeUndefined();
    expect(h.calls).toEqual(['plan 1', 'apply delete/self to v1']);
  });

  it('plans again after a refusal, applies only what is new, and writes the last plan', async () => {
    const h = harness({
      plans: [
        () => ({
          status: { phase: 'Running' },
          actions: [
            { type: 'create', name: 'a' },
            { type: 'create', name: 'b' },
          ],
        }),
        (refused) => ({
          status: { phase: `Failed(${refused.join(',')})` },
          actions: [
            { type: 'create', name: 'b' },
            { type: 'create', name: 'c' },
          ],
        }),
      ],
      failWith: { a: { error: new Error('forbidden'), as: 'replan' } },
    });
    await reconcilePlanned(h.spec);
    expect(h.calls).toEqual([
      'plan 1',
      'apply create/a to v1',
      'failed a: forbidden',
      'apply create/b to v1',
      'plan 2',
      'apply create/c to v1',
      'status Failed(a) on v1',
      'announce Pending -> Failed(a)',
    ]);
  });

  it('writes the status before it throws a transient failure, to be retried with backoff', async () => {
    const h = harness({
      plans: [
        () => ({
          status: { phase: 'Running' },
          actions: [
            { type: 'create', name: 'a' },
            { type: 'create', name: 'b' },
          ],
        }),
      ],
      failWith: { a: { error: new Error('503'), as: 'transient' } },
    });
    await expect(reconcilePlanned(h.spec)).rejects.toThrow('503');
    expect(h.calls.slice(-3)).toEqual([
      'apply create/b to v1',
      'status Running on v1',
      'announce Pending -> Running',
    ]);
  });

  it('stops at a fatal failure, before anything else is applied or written', async () => {
    const h = harness({
      plans: [
        () => ({
          status: { phase: 'Running' },
          actions: [
            { type: 'label', name: 'l' },
            { type: 'create', name: 'a' },
          ],
        }),
      ],
      failWith: { l: { error: new Error('conflict'), as: 'fatal' } },
    });
    await expect(reconcilePlanned(h.spec)).rejects.toThrow('conflict');
    expect(h.calls).toEqual(['plan 1', 'apply label/l to v1', 'failed l: conflict']);
  });

  it('writes the status on the object as an action returned it, and applies Events after the status', async () => {
    const h = harness({
      patches: true,
      plans: [
        () => ({
          status: { phase: 'Suspended' },
          actions: [
            { type: 'event', name: 'e' },
            { type: 'label', name: 'l' },
          ],
        }),
      ],
    });
    await reconcilePlanned(h.spec);
    expect(h.calls).toEqual([
      'plan 1',
      'apply label/l to v1',
      'status Suspended on v2',
      'announce Pending -> Suspended',
      'apply event/e to v2',
    ]);
  });

  it('writes no status for an object that is gone after the plan, but still applies its Events', async () => {
    const h = harness({
      plans: [() => ({ status: { phase: 'Gone' }, actions: [{ type: 'event', name: 'e' }] })],
    });
    await reconcilePlanned(h.spec);
    expect(h.calls).toEqual(['plan 1', 'apply event/e to v1']);
    expect(h.writes).toEqual([]);
  });
});

describe('applyPlanned (the loop without the status, for a status another reconcile writes)', () => {
  it('applies the last plan, writes no status, and hands back the plan, the object and the transient failure', async () => {
    const h = harness({
      patches: true,
      plans: [
        () => ({
          status: { phase: 'Running' },
          actions: [
            { type: 'label', name: 'l' },
            { type: 'create', name: 'a' },
            { type: 'create', name: 'b' },
          ],
        }),
      ],
      failWith: { a: { error: new Error('503'), as: 'transient' } },
    });
    const done = await applyPlanned(h.spec);
    expect(done.kind).toBe('applied');
    if (done.kind !== 'applied') return;
    expect(done.plan.status).toEqual({ phase: 'Running' });
    expect(done.target.version).toBe(2);
    expect((done.transient as Error).message).toBe('503');
    expect(h.writes).toEqual([]);
    expect(h.calls).toEqual([
      'plan 1',
      'apply label/l to v1',
      'apply create/a to v2',
      'failed a: 503',
      'apply create/b to v2',
    ]);
  });

  it('says how long to wait for the cache, applying nothing', async () => {
    const h = harness({
      lag: 500,
      plans: [
        () => ({ status: { phase: 'Running' }, actions: [{ type: 'create', name: 'a' }], missing: ['w'] }),
      ],
    });
    await expect(applyPlanned(h.spec)).resolves.toEqual({ kind: 'lag', ms: 500 });
    expect(h.calls).toEqual(['plan 1']);
  });

  it('plans again after a refusal, and leaves the Events for the status that the caller writes', async () => {
    const h = harness({
      plans: [
        () => ({
          status: { phase: 'Running' },
          actions: [
            { type: 'create', name: 'refused' },
            { type: 'event', name: 'e' },
          ],
        }),
        (refusals) => ({ status: { phase: `Failed: ${refusals.join()}` }, actions: [] }),
      ],
      failWith: { refused: { error: new Error('422'), as: 'replan' } },
    });
    const done = await applyPlanned(h.spec);
    expect(done).toMatchObject({ kind: 'applied', plan: { status: { phase: 'Failed: refused' } } });
    expect(h.calls).toEqual(['plan 1', 'apply create/refused to v1', 'failed refused: 422', 'plan 2']);
  });
});

describe('writeStatusIfChanged', () => {
  it('writes only a status that says something new', async () => {
    let written = 0;
    const write = async () => void written++;
    expect(await writeStatusIfChanged({ a: 1 }, { a: 1 }, write)).toBe(false);
    expect(await writeStatusIfChanged(undefined, { a: 1 }, write)).toBe(true);
    expect(written).toBe(1);
  });
});
