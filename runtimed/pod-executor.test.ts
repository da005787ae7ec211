import { describe, expect, it } from '@jest/globals';
import type { Run } from '../src/api/types.js';
import { stepPod } from '../src/runtime/pod.js';
import { runsPod } from './pod-executor.js';

const run = {
  apiVersion: 'kruntimes.io/v1alpha1',
  kind: 'Run',
  metadata: { name: 'r', namespace: 'ns', uid: 'run-uid' },
  spec: { runtime: 'kubernetes', container: { image: 'busybox' }, script: 'true' },
} as unknown as Run;

describe('which Pod is a Run’s to adopt', () => {
  const own = stepPod(run, { helperImage: 'helper', graceSeconds: 5 }) as { metadata: object };
  it('the Pod it would make: its label and its controller reference name the Run', () => {
    expect(runsPod(own as never, run)).toBe(true);
  });
  it('not one that only carries the label, which anyone who may create Pods can write', () => {
    const forged = { ...own, metadata: { ...own.metadata, ownerReferences: [] } };
    expect(runsPod(forged as never, run)).toBe(false);
    const another = { ...own, metadata: { ...own.metadata, labels: { 'kruntimes.io/run-uid': 'other' } } };
    expect(runsPod(another as never, run)).toBe(false);
  });
});
