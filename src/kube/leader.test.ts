import * as k8s from '@kubernetes/client-node';
import { LeaderElector, type Lease, type LeaseStore } from './leader.js';

/** A Lease in memory with the API server's compare-and-swap on resourceVersion. */
function memoryStore(): LeaseStore & { lease?: Lease } {
  let version = 0;
  const store: LeaseStore & { lease?: Lease } = {
    get: async () => (store.lease ? structuredClone(store.lease) : undefined),
    create: async (l) => {
      if (store.lease) throw new Error('409 exists');
      store.lease = { ...l, metadata: { ...l.metadata, resourceVersion: String(++version) } };
    },
    replace: async (l) => {
      if (l.metadata.resourceVersion !== store.lease?.metadata.resourceVersion)
        throw new Error('409 conflict');
      store.lease = { ...l, metadata: { ...l.metadata, resourceVersion: String(++version) } };
    },
  };
  return store;
}
const elector = (identity: string, store: LeaseStore) =>
  new LeaderElector(new k8s.KubeConfig(), {
    namespace: 'ns',
    name: 'lease',
    identity,
    leaseDurationSeconds: 15,
    store,
  });
const at = (s: number) => new Date(Date.UTC(2026, 11, 3, 10, 0, s));

describe('leader election on an injected clock', () => {
  it('a follower takes the Lease only once it has expired, and counts the transition', async () => {
    const store = memoryStore();
    const a = elector('a', store);
    const b = elector('b', store);
    expect(await a.tryAcquireOrRenew(at(0))).toBe(true);
    expect(await b.tryAcquireOrRenew(at(1))).toBe(false);
    expect(await a.tryAcquireOrRenew(at(2))).toBe(true);
    // a renewed at 2 s and then died: the Lease counts until 17 s.
    expect(await b.tryAcquireOrRenew(at(16))).toBe(false);
    expect(await b.tryAcquireOrRenew(at(18))).toBe(true);
    expect(store.lease?.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    expect(await a.tryAcquireOrRenew(at(19))).toBe(false);
  });

  it('of two candidates for a free Lease, exactly one wins', async () => {
    const store = memoryStore();
    const results = await Promise.allSettled([
      elector('a', store).tryAcquireOrRenew(at(0)),
      elector('b', store).tryAcquireOrRenew(at(0)),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled' && r.value).length).toBe(1);
  });
});
