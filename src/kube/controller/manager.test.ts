import * as k8s from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import type { KubeObject } from '../informer.js';
import type { ListWatch } from '../list-watch.js';
import { defineController } from './controller.js';
import { ControllerManager } from './manager.js';

/** A list and watch per path, without an API server; records what was opened and closed. */
function stubApi(items: Record<string, KubeObject[]>) {
  const open = new Set<string>();
  const lw: ListWatch<KubeObject> = {
    list: async (path) => ({ items: items[path] ?? [], metadata: { resourceVersion: '1' } }),
    watch: async (path, _params, _onEvent, onDone) => {
      open.add(path);
      return {
        abort: () => {
          open.delete(path);
          onDone(Object.assign(new Error('aborted'), { name: 'AbortError' }));
        },
      };
    },
  };
  return { lw: lw as ListWatch<never>, open };
}
const obj = (name: string) => ({ metadata: { name, namespace: 'ns', resourceVersion: '1' } });
const until = async (check: () => boolean) => {
  while (!check()) await new Promise((r) => setTimeout(r, 5));
};

describe('ControllerManager', () => {
  it('shares one informer per path, adds and removes controllers while running, and closes unused watches', async () => {
    const api = stubApi({ '/a': [obj('a1')], '/b': [obj('b1')] });
    const m = new ControllerManager(new k8s.KubeConfig(), { registry: new Registry() });
    const a = m.informer({ path: '/a', listWatch: api.lw });
    expect(m.informer({ path: '/a', listWatch: api.lw })).toBe(a);
    const seen: string[] = [];
    await m.add(
      defineController({ name: 'first', for: a, reconcile: async (k) => void seen.push(`first ${k}`) }),
    );
    await m.start();
    await until(() => seen.length === 1);
    expect([...api.open]).toEqual(['/a']);

    // A second controller on the same informer, and a third on a new API, added while running.
    await m.add(
      defineController({ name: 'second', for: a, reconcile: async (k) => void seen.push(`second ${k}`) }),
    );
    const b = m.informer({ path: '/b', listWatch: api.lw });
    await m.add(
      defineController({ name: 'third', for: b, reconcile: async (k) => void seen.push(`third ${k}`) }),
    );
    await until(() => seen.length === 3);
    expect(seen.sort()).toEqual(['first ns/a1', 'second ns/a1', 'third ns/b1']);
    expect([...api.open].sort()).toEqual(['/a', '/b']);
    await expect(
      m.add(defineController({ name: 'third', for: b, reconcile: async () => undefined })),
    ).rejects.toThrow('controller "third" is registered already');

    // Removing the third closes /b; removing one user of /a keeps it open for the other.
    await m.remove('third');
    await m.remove('first');
    expect(b.running).toBe(false);
    expect([...api.open]).toEqual(['/a']);
    expect(m.watching).toEqual(['/a?']);
    await m.remove('second');
    expect([...api.open]).toEqual([]);
    expect(m.watching).toEqual([]);
    await m.stop();
  });
});
