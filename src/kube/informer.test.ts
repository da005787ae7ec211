import * as k8s from '@kubernetes/client-node';
import { ResilientInformer, type KubeObject } from './informer.js';

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
});
