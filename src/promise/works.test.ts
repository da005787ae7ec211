import { describe, expect, it } from '@jest/globals';
import {
  identity,
  placed,
  toPrune,
  workRetryAfter,
  workStatus,
  WORK_RETRY_MAX_MS,
  WORK_RETRY_MIN_MS,
} from './works.js';

const cm = (name: string, namespace?: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(namespace ? { namespace } : {}) },
});

describe('Works', () => {
  it('places a namespaced object in the Work namespace unless it names one; a cluster-scoped one in none', () => {
    expect(placed(cm('a'), true, 'team').metadata.namespace).toBe('team');
    expect(placed(cm('a', 'other'), true, 'team').metadata.namespace).toBe('other');
    expect(placed(cm('a', 'other'), false, 'team').metadata).toEqual({ name: 'a' });
  });

  it('prunes exactly what a newer Work no longer holds', () => {
    const before = [identity(cm('a', 'team')), identity(cm('b', 'team')), identity(cm('a', 'other'))];
    const now = [identity(cm('a', 'team'))];
    expect(toPrune(before, now)).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team', name: 'b' },
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'other', name: 'a' },
    ]);
    expect(toPrune(before, before)).toEqual([]);
  });

  it('says Applied True, or False with the failures, and keeps the transition time while unchanged', () => {
    const ok = workStatus(2, [identity(cm('a', 't'))], [], undefined, 'T1');
    expect(ok.conditions?.[0]).toMatchObject({ type: 'Applied', status: 'True', lastTransitionTime: 'T1' });
    expect(workStatus(2, [], [], ok, 'T2').conditions?.[0]?.lastTransitionTime).toBe('T1');
    const bad = workStatus(3, [], ['ConfigMap team/a: forbidden'], ok, 'T3');
    expect(bad).toMatchObject({
      observedGeneration: 3,
      message: 'ConfigMap team/a: forbidden',
      conditions: [{ status: 'False', reason: 'ApplyFailed', lastTransitionTime: 'T3' }],
    });
  });
});

describe('workRetryAfter', () => {
  const start = new Date('2026-12-01T10:00:00Z');
  const failing = workStatus(1, [], ['ConfigMap a: forbidden'], undefined, start.toISOString());
  const at = (ms: number) => new Date(start.getTime() + ms);

  it('retries a failing Work after as long as it has failed so far, within bounds', () => {
    expect(workRetryAfter(failing, start)).toBe(WORK_RETRY_MIN_MS);
    expect(workRetryAfter(failing, at(3_000))).toBe(WORK_RETRY_MIN_MS);
    expect(workRetryAfter(failing, at(20_000))).toBe(20_000);
    expect(workRetryAfter(failing, at(40_000))).toBe(40_000);
    expect(workRetryAfter(failing, at(3_600_000))).toBe(WORK_RETRY_MAX_MS);
  });

  it('counts from when it began to fail, not from the last failure', () => {
    // A second failure keeps the condition's transition time: the wait goes on growing.
    const again = workStatus(1, [], ['ConfigMap a: still forbidden'], failing, at(60_000).toISOString());
    expect(workRetryAfter(again, at(60_000))).toBe(60_000);
  });

  it('leaves a Work that applied, or has no result yet, to wait for a change', () => {
    expect(workRetryAfter(undefined, start)).toBeUndefined();
    const ok = workStatus(1, [], [], failing, at(10_000).toISOString());
    expect(workRetryAfter(ok, at(20_000))).toBeUndefined();
  });
});
