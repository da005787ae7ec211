import { jest } from '@jest/globals';
import { WorkQueue } from './queue.js';

/** Runs `f` on jest's fake clock (timers and Date.now), the real one restored after. */
async function onFakeClock(f: () => void | Promise<void>): Promise<void> {
  jest.useFakeTimers();
  try {
    await f();
  } finally {
    jest.useRealTimers();
  }
}

describe('WorkQueue', () => {
  it('de-duplicates keys waiting in the queue', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('a');
    q.add('b');
    expect(q.depth).toBe(2);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
  });

  it('gives keys in the order they came, however many are taken and added in between', async () => {
    const q = new WorkQueue();
    const taken: string[] = [];
    for (let i = 0; i < 3000; i++) q.add(`k${i}`);
    for (let i = 0; i < 2500; i++) taken.push((await q.get()) as string);
    for (let i = 3000; i < 4000; i++) q.add(`k${i}`);
    expect(q.depth).toBe(1500);
    while (q.depth > 0) taken.push((await q.get()) as string);
    expect(taken).toEqual(Array.from({ length: 4000 }, (_, i) => `k${i}`));
  });

  it('processes a key added while it is processed once more, afterwards, never concurrently', async () => {
    const q = new WorkQueue();
    q.add('a');
    const key = await q.get();
    q.add('a');
    expect(q.depth).toBe(0);
    q.done(key as string);
    expect(q.depth).toBe(1);
    expect(await q.get()).toBe('a');
  });

  it('backs off a failing key exponentially up to a bound, and forgets on success', async () => {
    await onFakeClock(async () => {
      const q = new WorkQueue(10, 50);
      /** Fails the key and returns the ms until it is back in the queue. */
      const pause = async () => {
        q.addRateLimited('a');
        let waited = 0;
        while (q.depth === 0) {
          jest.advanceTimersByTime(1);
          waited++;
        }
        q.done((await q.get()) as string);
        return waited;
      };
      const pauses: number[] = [];
      for (let n = 0; n < 5; n++) pauses.push(await pause());
      expect(pauses).toEqual([10, 20, 40, 50, 50]);
      q.forget('a');
      expect(await pause()).toBe(10);
      q.shutdown();
      expect(await q.get()).toBeUndefined();
    });
  });

  it('keeps the earliest of several timed adds of a key: a later one never pushes it back', async () => {
    await onFakeClock(async () => {
      const q = new WorkQueue();
      q.addAfter('late-then-early', 5000);
      q.addAfter('late-then-early', 100);
      q.addAfter('early-then-late', 100);
      q.addAfter('early-then-late', 5000);
      jest.advanceTimersByTime(99);
      expect(q.depth).toBe(0);
      jest.advanceTimersByTime(2);
      expect(q.depth).toBe(2);
      jest.advanceTimersByTime(10_000);
      expect(q.depth).toBe(2);
      q.shutdown();
    });
  });

  it('holds one timer for any number of timed keys, and adds each when it is due, in order', async () => {
    await onFakeClock(async () => {
      const q = new WorkQueue();
      for (let i = 0; i < 10_000; i++) q.addAfter(`k${i}`, 1000 + (i % 100) * 10);
      expect(jest.getTimerCount()).toBe(1);
      jest.advanceTimersByTime(999);
      expect(q.depth).toBe(0);
      jest.advanceTimersByTime(1);
      expect(q.depth).toBe(100);
      const first = new Set<string>();
      for (let i = 0; i < 100; i++) first.add((await q.get()) as string);
      expect([...first].every((k) => Number(k.slice(1)) % 100 === 0)).toBe(true);
      jest.advanceTimersByTime(989);
      expect(q.depth).toBe(10_000 - 200);
      jest.advanceTimersByTime(1);
      expect(q.depth).toBe(10_000 - 100);
      expect(jest.getTimerCount()).toBe(0);
      q.shutdown();
    });
  });

  it('waits beyond the longest delay a timer takes (2^31-1 ms), and forgets timed keys on shutdown', async () => {
    await onFakeClock(async () => {
      const q = new WorkQueue();
      const days = (n: number) => n * 24 * 3600_000;
      q.addAfter('retained', days(30));
      jest.advanceTimersByTime(days(29));
      expect(q.depth).toBe(0);
      jest.advanceTimersByTime(days(1));
      expect(q.depth).toBe(1);
      q.addAfter('never', 10);
      q.shutdown();
      expect(jest.getTimerCount()).toBe(0);
      jest.advanceTimersByTime(20);
      expect(q.depth).toBe(1);
    });
  });
});
