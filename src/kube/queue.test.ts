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

  it('backs off a failing key exponentially and forgets on success', async () => {
    const q = new WorkQueue(10, 1000);
    const t = Date.now();
    q.addRateLimited('a');
    await q.get();
    q.done('a');
    q.addRateLimited('a');
    await q.get();
    expect(Date.now() - t).toBeGreaterThanOrEqual(25);
    q.forget('a');
    q.shutdown();
    expect(await q.get()).toBeUndefined();
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
