import { jest } from '@jest/globals';
import { WorkQueue } from './queue.js';

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
    jest.useFakeTimers();
    try {
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
    } finally {
      jest.useRealTimers();
    }
  });

  it('keeps the earliest of several timed adds of a key: a later one never pushes it back', () => {
    jest.useFakeTimers();
    try {
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
    } finally {
      jest.useRealTimers();
    }
  });
});
