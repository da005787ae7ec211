import { describe, expect, it } from '@jest/globals';
import { StringPool, ValuePool } from './intern.js';

/** A string with the same value but its own instance, as JSON.parse makes one. */
const copy = (s: string) => JSON.parse(JSON.stringify(s)) as string;

describe('StringPool', () => {
  it('gives every repeated value one instance, through objects and arrays, in place', () => {
    const pool = new StringPool();
    const a = JSON.parse(
      '{"apiVersion":"v1","labels":{"x":"team"},"list":["team",{"k":"team"}],"n":3,"z":null}',
    );
    const b = JSON.parse('{"apiVersion":"v1","labels":{"x":"team"}}');
    pool.internAll(a);
    pool.internAll(b);
    expect(b).toEqual({ apiVersion: 'v1', labels: { x: 'team' } });
    expect(a.n).toBe(3);
    expect(a.z).toBeNull();
    // Equal values stay equal; the pool holds each once.
    expect(pool.size).toBe(2);
    expect(pool.intern(copy('team'))).toBe(a.list[0]);
  });

  it('stays bounded: a value seen once ages out, one seen again is kept', () => {
    const pool = new StringPool(4);
    const shared = pool.intern('shared');
    for (let i = 0; i < 3; i++) pool.intern(`once-${i}`);
    // The first generation filled; 'shared' is in the older one and comes back when asked.
    expect(pool.intern(copy('shared'))).toBe(shared);
    for (let i = 3; i < 20; i++) pool.intern(`once-${i}`);
    expect(pool.size).toBeLessThanOrEqual(8);
    expect(pool.intern('x'.repeat(300))).toHaveLength(300); // too long to pool
  });
});

describe('ValuePool', () => {
  it('gives equal JSON values one frozen instance, which interning then leaves alone', () => {
    const pool = new ValuePool();
    const first = pool.share(JSON.parse('{"runtime":"bash","env":[{"name":"A"}]}'));
    const again = pool.share(JSON.parse('{"runtime":"bash","env":[{"name":"A"}]}'));
    expect(again).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first.env[0])).toBe(true);
    expect(() => {
      (first as { runtime: string }).runtime = 'sh';
    }).toThrow(TypeError);
    expect(pool.share({ runtime: 'sh' })).not.toBe(first);
    const cached = { spec: first, name: copy('x') };
    expect(new StringPool().internAll(cached)).toEqual({
      spec: { runtime: 'bash', env: [{ name: 'A' }] },
      name: 'x',
    });
  });

  it('stays bounded and does not keep large values', () => {
    const pool = new ValuePool(4, 64);
    const shared = pool.share({ phase: 'Succeeded' });
    for (let i = 0; i < 3; i++) pool.share({ phase: `once-${i}` });
    expect(pool.share({ phase: 'Succeeded' })).toBe(shared);
    for (let i = 3; i < 20; i++) pool.share({ phase: `once-${i}` });
    expect(pool.size).toBeLessThanOrEqual(8);
    const large = { text: 'x'.repeat(100) };
    expect(pool.share(large)).toBe(large);
    expect(Object.isFrozen(large)).toBe(false);
  });
});
