import * as k8s from '@kubernetes/client-node';
import { jest } from '@jest/globals';
import { Registry } from 'prom-client';
import { ResilientInformer, withoutManagedFields, type KubeObject } from './informer.js';
import { pagedList, type ListWatch } from './list-watch.js';
import { informerMetrics, WATCHING_METRIC } from './informer-metrics.js';

type Obj = KubeObject & {
  metadata: { name: string; namespace: string; resourceVersion: string; labels?: Record<string, string> };
};
const obj = (name: string, rv: string, owner?: string): Obj => ({
  metadata: { name, namespace: 'ns', resourceVersion: rv, ...(owner ? { labels: { owner } } : {}) },
});

describe('ResilientInformer cache', () => {
  // The cache side only: list and watch are exercised against the real API server by every suite.
  const informer = () => {
    const inf = new ResilientInformer<Obj>(new k8s.KubeConfig(), { path: '/x', indexLabels: ['owner'] });
    const cache = inf as unknown as { upsert(o: Obj): void; remove(o: Obj): void };
    return { inf, cache };
  };

  it('indexes objects by label and follows relabels and deletions', () => {
    const { inf, cache } = informer();
    const events: string[] = [];
    inf.on('add', (o) => events.push(`add ${o.metadata.name}`));
    inf.on('update', (_old, o) => events.push(`update ${o.metadata.name}`));
    inf.on('delete', (o) => events.push(`delete ${o.metadata.name}`));
    cache.upsert(obj('a', '1', 'u1'));
    cache.upsert(obj('b', '1', 'u1'));
    cache.upsert(obj('c', '1', 'u2'));
    expect(
      inf
        .withLabel('owner', 'u1')
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['a', 'b']);
    cache.upsert(obj('b', '2', 'u2'));
    expect(inf.withLabel('owner', 'u1').map((o) => o.metadata.name)).toEqual(['a']);
    expect(
      inf
        .withLabel('owner', 'u2')
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['b', 'c']);
    cache.upsert(obj('b', '2', 'u2')); // same resourceVersion: no event
    cache.remove(obj('c', '1', 'u2'));
    expect(inf.withLabel('owner', 'u2').map((o) => o.metadata.name)).toEqual(['b']);
    expect(inf.withLabel('owner', 'nobody')).toEqual([]);
    expect(inf.get('ns', 'a')?.metadata.resourceVersion).toBe('1');
    expect(inf.list('ns')).toHaveLength(2);
    expect(events).toEqual(['add a', 'add b', 'add c', 'update b', 'delete c']);
  });

  it('indexes the current version of each object, in any namespace, and labels indexed after the fact', () => {
    const { inf, cache } = informer();
    cache.upsert(obj('a', '1', 'u1'));
    cache.upsert(obj('a', '2', 'u1'));
    expect(inf.withLabel('owner', 'u1').map((o) => o.metadata.resourceVersion)).toEqual(['2']);
    cache.upsert(obj('b', '1', 'u1'));
    cache.upsert(obj('b', '2', 'u1'));
    expect(
      inf.withLabel('owner', 'u1').map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`),
    ).toEqual(['a@2', 'b@2']);
    cache.remove(obj('a', '2', 'u1'));
    cache.upsert(obj('b', '3', 'u1'));
    expect(
      inf.withLabel('owner', 'u1').map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`),
    ).toEqual(['b@3']);
    cache.upsert({
      metadata: { name: 'a', namespace: 'other', resourceVersion: '1', labels: { owner: 'u1', team: 't' } },
    });
    expect(inf.list().map((o) => `${o.metadata.namespace}/${o.metadata.name}`)).toEqual(['ns/b', 'other/a']);
    expect(inf.get('other', 'a')?.metadata.resourceVersion).toBe('1');
    expect(inf.get('ns', 'a')).toBeUndefined();
    inf.addIndex('team');
    expect(inf.withLabel('team', 't').map((o) => o.metadata.namespace)).toEqual(['other']);
    expect(inf.withLabel('owner', 'u1')).toHaveLength(2);
  });

  it("shows this process's own write (or create) at once, skips the watch's older events, and follows the watch again once it caught up", () => {
    const { inf, cache } = informer();
    const events: string[] = [];
    inf.on('add', (o) => events.push(`add ${o.metadata.resourceVersion}`));
    inf.on('update', (_old, o) => events.push(`update ${o.metadata.resourceVersion}`));
    cache.upsert(obj('a', '10'));
    inf.written(obj('a', '12'));
    expect(inf.get('ns', 'a')?.metadata.resourceVersion).toBe('12');
    cache.upsert(obj('a', '11')); // from before the write: not news
    expect(inf.get('ns', 'a')?.metadata.resourceVersion).toBe('12');
    cache.upsert(obj('a', '12')); // the write's own event: nothing new
    cache.upsert(obj('a', '11')); // the watch caught up: it is followed again
    expect(inf.get('ns', 'a')?.metadata.resourceVersion).toBe('11');
    inf.written(obj('a', '9')); // older than the cache: ignored
    inf.written({ metadata: { ...obj('a', '').metadata, resourceVersion: 'opaque' } });
    expect(inf.get('ns', 'a')?.metadata.resourceVersion).toBe('11');
    inf.written(obj('b', '20')); // just created: shown before the watch brings it
    cache.upsert(obj('b', '20'));
    expect(inf.get('ns', 'b')?.metadata.resourceVersion).toBe('20');
    expect(events).toEqual(['add 10', 'update 12', 'update 11', 'add 20']);
  });
});

/** A list and watch that answer as the test says, and record what was asked. */
function stub() {
  const calls: string[] = [];
  let listAnswers: (() => Promise<{ items: Obj[]; metadata: { resourceVersion: string } }>)[] = [];
  let watchFn: Parameters<ListWatch<Obj>['watch']>[2] = () => undefined;
  let doneFn: (err: unknown) => void = () => undefined;
  const lw: ListWatch<Obj> = {
    list: async () => {
      calls.push(`list@${Date.now()}`);
      const next = listAnswers.shift();
      if (!next) throw new Error('no list answer');
      return next();
    },
    watch: async (_path, params, onEvent, onDone) => {
      calls.push(`watch rv=${String(params.resourceVersion)}`);
      watchFn = onEvent;
      doneFn = onDone;
      return { abort: () => onDone(Object.assign(new Error('aborted'), { name: 'AbortError' })) };
    },
  };
  return {
    lw,
    calls,
    answer: (...a: typeof listAnswers) => (listAnswers = [...listAnswers, ...a]),
    event: (phase: string, o: Obj & { code?: number }) => watchFn(phase, o),
    end: (err?: unknown) => doneFn(err),
  };
}
const listed =
  (rv: string, ...items: Obj[]) =>
  async () => ({ items, metadata: { resourceVersion: rv } });
const settle = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

describe('ResilientInformer list and watch', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());
  const make = (s: ReturnType<typeof stub>) =>
    new ResilientInformer<Obj>(new k8s.KubeConfig(), {
      path: '/x',
      listWatch: s.lw as ListWatch<never>,
      minBackoffMs: 100,
      maxBackoffMs: 1000,
      watchTimeoutSeconds: 60,
    });

  it('relists on 410 Gone, dropping what the new list no longer holds', async () => {
    const s = stub();
    s.answer(listed('10', obj('a', '1'), obj('b', '2')), listed('20', obj('b', '3')));
    const inf = make(s);
    const deleted: string[] = [];
    inf.on('delete', (o) => deleted.push(o.metadata.name));
    await inf.start();
    await settle();
    s.event('ERROR', { ...obj('x', '0'), code: 410 });
    await settle();
    expect(s.calls.filter((c) => c.startsWith('list'))).toHaveLength(2);
    expect(s.calls).toContain('watch rv=20');
    expect(inf.list().map((o) => o.metadata.resourceVersion)).toEqual(['3']);
    expect(deleted).toEqual(['a']);
    inf.stop();
  });

  it('continues a watch that ends cleanly from the last resourceVersion it saw, without a list', async () => {
    const s = stub();
    s.answer(listed('10'));
    const inf = make(s);
    await inf.start();
    await settle();
    s.event('ADDED', obj('a', '11'));
    s.end();
    await settle();
    expect(s.calls.map((c) => c.replace(/@\d+/, ''))).toEqual(['list', 'watch rv=10', 'watch rv=11']);
    inf.stop();
  });

  it('opens a quiet watch that client-node timed out again at once, without a list or a backoff', async () => {
    const s = stub();
    s.answer(listed('10'));
    const inf = make(s);
    await inf.start();
    await settle();
    for (let i = 0; i < 5; i++) {
      s.end(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
      await settle();
    }
    expect(s.calls.map((c) => c.replace(/@\d+/, ''))).toEqual(['list', ...Array(6).fill('watch rv=10')]);
    inf.stop();
  });

  it('says since when it is in touch: not while a watch has failed, again from the first event after', async () => {
    const s = stub();
    s.answer(listed('10'));
    const inf = make(s);
    await inf.start();
    await settle();
    const first = inf.connectedSince();
    jest.advanceTimersByTime(5000);
    expect(inf.connectedSince()).toBe(first);
    s.end(new Error('socket hang up'));
    await settle();
    // Out of touch: it vouches for nothing, whatever time it is.
    jest.advanceTimersByTime(1000);
    expect(inf.connectedSince()).toBe(performance.now());
    await settle();
    // The watch is open again (the request went out) but proves nothing until an event comes.
    expect(s.calls.filter((c) => c.startsWith('watch'))).toHaveLength(2);
    jest.advanceTimersByTime(1000);
    expect(inf.connectedSince()).toBe(performance.now());
    s.event('BOOKMARK', obj('x', '12'));
    const back = performance.now();
    jest.advanceTimersByTime(3000);
    expect(inf.connectedSince()).toBe(back);
    expect(back - first).toBeGreaterThanOrEqual(7000);
    inf.stop();
  });

  it('takes a watch ERROR other than 410 as a failure: it backs off before the next watch, instead of a loop of watches', async () => {
    const s = stub();
    s.answer(listed('10'));
    const inf = make(s);
    await inf.start();
    await settle();
    // A server that answers every watch with an error (here: 500) at once.
    s.event('ERROR', { ...obj('x', '0'), code: 500 });
    await settle();
    expect(s.calls.filter((c) => c.startsWith('watch'))).toHaveLength(1);
    expect(inf.connectedSince()).toBe(performance.now());
    // The pause is at least half its 200 ms base; then the watch opens again from where it was.
    jest.advanceTimersByTime(99);
    await settle();
    expect(s.calls.filter((c) => c.startsWith('watch'))).toHaveLength(1);
    jest.advanceTimersByTime(101);
    await settle();
    expect(s.calls.map((c) => c.replace(/@\d+/, ''))).toEqual(['list', 'watch rv=10', 'watch rv=10']);
    inf.stop();
  });

  it('backs off with growing, jittered pauses after failures, and lists again after several', async () => {
    const s = stub();
    const fail = async () => {
      throw new Error('connection refused');
    };
    s.answer(fail, fail, fail, fail, listed('5', obj('a', '1')));
    const inf = make(s);
    const started = inf.start();
    for (let i = 0; i < 60; i++) {
      jest.advanceTimersByTime(50);
      await settle();
    }
    await started;
    const times = s.calls.filter((c) => c.startsWith('list')).map((c) => Number(c.split('@')[1]));
    const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
    expect(gaps).toHaveLength(4);
    // base 100 ms doubling per failure up to 1 s, each pause between half and all of its base.
    [200, 400, 800, 1000].forEach((base, i) => {
      expect(gaps[i]).toBeGreaterThanOrEqual(base / 2 - 50);
      expect(gaps[i]).toBeLessThanOrEqual(base + 50);
    });
    expect(inf.hasSynced()).toBe(true);
    inf.stop();
  });

  it('reports on krt_informer_watching whether its watch is open: 0 before the first list and while it backs off', async () => {
    const s = stub();
    s.answer(listed('10'));
    const inf = new ResilientInformer<Obj>(new k8s.KubeConfig(), {
      path: '/x',
      labelSelector: 'app=a',
      listWatch: s.lw as ListWatch<never>,
      minBackoffMs: 100,
      maxBackoffMs: 1000,
    });
    const registry = new Registry();
    informerMetrics(registry, () => [inf]);
    const watching = async () =>
      (await registry.getSingleMetric(WATCHING_METRIC)?.get())?.values.map((v) => [v.labels, v.value]);
    expect(await watching()).toEqual([[{ path: '/x', selector: 'app=a' }, 0]]);
    await inf.start();
    await settle();
    expect(await watching()).toEqual([[{ path: '/x', selector: 'app=a' }, 1]]);
    s.end(new Error('socket hang up'));
    await settle();
    expect(await watching()).toEqual([[{ path: '/x', selector: 'app=a' }, 0]]);
    jest.advanceTimersByTime(1000);
    await settle();
    expect(s.calls.filter((c) => c.startsWith('watch'))).toHaveLength(2);
    expect(await watching()).toEqual([[{ path: '/x', selector: 'app=a' }, 1]]);
    inf.stop();
  });

  it('reports a watch that stalls (no event, no end) as unhealthy, and a periodic resync ends it', async () => {
    const s = stub();
    s.answer(listed('10'), listed('10'));
    const inf = new ResilientInformer<Obj>(new k8s.KubeConfig(), {
      path: '/x',
      listWatch: s.lw as ListWatch<never>,
      watchTimeoutSeconds: 60,
      resyncMs: 5 * 60_000,
    });
    await inf.start();
    await settle();
    expect(inf.healthy()).toBe(true);
    expect(inf.healthy(Date.now() + 121_000)).toBe(false);
    jest.advanceTimersByTime(5 * 60_000);
    await settle();
    expect(s.calls.filter((c) => c.startsWith('list'))).toHaveLength(2);
    expect(inf.healthy()).toBe(true);
    inf.stop();
    expect(inf.watchOpen).toBe(false);
  });
});

describe('lists in pages, and keeps objects without managedFields', () => {
  it('follows continue tokens until the last page and keeps its resourceVersion', async () => {
    const asked: string[] = [];
    const pages: Record<string, unknown> = {
      '': { items: [obj('a', '1'), obj('b', '2')], metadata: { continue: 't1', resourceVersion: '5' } },
      t1: { items: [obj('c', '3')], metadata: { continue: 't2', resourceVersion: '5' } },
      t2: { items: [], metadata: { resourceVersion: '5' } },
    };
    const got = await pagedList<Obj>(
      async (p) => {
        asked.push(p);
        return pages[new URL(p, 'http://x').searchParams.get('continue') ?? ''];
      },
      '/apis/g/v1/things',
      'app',
      (o) => {
        // Each item is cut as its page arrives, before the next page is asked for.
        asked.push(`each ${o.metadata.name}`);
        return { metadata: { ...o.metadata, name: o.metadata.name.toUpperCase() } };
      },
      2,
    );
    expect(got.items.map((o) => o.metadata.name)).toEqual(['A', 'B', 'C']);
    expect(got.metadata.resourceVersion).toBe('5');
    expect(asked).toEqual([
      '/apis/g/v1/things?limit=2&labelSelector=app',
      'each a',
      'each b',
      '/apis/g/v1/things?limit=2&labelSelector=app&continue=t1',
      'each c',
      '/apis/g/v1/things?limit=2&labelSelector=app&continue=t2',
    ]);
  });

  it('drops managedFields from what it caches, leaving the rest', async () => {
    const big = {
      metadata: { ...obj('a', '1').metadata, managedFields: [{ manager: 'kubectl' }] },
      spec: { x: 1 },
    };
    expect(withoutManagedFields(big)).toEqual({ metadata: obj('a', '1').metadata, spec: { x: 1 } });
    const lw: ListWatch<Obj> = {
      list: async (_path, _labels, each) => ({
        items: [big as unknown as Obj].map((o) => each?.(o) ?? o),
        metadata: { resourceVersion: '1' },
      }),
      watch: async () => ({ abort: () => undefined }),
    };
    const inf = new ResilientInformer<Obj>(new k8s.KubeConfig(), {
      path: '/x',
      listWatch: lw as ListWatch<never>,
    });
    await inf.start();
    expect(inf.get('ns', 'a')).not.toHaveProperty('metadata.managedFields');
    inf.stop();
  });
});
