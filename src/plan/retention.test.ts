import type { WorkflowRun } from '../api/types.js';
import { planWorkflowRun, settled, workflowRunAsObserved } from './workflowrun.js';
import { sharedValues } from './shared-values.testing.js';

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
        spec: { runtime: 'bash' },
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

describe('a settled run (ended, for its generation)', () => {
  const settledRun = (ttl?: number, owned = false): WorkflowRun => {
    const run = done(ttl, owned);
    return { ...run, status: { ...run.status, observedGeneration: 1 } };
  };
  const bare = (run: WorkflowRun, nowMs: number) =>
    planWorkflowRun({ run, runs: [], children: [], workflow: () => undefined, now: new Date(T0 + nowMs) });

  it('is planned for its retention alone: no snapshot, Runs or children needed, its status kept', () => {
    const run = settledRun(60);
    expect(settled(run)).toBe(true);
    expect(bare(run, 1000)).toEqual({ status: run.status, actions: [], requeueAfter: 59_000 });
    expect(bare(run, 60_000)).toEqual({ status: run.status, actions: [{ type: 'deleteWorkflowRun' }] });
  });

  it('is not settled while running, without finishedAt, or for an older generation', () => {
    const run = settledRun();
    expect(settled({ ...run, status: { ...run.status, phase: 'Running' } })).toBe(false);
    expect(settled({ ...run, status: { ...run.status, finishedAt: undefined } })).toBe(false);
    expect(settled({ ...run, metadata: { ...run.metadata, generation: 2 } })).toBe(false);
    // Unsettled, a missing snapshot is made again, as for any run.
    expect(bare(done(), 0).actions).toMatchObject([{ type: 'createSnapshot' }]);
  });

  it('is cached without its steps and input files; a run not settled is cached whole', () => {
    const run = settledRun(60);
    const big: WorkflowRun = {
      ...run,
      metadata: { ...run.metadata, managedFields: [{ manager: 'm' }] },
      spec: {
        ...run.spec,
        jobs: { ...run.spec.jobs, b: { needs: ['a'], uses: 'lib' } as WorkflowRun['spec']['jobs'][string] },
        inputFiles: { 'object.yaml': 'x'.repeat(10_000) },
        cancelRequested: false,
      },
    };
    const cached = workflowRunAsObserved(big);
    expect(cached.spec).toEqual({
      jobs: { a: {}, b: { needs: ['a'], uses: 'lib' } },
      cancelRequested: false,
      ttlSecondsAfterFinished: 60,
    });
    expect(cached.metadata.managedFields).toBeUndefined();
    expect(bare(cached, 60_000).actions).toEqual([{ type: 'deleteWorkflowRun' }]);
    const running = { ...big, status: { ...big.status, phase: 'Running' as const } };
    expect(workflowRunAsObserved(running)).toEqual({ ...running, metadata: cached.metadata });
  });

  it('is cached with what its caller, resource, Promise pipeline and retention read of its status', () => {
    const at = new Date(T0).toISOString();
    const run = settledRun(60, true);
    const full: WorkflowRun = {
      ...run,
      status: {
        phase: 'Failed',
        progress: '2/2',
        snapshotName: 'r-u',
        startedAt: at,
        finishedAt: at,
        observedGeneration: 1,
        message: 'job "b" failed',
        outputs: { o: '1' },
        stepStatus: { ready: true },
        conditions: [{ type: 'Succeeded', status: 'False', reason: 'Failed', lastTransitionTime: at }],
        jobs: {
          a: {
            phase: 'Succeeded',
            attempts: 1,
            startedAt: at,
            finishedAt: at,
            outputs: { x: 'y' },
            steps: [
              { name: 'skipped', phase: 'Succeeded' },
              { name: 's', phase: 'Succeeded', runName: 'r-a-s', outputs: { k: 'v' } },
            ],
          },
          b: { phase: 'Failed', workflowRunName: 'r-b', message: 'no', startedAt: at, finishedAt: at },
        },
      },
    };
    const cached = workflowRunAsObserved(full);
    expect(cached.status).toEqual({
      phase: 'Failed',
      finishedAt: at,
      observedGeneration: 1,
      message: 'job "b" failed',
      outputs: { o: '1' },
      stepStatus: { ready: true },
      jobs: {
        a: { phase: 'Succeeded', attempts: 1, outputs: { x: 'y' }, steps: [{}, { runName: 'r-a-s' }] },
        b: { phase: 'Failed' },
      },
    });
    // Still settled as cached, and planned again it keeps this status: nothing is written from it.
    expect(settled(cached)).toBe(true);
    expect(bare(cached, 1000)).toEqual({ status: cached.status, actions: [] });

    // A root run has neither caller nor resource: only its retention reads it.
    const root = workflowRunAsObserved({
      ...full,
      metadata: { ...full.metadata, ownerReferences: undefined, creationTimestamp: new Date(T0) },
    });
    expect(root.status).toEqual({
      phase: 'Failed',
      finishedAt: at,
      observedGeneration: 1,
      message: 'job "b" failed',
    });
    expect(root.metadata).toEqual({ name: 'r', namespace: 'ns', uid: 'u', generation: 1 });
    expect(settled(root)).toBe(true);
    expect(bare(root, 1000)).toEqual({ status: root.status, actions: [], requeueAfter: 59_000 });
    expect(bare(root, 60_000).actions).toEqual([{ type: 'deleteWorkflowRun' }]);
  });

  it('shares the spec of settled runs of one workflow, their own parts stay their own', () => {
    const values = sharedValues();
    const run = settledRun(60);
    const other = { ...run, metadata: { ...run.metadata, name: 'r2', uid: 'u2' } };
    const a = workflowRunAsObserved(run, values);
    const b = workflowRunAsObserved(other, values);
    expect(b.spec).toBe(a.spec);
    expect(b.metadata).toEqual(other.metadata);
    expect(b).toEqual(workflowRunAsObserved(other));
    // The copy is its own, not the object the watch brought.
    expect(a.status).not.toBe(run.status);
    // A run not settled is its own, spec included.
    const running = { ...run, status: { ...run.status, phase: 'Running' as const } };
    expect(workflowRunAsObserved(running, values).spec).toBe(running.spec);
  });
});
