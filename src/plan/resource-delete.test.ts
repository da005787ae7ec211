import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import type { Pipeline, PromiseObject, ResourceObject, Work, Workflow, WorkflowRun } from '../api/types.js';
import {
  FINALIZER_DELETE_WORKFLOW,
  FINALIZER_WORKS_CLEANUP,
  LABEL_DELETE_ATTEMPT,
  LABEL_MANUAL_RECONCILIATION,
  LABEL_SUSPENDED,
  LABEL_WORKFLOW_ROUND,
  LABEL_WORKFLOW_TYPE,
} from '../labels.js';
import type { ResourceAction, ResourceObserved, ResourcePlan } from './resource.js';
import { planResourceDeletion } from './resource-delete.js';

const pipeline = (name: string): Pipeline => ({
  apiVersion: 'kruntimes.io/v1alpha1',
  kind: 'Pipeline',
  metadata: { name },
  spec: {
    jobs: { main: { 'runs-on': 'bash', steps: [{ name: 'go', run: 'echo ${{ resource.spec.size }}' }] } },
  },
});

const promise = (backoff = 1, withDelete = true): PromiseObject => ({
  apiVersion: 'kruntimes.io/v1alpha1',
  kind: 'Promise',
  metadata: { name: 'db' },
  spec: {
    api: {},
    workflows: {
      resource: {
        configure: [pipeline('a')],
        ...(withDelete ? { delete: [pipeline('bye')] } : {}),
        deleteBackoffLimit: backoff,
      },
    },
  },
});

const resource = (
  extra: Partial<ResourceObject['metadata']> = {},
  status?: ResourceObject['status'],
): ResourceObject => ({
  apiVersion: 'test/v1',
  kind: 'Database',
  metadata: {
    name: 'orders',
    namespace: 'team',
    uid: 'u-1',
    generation: 3,
    deletionTimestamp: new Date('2026-01-01T00:00:00Z') as never,
    finalizers: [FINALIZER_DELETE_WORKFLOW, FINALIZER_WORKS_CLEANUP],
    ...extra,
  },
  spec: { size: 'small' },
  ...(status ? { status } : {}),
});

const work = (name: string): Work => ({
  apiVersion: 'kruntimes.io/v1alpha1',
  kind: 'Work',
  metadata: { name, namespace: 'team' },
  spec: { pipeline: 'a' },
});

function observe(o: Partial<ResourceObserved> = {}): ResourceObserved {
  return {
    resource: resource(),
    promise: promise(),
    runs: [],
    works: [],
    filesOf: () => ({}),
    now: new Date('2026-01-01T00:01:00Z'),
    ...o,
  };
}

const creates = (p: ResourcePlan) =>
  p.actions.filter((a): a is Extract<ResourceAction, { type: 'createRun' }> => a.type === 'createRun');
const condition = (p: ResourcePlan) => p.status.conditions?.find((c) => c.type === 'DeleteWorkflowCompleted');
const ran = (r: WorkflowRun, phase: string, extra: object = {}): WorkflowRun => ({
  ...r,
  status: { phase: phase as never, ...extra },
});
const next = (r: ResourceObject, p: ResourcePlan): ResourceObject => {
  const labels = { ...(r.metadata.labels ?? {}) };
  for (const a of p.actions)
    if (a.type === 'setLabels')
      for (const [k, v] of Object.entries(a.labels)) {
        if (v === null) delete labels[k];
        else labels[k] = v;
      }
  return { ...r, metadata: { ...r.metadata, labels }, status: p.status };
};

describe('planResourceDeletion', () => {
  it('waits for a running configure pipeline; cancels a suspended one', () => {
    const configure = (phase: string): WorkflowRun => ({
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'WorkflowRun',
      metadata: {
        name: 'orders-a-1',
        labels: { [LABEL_WORKFLOW_TYPE]: 'configure', [LABEL_WORKFLOW_ROUND]: '1' },
      },
      spec: { jobs: {} },
      status: { phase: phase as never },
    });
    const waiting = planResourceDeletion(observe({ runs: [configure('Running')] }));
    expect(waiting.actions).toEqual([]);
    expect(condition(waiting)).toMatchObject({ status: 'False', reason: 'WaitingForConfigure' });
    const held = planResourceDeletion(observe({ runs: [configure('Suspended')] }));
    expect(held.actions).toContainEqual({ type: 'cancelRun', name: 'orders-a-1' });
    expect(creates(held)).toHaveLength(1);
  });

  it('runs the delete pipeline with the resource; says so in a condition and the message', () => {
    const plan = planResourceDeletion(observe());
    const run = creates(plan)[0]?.run as WorkflowRun;
    expect(run.metadata.labels).toMatchObject({
      [LABEL_WORKFLOW_TYPE]: 'delete',
      [LABEL_DELETE_ATTEMPT]: '1',
    });
    expect(run.spec.jobs.main?.steps?.[0]?.run).toBe('echo small');
    expect(parse(run.spec.inputFiles?.['object.yaml'] ?? '')).toMatchObject({ metadata: { name: 'orders' } });
    expect(condition(plan)).toMatchObject({ status: 'False', reason: 'DeleteWorkflowRunning' });
    expect(plan.status.message).toBe('delete pipeline "bye" is running');
    expect(plan.actions.some((a) => a.type === 'setFinalizers' || a.type === 'deleteWork')).toBe(false);
  });

  it('retries a failed delete pipeline up to deleteBackoffLimit, then holds with a Warning until a change', () => {
    let r = resource();
    const p1 = planResourceDeletion(observe({ resource: r }));
    r = next(r, p1);
    const first = ran(creates(p1)[0]?.run as WorkflowRun, 'Failed', { message: 'exit 1' });
    const p2 = planResourceDeletion(observe({ resource: r, runs: [first] }));
    expect(creates(p2).map((c) => c.run.metadata.labels?.[LABEL_DELETE_ATTEMPT])).toEqual(['2']);
    r = next(r, p2);
    const second = ran(creates(p2)[0]?.run as WorkflowRun, 'Failed', { message: 'exit 1' });
    const p3 = planResourceDeletion(observe({ resource: r, runs: [first, second] }));
    expect(creates(p3)).toHaveLength(0);
    expect(condition(p3)).toMatchObject({ status: 'False', reason: 'DeleteWorkflowFailed' });
    expect(p3.actions).toContainEqual(
      expect.objectContaining({ eventType: 'Warning', reason: 'DeleteWorkflowFailed' }),
    );
    r = next(r, p3);
    // Held: no new attempt, no second Warning.
    const p4 = planResourceDeletion(observe({ resource: r, runs: [first, second] }));
    expect(p4.actions).toEqual([]);
    // A change of the resource starts a new round.
    const changed = { ...r, spec: { size: 'large' } };
    const p5 = planResourceDeletion(observe({ resource: changed, runs: [first, second] }));
    expect(
      creates(p5).map((c) => [
        c.run.metadata.labels?.[LABEL_WORKFLOW_ROUND],
        c.run.spec.jobs.main?.steps?.[0]?.run,
      ]),
    ).toEqual([['2', 'echo large']]);
    // So does the manual-reconciliation label, which is removed.
    const manual = { ...r, metadata: { ...r.metadata, labels: { [LABEL_MANUAL_RECONCILIATION]: 'true' } } };
    const p6 = planResourceDeletion(observe({ resource: manual, runs: [first, second] }));
    expect(creates(p6)).toHaveLength(1);
    expect(p6.actions[0]).toEqual({ type: 'setLabels', labels: { [LABEL_MANUAL_RECONCILIATION]: null } });
  });

  it('suspended: Works stay, the label goes on; removing it resumes the delete pipeline', () => {
    let r = resource();
    const p1 = planResourceDeletion(observe({ resource: r, works: [work('w')] }));
    r = next(r, p1);
    const created = creates(p1)[0]?.run as WorkflowRun;
    const held = ran(
      {
        ...created,
        metadata: { ...created.metadata, labels: { ...created.metadata.labels, [LABEL_SUSPENDED]: 'true' } },
      },
      'Suspended',
      { jobs: { main: { phase: 'Suspended', message: 'approve first' } } },
    );
    const p2 = planResourceDeletion(observe({ resource: r, runs: [held], works: [work('w')] }));
    expect(p2.actions[0]).toEqual({ type: 'setLabels', labels: { [LABEL_SUSPENDED]: 'true' } });
    expect(condition(p2)).toMatchObject({
      status: 'False',
      reason: 'DeleteWorkflowSuspended',
      message: 'approve first',
    });
    expect(p2.actions.some((a) => a.type === 'deleteWork')).toBe(false);
    r = next(r, p2);
    const unlabelled = { ...r, metadata: { ...r.metadata, labels: {} } };
    const p3 = planResourceDeletion(observe({ resource: unlabelled, runs: [held], works: [work('w')] }));
    expect(p3.actions).toContainEqual({ type: 'resumeRun', name: held.metadata.name });
  });

  it('after the delete pipeline succeeds: the Works go, then the finalizers come off', () => {
    let r = resource();
    const p1 = planResourceDeletion(observe({ resource: r }));
    r = next(r, p1);
    const done = ran(creates(p1)[0]?.run as WorkflowRun, 'Succeeded');
    const p2 = planResourceDeletion(observe({ resource: r, runs: [done], works: [work('w1'), work('w2')] }));
    expect(p2.actions.filter((a) => a.type === 'deleteWork')).toEqual([
      { type: 'deleteWork', name: 'w1' },
      { type: 'deleteWork', name: 'w2' },
    ]);
    expect(p2.actions.some((a) => a.type === 'setFinalizers')).toBe(false);
    const p3 = planResourceDeletion(observe({ resource: next(r, p2), runs: [done], works: [] }));
    expect(p3.actions).toEqual([{ type: 'setFinalizers', finalizers: [] }]);
  });

  it('without a delete pipeline, the Works still go before the resource', () => {
    const r = resource({ finalizers: [FINALIZER_WORKS_CLEANUP, 'other.io/keep'] });
    const p1 = planResourceDeletion(observe({ resource: r, promise: promise(1, false), works: [work('w')] }));
    expect(creates(p1)).toHaveLength(0);
    expect(p1.actions).toEqual([{ type: 'deleteWork', name: 'w' }]);
    const p2 = planResourceDeletion(observe({ resource: r, promise: promise(1, false) }));
    expect(p2.actions).toEqual([{ type: 'setFinalizers', finalizers: ['other.io/keep'] }]);
  });

  it('after a restart that lost the status write, the latest delete run is adopted, not repeated', () => {
    const p1 = planResourceDeletion(observe());
    const run = ran(creates(p1)[0]?.run as WorkflowRun, 'Running');
    const again = planResourceDeletion(observe({ runs: [run] }));
    expect(creates(again)).toHaveLength(0);
    expect(again.status.kruntimes?.delete).toMatchObject({ round: 1, attempt: 1, phase: 'Running' });
  });

  it('in a namespace being deleted, the delete pipeline is skipped with a Warning and the teardown goes on', () => {
    const plan = planResourceDeletion(observe({ namespaceTerminating: true, works: [work('w')] }));
    expect(creates(plan)).toHaveLength(0);
    expect(plan.actions).toContainEqual(
      expect.objectContaining({ eventType: 'Warning', reason: 'DeleteWorkflowSkipped' }),
    );
    expect(plan.actions).toContainEqual({ type: 'deleteWork', name: 'w' });
    expect(condition(plan)).toMatchObject({ status: 'False', reason: 'DeleteWorkflowSkipped' });
    // Recorded as skipped: the next pass goes on without trying again.
    const after = planResourceDeletion(observe({ resource: next(resource(), plan) }));
    expect(after.actions).toEqual([{ type: 'setFinalizers', finalizers: [] }]);
  });

  it('names the Workflow its delete pipeline missed, so the caller confirms it with the API server', () => {
    const p = promise();
    p.spec.workflowNamespace = 'platform';
    p.spec.workflows = {
      resource: {
        configure: [pipeline('a')],
        delete: [
          {
            apiVersion: 'kruntimes.io/v1alpha1',
            kind: 'Pipeline',
            metadata: { name: 'bye' },
            spec: { uses: 'teardown' },
          },
        ],
      },
    };
    const teardown: Workflow = {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'Workflow',
      metadata: { name: 'teardown', namespace: 'platform' },
      spec: { jobs: { go: { 'runs-on': 'bash', steps: [{ name: 's', run: 'true' }] } } },
    };
    const missed = planResourceDeletion(observe({ promise: p, workflow: () => undefined }));
    expect(missed.status.message).toContain('Workflow "teardown" not found in namespace "platform"');
    expect(missed.missingWorkflows).toEqual([{ namespace: 'platform', name: 'teardown' }]);
    const found = planResourceDeletion(
      observe({
        promise: p,
        workflow: (ns, n) => (ns === 'platform' && n === 'teardown' ? teardown : undefined),
      }),
    );
    expect(found.missingWorkflows).toBeUndefined();
    expect(creates(found)[0]?.run.spec.jobs.go?.steps?.[0]?.run).toBe('true');
  });
});
