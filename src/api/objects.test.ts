import { describe, expect, it } from '@jest/globals';
import { condition, controllerReference, madeFor, nameHolder, sameStatus } from './objects.js';

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

describe('nameHolder', () => {
  const L = 'kruntimes.io/workflowrun-uid';
  const owner = { kind: 'WorkflowRun', name: 'release', uid: 'u-2' };
  const obj = (ref: object | undefined, labels: Record<string, string> = {}, deletionTimestamp?: string) => ({
    metadata: {
      labels,
      ...(ref ? { ownerReferences: [{ controller: true, ...ref }] } : {}),
      ...(deletionTimestamp ? { deletionTimestamp } : {}),
    },
  });

  it('is ours only with our controller reference and our uid label', () => {
    const mine = obj({ kind: 'WorkflowRun', name: 'release', uid: 'u-2' }, { [L]: 'u-2' });
    expect(nameHolder(mine, owner, L)).toBe('ours');
    expect(madeFor(mine, 'u-2', L)).toBe(true);
    expect(nameHolder(obj({ kind: 'WorkflowRun', name: 'release', uid: 'u-2' }), owner, L)).not.toBe('ours');
  });

  it('is a previous run of this name while it is deleted or names our name with another uid', () => {
    expect(
      nameHolder(obj({ kind: 'WorkflowRun', name: 'release', uid: 'u-1' }, { [L]: 'u-1' }), owner, L),
    ).toBe('previous');
    expect(nameHolder(obj(undefined, {}, '2026-12-01T00:00:00Z'), owner, L)).toBe('previous');
  });

  it('is another owner otherwise', () => {
    expect(nameHolder(obj(undefined), owner, L)).toBe('other');
    expect(nameHolder(obj({ kind: 'WorkflowRun', name: 'other', uid: 'u-9' }), owner, L)).toBe('other');
    expect(nameHolder(obj({ kind: 'Promise', name: 'release', uid: 'u-9' }), owner, L)).toBe('other');
  });
});
