import { describe, expect, it } from '@jest/globals';
import { condition, controllerReference, sameStatus } from './objects.js';

describe('sameStatus', () => {
  const cond = (status: 'True' | 'False', at: string) => ({
    type: 'Ready',
    status,
    reason: 'R',
    message: 'm',
    lastTransitionTime: at,
  });
  it('ignores when conditions moved, not what they say', () => {
    expect(sameStatus({ conditions: [cond('True', 'a')] }, { conditions: [cond('True', 'b')] })).toBe(true);
    expect(sameStatus({ conditions: [cond('True', 'a')] }, { conditions: [cond('False', 'a')] })).toBe(false);
  });
  it('takes no status as an empty one, and key order as no difference', () => {
    expect(sameStatus(undefined, {})).toBe(true);
    expect(sameStatus({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(true);
    expect(sameStatus({ a: 1 }, { a: 2 })).toBe(false);
  });
});

describe('condition', () => {
  it('keeps the transition time while the status stays', () => {
    const before = [
      { type: 'Ready', status: 'True' as const, reason: 'x', message: '', lastTransitionTime: 't0' },
    ];
    const c = { type: 'Ready', status: 'True' as const, reason: 'y', message: 'now' };
    expect(condition(before, c, 3, 't1')).toEqual({ ...c, observedGeneration: 3, lastTransitionTime: 't0' });
    expect(condition(before, { ...c, status: 'False' }, undefined, 't1').lastTransitionTime).toBe('t1');
  });
});

describe('controllerReference', () => {
  it('names the owner as the garbage collector follows it', () => {
    expect(controllerReference({ apiVersion: 'v1', kind: 'K', metadata: { name: 'n', uid: 'u' } })).toEqual({
      apiVersion: 'v1',
      kind: 'K',
      name: 'n',
      uid: 'u',
      controller: true,
      blockOwnerDeletion: true,
    });
  });
});
