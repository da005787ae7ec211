import { EventEmitter } from 'node:events';
import { jest } from '@jest/globals';
import { ApiException } from '@kubernetes/client-node';
import type { KubeObject } from '../informer.js';
import {
  Controller,
  defineController,
  ownerKeys,
  TerminalError,
  type Result,
  type Source,
  requeueAfter,
} from './controller.js';

/** An informer's events and cache, without an API server. */
class StubSource<T extends KubeObject> extends EventEmitter implements Source<T> {
  items: T[] = [];
  list(): T[] {
    return this.items;
  }
  add(o: T) {
    this.items.push(o);
    this.emit('add', o);
  }
}
const obj = (name: string, owner?: { kind: string; name: string; controller?: boolean }) => ({
  metadata: {
    name,
    namespace: 'ns',
    ...(owner ? { ownerReferences: [{ controller: true, ...owner }] } : {}),
  },
});

/** Lets queued promise callbacks run, with fake timers. */
const settle = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

/** A controller of one object, `ns/a`, whose reconciles answer in turn; when each ran, in ms from its start. */
async function answering(answers: (Result | void)[]): Promise<{ c: Controller<KubeObject>; runs: number[] }> {
  const source = new StubSource<KubeObject>();
  const runs: number[] = [];
  const c = new Controller(
    defineController({
      name: 'timer',
      for: source,
      reconcile: async () => {
        runs.push(Date.now() - t0);
        return answers.shift();
      },
      workers: 1,
    }),
  );
  const t0 = Date.now();
  source.items.push(obj('a'));
  c.watch();
  c.start();
  await settle();
  return { c, runs };
}

describe('the controller runtime', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('maps its own objects, owned objects and watched objects to keys', async () => {
    const own = new StubSource<KubeObject>();
    const children = new StubSource<KubeObject>();
    const other = new StubSource<KubeObject>();
    const seen: string[] = [];
    const c = new Controller(
      defineController({
        name: 't',
        for: own,
        owns: [{ source: children, kind: 'Parent' }],
        watches: [
          {
            source: other,
            map: (o) => [`ns/for-${o.metadata?.name}`],
            changed: (old: KubeObject, o: KubeObject) => old.metadata?.name !== o.metadata?.name,
          },
        ],
        reconcile: async (key) => void seen.push(key),
        workers: 1,
      }),
    );
    c.watch();
    own.add(obj('a'));
    c.start();
    children.add(obj('child', { kind: 'Parent', name: 'p' }));
    children.add(obj('stray', { kind: 'Other', name: 'x' }));
    children.add(obj('not-controller', { kind: 'Parent', name: 'q', controller: false }));
    other.add(obj('z'));
    await settle();
    // An update the predicate calls no change is not queued; one it calls a change is.
    other.emit('update', obj('z'), obj('z'));
    await settle();
    other.emit('update', obj('y'), obj('w'));
    await settle();
    expect(seen).toEqual(['ns/a', 'ns/p', 'ns/for-z', 'ns/for-w']);
    expect(ownerKeys(obj('c', { kind: 'Parent', name: 'p' }), 'Parent')).toEqual(['ns/p']);
    expect(ownerKeys(obj('c', { kind: 'Parent', name: 'p' }), 'Parent', true)).toEqual(['/p']);
    await c.stop();
  });

  it('queues the keys `key` derives from its objects, none or several, at start and on every event', async () => {
    const own = new StubSource<KubeObject>();
    const seen: string[] = [];
    const c = new Controller(
      defineController({
        name: 'derived',
        for: own,
        key: (o) =>
          o.metadata?.name === 'quiet' ? [] : [`x/${o.metadata?.name}/1`, `x/${o.metadata?.name}/2`],
        reconcile: async (key) => void seen.push(key),
        workers: 1,
      }),
    );
    c.watch();
    own.items.push(obj('listed'), obj('quiet'));
    c.start();
    own.add(obj('added'));
    own.emit('delete', obj('deleted'));
    await settle();
    expect(seen).toEqual([
      'x/listed/1',
      'x/listed/2',
      'x/added/1',
      'x/added/2',
      'x/deleted/1',
      'x/deleted/2',
    ]);
    await c.stop();
  });

  it('queues every cached object again each resync, and keeps no timer the resync comes before', async () => {
    const source = new StubSource<KubeObject>();
    const runs: [string, number][] = [];
    // Each key asks once: 'far' for longer than the resync, 'near' for less. Only 'near' is timed.
    const asks = new Map<string, number>([
      ['ns/far', 7_200_000],
      ['ns/near', 1000],
    ]);
    const c = new Controller(
      defineController({
        name: 'resync',
        for: source,
        reconcile: async (key) => {
          runs.push([key, Date.now() - t0]);
          const after = asks.get(key);
          asks.delete(key);
          return after === undefined ? undefined : { requeueAfter: after };
        },
        workers: 1,
        resyncMs: 3_600_000,
      }),
    );
    const t0 = Date.now();
    source.items.push(obj('far'), obj('near'));
    c.watch();
    c.start();
    await settle();
    expect(c.queue.timed).toBe(1);
    jest.advanceTimersByTime(1000);
    await settle();
    expect(c.queue.timed).toBe(0);
    jest.advanceTimersByTime(3_599_000);
    await settle();
    expect(runs).toEqual([
      ['ns/far', 0],
      ['ns/near', 0],
      ['ns/near', 1000],
      ['ns/far', 3_600_000],
      ['ns/near', 3_600_000],
    ]);
    await c.stop();
    jest.advanceTimersByTime(3_600_000);
    await settle();
    expect(runs).toHaveLength(5);
  });

  it('runs a key again after requeueAfter, and an earlier timed requeue is not pushed back by a later one', async () => {
    const { c, runs } = await answering([{ requeueAfter: 2000 }, { requeueAfter: 10_000 }, undefined]);
    expect(runs).toEqual([0]);
    jest.advanceTimersByTime(1999);
    await settle();
    expect(runs).toHaveLength(1);
    jest.advanceTimersByTime(1);
    await settle();
    expect(runs).toEqual([0, 2000]);
    // The second run asked for 10 s; a change meanwhile asks sooner, and a later ask does not delay it.
    c.queue.addAfter('ns/a', 3000);
    c.queue.addAfter('ns/a', 9000);
    jest.advanceTimersByTime(3000);
    await settle();
    expect(runs).toEqual([0, 2000, 5000]);
    await c.stop();
  });

  it("replaces a key's timer with each reconcile's answer: a later one moves it, none removes it", async () => {
    const { c, runs } = await answering([
      { requeueAfter: 2000 },
      { requeueAfter: 5000 },
      { requeueAfter: 1000 },
    ]);
    // A change at 500 ms: the plan made then needs the key back at 5.5 s, not at 2 s.
    jest.advanceTimersByTime(500);
    c.queue.add('ns/a');
    await settle();
    jest.advanceTimersByTime(4999);
    await settle();
    expect(runs).toEqual([0, 500]);
    jest.advanceTimersByTime(1);
    await settle();
    expect(runs).toEqual([0, 500, 5500]);
    // It asked for 1 s more; a change before then needs no timer (a run that ended): none is kept.
    expect(c.queue.timed).toBe(1);
    c.queue.add('ns/a');
    await settle();
    expect(c.queue.timed).toBe(0);
    jest.advanceTimersByTime(10_000);
    await settle();
    expect(runs).toEqual([0, 500, 5500, 5500]);
    await c.stop();
  });

  it('retries errors with growing backoff, retries a conflict soon, and never retries a TerminalError', async () => {
    const source = new StubSource<KubeObject>();
    const runs: string[] = [];
    const failures: Record<string, unknown[]> = {
      'ns/flaky': [new Error('boom'), new Error('boom')],
      'ns/conflict': [new ApiException(409, 'conflict', '{}', {})],
      'ns/broken': [new TerminalError('cannot ever work')],
    };
    const c = new Controller(
      defineController({
        name: 'errors',
        for: source,
        reconcile: async (key) => {
          runs.push(`${key}@${Date.now() - t0}`);
          const e = failures[key]?.shift();
          if (e) throw e;
        },
        workers: 1,
      }),
    );
    const t0 = Date.now();
    source.items.push(obj('flaky'), obj('conflict'), obj('broken'));
    c.watch();
    c.start();
    await settle();
    for (let i = 0; i < 100; i++) {
      jest.advanceTimersByTime(10);
      await settle();
    }
    expect(runs).toEqual([
      'ns/flaky@0',
      'ns/conflict@0',
      'ns/broken@0',
      'ns/flaky@50',
      'ns/flaky@150',
      'ns/conflict@200',
    ]);
    await c.stop();
  });

  it('never reconciles one key in two workers at once', async () => {
    const source = new StubSource<KubeObject>();
    let inFlight = 0;
    let most = 0;
    let release: () => void = () => undefined;
    const c = new Controller(
      defineController({
        name: 'serial',
        for: source,
        reconcile: async () => {
          most = Math.max(most, ++inFlight);
          await new Promise<void>((r) => (release = r));
          inFlight--;
        },
        workers: 4,
      }),
    );
    c.watch();
    c.start();
    source.add(obj('a'));
    await settle();
    source.emit('update', obj('a'), obj('a'));
    source.emit('update', obj('a'), obj('a'));
    await settle();
    expect(inFlight).toBe(1);
    release();
    await settle();
    release();
    await settle();
    expect(most).toBe(1);
    await c.stop();
  });
});

describe('requeueAfter', () => {
  it('is no Result without a delay, and a Result with one', () => {
    expect(requeueAfter(undefined)).toBeUndefined();
    expect(requeueAfter(0)).toEqual({ requeueAfter: 0 });
    expect(requeueAfter(500)).toEqual({ requeueAfter: 500 });
  });
});
