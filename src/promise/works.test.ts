import { describe, expect, it } from '@jest/globals';
import { identity, placed, toPrune, workStatus } from './works.js';

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
