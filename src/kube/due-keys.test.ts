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

  it('keeps the earlier time of a key', () => {
    const d = new DueKeys();
    expect(d.schedule('a', 100)).toBe(true);
    expect(d.schedule('a', 200)).toBe(false);
    expect(d.schedule('a', 50)).toBe(true);
    expect([d.size, d.next()]).toEqual([1, 50]);
    expect(d.take(60)).toEqual(['a']);
    // The time it had before is gone with it.
    expect(d.next()).toBeUndefined();
    expect(d.take(1000)).toEqual([]);
    d.schedule('a', 100);
    expect(d.take(100)).toEqual(['a']);
  });

  it('moves a key to a later time, or takes it out, when rescheduled', () => {
    const d = new DueKeys();
    d.schedule('a', 10);
    d.schedule('b', 20);
    expect(d.reschedule('a', 30)).toBe(true);
    expect(d.reschedule('a', 30)).toBe(false);
    expect(d.next()).toBe(20);
    expect(d.reschedule('b', undefined)).toBe(true);
    expect(d.reschedule('b', undefined)).toBe(false);
    expect([d.size, d.next()]).toEqual([1, 30]);
    expect(d.take(25)).toEqual([]);
    expect(d.take(30)).toEqual(['a']);
    expect(d.reschedule('c', 5)).toBe(true);
    expect(d.take(5)).toEqual(['c']);
  });

  it('agrees with a plain map of key -> time through any mix of schedules, reschedules and takes', () => {
    const d = new DueKeys();
    const model = new Map<string, number>();
    let seed = 11;
    const rand = () => (seed = (seed * 48271) % 2147483647);
    let now = 0;
    for (let i = 0; i < 5000; i++) {
      const key = `k${rand() % 200}`;
      const op = rand() % 10;
      const at = now + (rand() % 1000);
      if (op < 4) {
        d.schedule(key, at);
        model.set(key, Math.min(at, model.get(key) ?? Infinity));
      } else if (op < 7) {
        d.reschedule(key, at);
        model.set(key, at);
      } else if (op < 9) {
        d.reschedule(key, undefined);
        model.delete(key);
      } else {
        now += rand() % 300;
        const due = [...model].filter(([, t]) => t <= now).sort((a, b) => a[1] - b[1]);
        const taken = d.take(now);
        expect(taken.map((k) => model.get(k))).toEqual(due.map(([, t]) => t));
        expect(taken.sort()).toEqual(due.map(([k]) => k).sort());
        for (const k of taken) model.delete(k);
      }
      expect(d.size).toBe(model.size);
      expect(d.next()).toBe(model.size === 0 ? undefined : Math.min(...model.values()));
    }
  });

  it('forgets everything on clear', () => {
    const d = new DueKeys();
    d.schedule('a', 1);
    d.clear();
    expect([d.size, d.next(), d.take(10)]).toEqual([0, undefined, []]);
  });
});
