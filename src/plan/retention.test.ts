import type { WorkflowRun } from '../api/types.js';
import { planWorkflowRun } from './workflowrun.js';

const T0 = Date.parse('2026-12-03T10:00:00Z');
const done = (ttl?: number, owned = false): WorkflowRun => ({
  apiVersion: 'kruntimes.io/v1alpha1',
  kind: 'WorkflowRun',
  metadata: {
    name: 'r',
    namespace: 'ns',
    uid: 'u',
    generation: 1,
    ...(owned
      ? {
          ownerReferences: [
            { apiVersion: 'kruntimes.io/v1alpha1', kind: 'WorkflowRun', name: 'p', uid: 'p' },
          ],
        }
      : {}),
  },
  spec: {
    jobs: { a: { 'runs-on': 'bash', steps: [{ name: 's', run: 'true' }] } },
    ...(ttl !== undefined ? { ttlSecondsAfterFinished: ttl } : {}),
  },
  status: {
    phase: 'Succeeded',
    finishedAt: new Date(T0).toISOString(),
    jobs: { a: { phase: 'Succeeded', attempts: 1 } },
  },
});
const plan = (run: WorkflowRun, nowMs: number, defaultTtlSeconds?: number) =>
  planWorkflowRun({
    run,
    snapshot: run.spec,
    runs: [
      {
        apiVersion: 'kruntimes.io/v1alpha1',
        kind: 'Run',
        metadata: { name: 'r-a-s', namespace: 'ns' },
        spec: { runtime: 'bash', script: 'true' },
        status: { phase: 'Succeeded' },
      },
    ],
    children: [],
    workflow: () => undefined,
    defaultTtlSeconds,
    now: new Date(T0 + nowMs),
  });

describe('retention of finished runs', () => {
  it('deletes a root run once its ttlSecondsAfterFinished has passed, and wakes up for it before', () => {
    expect(plan(done(60), 59_000)).toMatchObject({ actions: [], requeueAfter: 1000 });
    expect(plan(done(60), 60_000).actions).toEqual([{ type: 'deleteWorkflowRun' }]);
  });

  it('uses the controller default when the spec says nothing, its own value when it does (0 too)', () => {
    expect(plan(done(), 10_000, 3600).requeueAfter).toBe(3_590_000);
    expect(plan(done(0), 0, 3600).actions).toEqual([{ type: 'deleteWorkflowRun' }]);
    expect(plan(done(), 10_000)).toMatchObject({ actions: [] });
    expect(plan(done(), 10_000).requeueAfter).toBeUndefined();
  });

  it('wakes up at most a day ahead, and never deletes a child run (it goes with its root)', () => {
    expect(plan(done(7 * 86_400), 0).requeueAfter).toBe(86_400_000);
    expect(plan(done(0, true), 10_000).actions).toEqual([]);
  });
});
