import { DueKeys } from './due-keys.js';

describe('DueKeys', () => {
  it('gives keys back earliest first, each once, only when due', () => {
    const d = new DueKeys();
    // A fixed pseudo-random order: the heap must sort whatever comes.
    let seed = 7;
    const rand = () => (seed = (seed * 48271) % 2147483647);
    const times = new Map<string, number>();
    for (let i = 0; i < 500; i++) {
      const key = `k${rand() % 300}`;
      const at = rand() % 10_000;
      d.schedule(key, at);
      times.set(key, Math.min(at, times.get(key) ?? Infinity));
    }
    expect(d.size).toBe(times.size);
    const expected = [...times].sort((a, b) => a[1] - b[1]);
    expect(d.next()).toBe(expected[0]?.[1]);
    const half = expected[Math.floor(expected.length / 2)]?.[1] as number;
    const first = d.take(half);
    const rest = d.take(Infinity);
    // Earliest first (keys due at the same time come in any order), each key once.
    const order = [...first, ...rest].map((k) => times.get(k) as number);
    expect(order).toEqual(expected.map(([, at]) => at));
    expect([...first, ...rest].sort()).toEqual([...times.keys()].sort());
    expect(first.every((k) => (times.get(k) as number) <= half)).toBe(true);
    expect(first).toHaveLength(expected.filter(([, at]) => at <= half).length);
    expect(d.size).toBe(0);
    expect(d.next()).toBeUndefined();
  });

  it('keeps the earlier time of a key, and skips the entry an earlier time replaced', () => {
    const d = new DueKeys();
    expect(d.schedule('a', 100)).toBe(true);
    expect(d.schedule('a', 200)).toBe(false);
    expect(d.schedule('a', 50)).toBe(true);
    expect(d.next()).toBe(50);
    expect(d.take(60)).toEqual(['a']);
    // The replaced entry at 100 is not a key due at 100.
    expect(d.next()).toBeUndefined();
    expect(d.take(1000)).toEqual([]);
  });

  it('gives a key scheduled again after it was taken once, though a stale entry has its time', () => {
    const d = new DueKeys();
    d.schedule('a', 100);
    d.schedule('a', 50);
    expect(d.take(50)).toEqual(['a']);
    d.schedule('a', 100);
    expect(d.take(100)).toEqual(['a']);
    expect(d.take(1000)).toEqual([]);
  });

  it('forgets everything on clear', () => {
    const d = new DueKeys();
    d.schedule('a', 1);
    d.clear();
    expect([d.size, d.next(), d.take(10)]).toEqual([0, undefined, []]);
  });
});
