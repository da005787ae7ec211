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
/** An elector on its own monotonic clock, which the test moves. */
function elector(identity: string, store: LeaseStore) {
  let now = 0;
  const e = new LeaderElector(new k8s.KubeConfig(), {
    namespace: 'ns',
    name: 'lease',
    identity,
    leaseDurationSeconds: 15,
    store,
    monotonic: () => now,
  });
  /** One attempt at monotonic time `ms`, writing renewTime from `wall` (any clock, even a wrong one). */
  return (ms: number, wall = new Date(Date.UTC(2026, 11, 3, 10, 0, 0) + ms)) => {
    now = ms;
    return e.tryAcquireOrRenew(wall);
  };
}

describe('leader election on an injected clock', () => {
  it('a follower takes the Lease only a whole lease duration after it last saw it change', async () => {
    const store = memoryStore();
    const a = elector('a', store);
    const b = elector('b', store);
    expect(await a(0)).toBe(true);
    expect(await b(1000)).toBe(false);
    expect(await a(2000)).toBe(true);
    // b sees a's renewal at 3 s by its own clock; a then dies. The Lease counts until 18 s for b.
    expect(await b(3000)).toBe(false);
    expect(await b(17_999)).toBe(false);
    expect(await b(18_000)).toBe(true);
    expect(store.lease?.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    expect(await a(19_000)).toBe(false);
  });

  it('does not trust the holder’s wall clock: a renewTime an hour behind is not an expired Lease', async () => {
    const store = memoryStore();
    const hourBehind = new Date(Date.UTC(2026, 11, 3, 9, 0, 0));
    expect(await elector('a', store)(0, hourBehind)).toBe(true);
    expect(await elector('b', store)(0)).toBe(false);
  });

  it('takes a Lease its holder released at once', async () => {
    const store = memoryStore();
    expect(await elector('a', store)(0)).toBe(true);
    store.lease = { ...store.lease!, spec: { ...store.lease!.spec, holderIdentity: '' } };
    expect(await elector('b', store)(1)).toBe(true);
  });

  it('of two candidates for a free Lease, exactly one wins', async () => {
    const store = memoryStore();
    const results = await Promise.allSettled([elector('a', store)(0), elector('b', store)(0)]);
    expect(results.filter((r) => r.status === 'fulfilled' && r.value).length).toBe(1);
  });
});

describe('a stalled API server', () => {
  it('ends leadership by the renew deadline, strictly inside the lease, though no request ever returns', async () => {
    let now = 0;
    const timers: { at: number; fire: () => void }[] = [];
    const after = (ms: number) => new Promise<void>((fire) => timers.push({ at: now + ms, fire }));
    /** Moves the clock to the next timer and fires it. */
    const tick = async () => {
      await new Promise((r) => setImmediate(r));
      timers.sort((a, b) => a.at - b.at);
      const t = timers.shift();
      if (!t) return false;
      now = t.at;
      t.fire();
      await new Promise((r) => setImmediate(r));
      return true;
    };
    const store = memoryStore();
    let stalled = false;
    const stalling: LeaseStore = {
      get: () => (stalled ? new Promise<never>(() => undefined) : store.get()),
      create: (l) => store.create(l),
      replace: (l) => (stalled ? new Promise<never>(() => undefined) : store.replace(l)),
    };
    const e = new LeaderElector(new k8s.KubeConfig(), {
      namespace: 'ns',
      name: 'lease',
      identity: 'a',
      leaseDurationSeconds: 15,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      store: stalling,
      monotonic: () => now,
      after,
      onAttempt: (r) => {
        if (r === 'held') renewed = now;
      },
    });
    let renewed = -1;
    let started = -1;
    let lost = -1;
    const done = e.run(
      () => (started = now),
      () => (lost = now),
    );
    while (started < 0) if (!(await tick())) break;
    stalled = true;
    while (lost < 0 && now < 60_000) if (!(await tick())) break;
    expect(lost).toBeGreaterThan(0);
    await done;
    // Leadership ended at the renew deadline after the last renewal, before the lease's 15 s.
    expect(lost - renewed).toBe(10_000);
    expect(e.isLeader()).toBe(false);
  });
});
