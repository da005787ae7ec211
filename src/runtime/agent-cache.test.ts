import { describe, expect, it } from '@jest/globals';
import type { Run } from '../api/types.js';
import { podAsCached, runAsCached } from './agent-cache.js';

const run = (status: NonNullable<Run['status']>): Run =>
  ({
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'Run',
    metadata: { name: 'r', namespace: 'ns', uid: 'u', managedFields: [{ manager: 'x' }] },
    spec: {
      runtime: 'bash',
      script: 'echo secret-ish',
      env: [{ name: 'A', value: 'b' }],
      inputFiles: { 'a.yaml': 'x'.repeat(1000) },
      cancelRequested: true,
    },
    status,
  }) as unknown as Run;

describe('runAsCached', () => {
  it('keeps a Run that has not ended whole, but for its managed fields: it may still be claimed', () => {
    const r = run({ phase: 'Pending', attempts: 1 });
    expect(runAsCached(r)).toEqual({ ...r, metadata: { name: 'r', namespace: 'ns', uid: 'u' } });
  });

  it('keeps of an ended Run what is looked up: who held it, its attempts, times and phase', () => {
    const ended = run({
      phase: 'Succeeded',
      assignedTo: 'agent-a',
      attempts: 2,
      startTime: '2026-12-01T10:00:00Z',
      heartbeatTime: '2026-12-01T10:00:05Z',
      completionTime: '2026-12-01T10:00:09Z',
      reason: 'Succeeded',
      outputs: { a: 'b' },
      logTail: 'x'.repeat(4096),
      outputFiles: { 'o.yaml': 'y'.repeat(1000) },
    } as NonNullable<Run['status']>);
    expect(runAsCached(ended)).toEqual({
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'Run',
      metadata: { name: 'r', namespace: 'ns', uid: 'u' },
      spec: { runtime: 'bash', cancelRequested: true },
      status: {
        phase: 'Succeeded',
        assignedTo: 'agent-a',
        attempts: 2,
        startTime: '2026-12-01T10:00:00Z',
        heartbeatTime: '2026-12-01T10:00:05Z',
        completionTime: '2026-12-01T10:00:09Z',
        reason: 'Succeeded',
      },
    });
  });
});

describe('podAsCached', () => {
  it('keeps what the outcome is read from, not the containers’ env', () => {
    const pod = {
      metadata: {
        name: 'p',
        uid: 'u',
        ownerReferences: [{ uid: 'r', controller: true }],
        managedFields: [{}],
      },
      spec: {
        initContainers: [{ name: 'prepare', image: 'k', env: [{ name: 'KRT_PREPARE_FILES', value: 'big' }] }],
        containers: [{ name: 'report', image: 'k', args: ['report'] }],
      },
      status: { phase: 'Running', containerStatuses: [{ name: 'report', state: { running: {} } }] },
    };
    expect(podAsCached(pod)).toEqual({
      metadata: { name: 'p', uid: 'u', ownerReferences: [{ uid: 'r', controller: true }] },
      spec: {
        initContainers: [{ name: 'prepare', image: 'k' }],
        containers: [{ name: 'report', image: 'k' }],
      },
      status: pod.status,
    });
  });
});
