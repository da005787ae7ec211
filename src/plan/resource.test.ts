import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import type { Work, Pipeline, PromiseObject, ResourceObject, Workflow, WorkflowRun } from '../api/types.js';
import {
  LABEL_MANUAL_RECONCILIATION,
  LABEL_PAUSED,
  LABEL_PIPELINE,
  LABEL_PIPELINE_ATTEMPT,
  LABEL_SUSPENDED,
  LABEL_WORKFLOW_HASH,
  LABEL_WORKFLOW_ROUND,
} from '../labels.js';
import type { Files } from '../promise/files.js';
import { workflowHash } from '../promise/pipeline.js';
import { planResourceWorkflow as planner, type ResourceAction, type ResourceObserved } from './resource.js';
import { frozen } from './frozen.testing.js';

/** The planner, given its input frozen: one that changed what it was given would throw. */
const planResourceWorkflow = (o: ResourceObserved) => planner(frozen(o));

const pipeline = (name: string, run = 'echo hi'): Pipeline => ({
  apiVersion: 'kruntimes.io/v1alpha1',
  kind: 'Pipeline',
  metadata: { name },
  spec: { jobs: { main: { 'runs-on': 'bash', steps: [{ name: 'go', run }] } } },
});

const promise = (extra: Partial<PromiseObject['spec']> = {}): PromiseObject => ({
  apiVersion: 'kruntimes.io/v1alpha1',
  kind: 'Promise',
  metadata: { name: 'db' },
  spec: {
    api: { kind: 'CustomResourceDefinition' },
    workflows: { resource: { configure: [pipeline('a', 'echo ${{ resource.spec.size }}'), pipeline('b')] } },
    ...extra,
  },
});

const resource = (over: Partial<ResourceObject> = {}): ResourceObject => ({
  apiVersion: 'test.kruntimes.dev/v1',
  kind: 'Database',
  metadata: { name: 'orders', namespace: 'team', uid: 'u-1', generation: 1, ...over.metadata },
  spec: { size: 'small' },
  ...(over.status ? { status: over.status } : {}),
});

const T0 = new Date('2026-01-01T00:00:00Z');
const later = (ms: number) => new Date(T0.getTime() + ms);

function observe(o: Partial<ResourceObserved> = {}): ResourceObserved {
  return {
    resource: resource(),
    promise: promise(),
    runs: [],
    works: [],
    filesOf: () => ({}),
    now: T0,
    ...o,
  };
}

const creates = (actions: ResourceAction[]) =>
  actions.filter((a): a is Extract<ResourceAction, { type: 'createRun' }> => a.type === 'createRun');

/** The run the plan created, as the API server would return it later with `phase`. */
function ran(
  run: WorkflowRun,
  phase: string,
  extra: Partial<NonNullable<WorkflowRun['status']>> = {},
): WorkflowRun {
  return {
    ...run,
    metadata: { ...run.metadata, creationTimestamp: T0 as never },
    status: { phase: phase as never, ...extra },
  };
}

/** Applies a plan's status and labels to the resource, as the controller does. */
function applied(r: ResourceObject, plan: ReturnType<typeof planResourceWorkflow>): ResourceObject {
  const labels = { ...(r.metadata.labels ?? {}) };
  let finalizers = r.metadata.finalizers;
  for (const a of plan.actions) if (a.type === 'setFinalizers') finalizers = a.finalizers;
  for (const a of plan.actions)
    if (a.type === 'setLabels')
      for (const [k, v] of Object.entries(a.labels)) {
        if (v === null) delete labels[k];
        else labels[k] = v;
      }
  return {
    ...r,
    metadata: { ...r.metadata, labels, ...(finalizers ? { finalizers } : {}) },
    status: plan.status,
  };
}

describe('planResourceWorkflow', () => {
  it('a new resource starts round 1 with the first pipeline only, the resource as data and its generation', () => {
    const plan = planResourceWorkflow(observe());
    const [c, ...rest] = creates(plan.actions);
    expect(rest).toHaveLength(0);
    expect(c?.pipeline).toBe('a');
    const run = c?.run as WorkflowRun;
    expect(run.metadata.labels?.[LABEL_WORKFLOW_ROUND]).toBe('1');
    expect(run.metadata.ownerReferences?.[0]).toMatchObject({
      kind: 'Database',
      uid: 'u-1',
      controller: true,
    });
    const step = run.spec.jobs.main?.steps?.[0];
    expect(step?.run).toBe('echo small');
    expect(step?.env?.KRT_OBSERVED_GENERATION).toBe('1');
    expect(parse(run.spec.inputFiles?.['object.yaml'] ?? '')).toMatchObject({ spec: { size: 'small' } });
    expect(plan.status.kruntimes?.workflows).toMatchObject({
      round: 1,
      phase: 'Running',
      pipelines: [
        { name: 'a', phase: 'Running' },
        { name: 'b', phase: 'Pending' },
      ],
    });
    expect(plan.status.conditions?.find((x) => x.type === 'ConfigureWorkflowCompleted')?.reason).toBe(
      'PipelinesInProgress',
    );
    expect(plan.actions).toContainEqual(
      expect.objectContaining({ type: 'event', reason: 'PipelineStarted' }),
    );
  });

  it('a cluster-scoped resource runs its pipelines and keeps its Works in the workflowNamespace', () => {
    const r = resource();
    delete r.metadata.namespace;
    const p = promise({ workflowNamespace: 'platform' });
    const run = creates(planResourceWorkflow(observe({ resource: r, promise: p })).actions)[0]?.run;
    expect(run?.metadata.namespace).toBe('platform');
    expect(run?.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Database', name: 'orders' });
    const done = ran(run as WorkflowRun, 'Succeeded');
    const files: Files = { 'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n' };
    const next = planResourceWorkflow(
      observe({ resource: r, promise: p, runs: [done], filesOf: () => files }),
    );
    const work = next.actions.find((x) => x.type === 'writeWork');
    expect(work).toMatchObject({ work: { metadata: { namespace: 'platform' } } });
  });

  it('a resource value holding ${{ }} stays data in the rendered run', () => {
    const r = resource();
    r.spec = { size: '${{ jobs.x.outputs.y }}' };
    const run = creates(planResourceWorkflow(observe({ resource: r })).actions)[0]?.run;
    expect(run?.spec.jobs.main?.steps?.[0]?.run).toBe("echo ${{ '${{ jobs.x.outputs.y }}' }}");
  });

  it('runs pipelines one after another; the next reads what the earlier wrote; then succeeds with Works', () => {
    let r = resource();
    const p1 = planResourceWorkflow(observe({ resource: r }));
    r = applied(r, p1);
    const a = ran(creates(p1.actions)[0]?.run as WorkflowRun, 'Succeeded', {
      message: 'from status.yaml',
      stepStatus: { url: 'x' },
    });
    const files: Files = { 'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n' };
    const p2 = planResourceWorkflow(
      observe({ resource: r, runs: [a], filesOf: (w) => (w.metadata.name === a.metadata.name ? files : {}) }),
    );
    const b = creates(p2.actions)[0]?.run as WorkflowRun;
    expect(b.metadata.labels?.[LABEL_PIPELINE]).toBe('b');
    expect(b.spec.inputFiles?.['a/cm.yaml']).toBe(files['cm.yaml']);
    const work = p2.actions.find((x) => x.type === 'writeWork');
    expect(work).toMatchObject({ work: { spec: { pipeline: 'a', objects: [{ kind: 'ConfigMap' }] } } });
    r = applied(r, p2);
    const p3 = planResourceWorkflow(
      observe({
        resource: r,
        runs: [a, ran(b, 'Succeeded')],
        filesOf: (w) => (w.metadata.name === a.metadata.name ? files : {}),
        now: later(1000),
      }),
    );
    expect(creates(p3.actions)).toHaveLength(0);
    expect(p3.status.kruntimes?.workflows?.phase).toBe('Succeeded');
    expect(p3.status.message).toBe('from status.yaml');
    expect((p3.status as Record<string, unknown>).url).toBe('x');
    expect(p3.status.conditions?.find((c) => c.type === 'ConfigureWorkflowCompleted')).toMatchObject({
      status: 'True',
      reason: 'PipelinesExecutedSuccessfully',
    });
    expect(p3.requeueAfter).toBe(10 * 60 * 60 * 1000);
  });

  it('a failed pipeline halts the workflow: no later pipeline, the condition says which and why', () => {
    let r = resource();
    const p1 = planResourceWorkflow(observe({ resource: r }));
    r = applied(r, p1);
    const a = ran(creates(p1.actions)[0]?.run as WorkflowRun, 'Failed', {
      message: 'job "main" failed: exit 3',
    });
    const p2 = planResourceWorkflow(observe({ resource: r, runs: [a] }));
    expect(creates(p2.actions)).toHaveLength(0);
    expect(p2.status.conditions?.find((c) => c.type === 'ConfigureWorkflowCompleted')).toMatchObject({
      status: 'False',
      reason: 'ConfigureWorkflowFailed',
      message: 'pipeline "a" failed: job "main" failed: exit 3',
    });
    expect(p2.actions).toContainEqual(
      expect.objectContaining({ reason: 'PipelineFailed', eventType: 'Warning' }),
    );
    // Nothing new happens until someone asks.
    const again = planResourceWorkflow(observe({ resource: applied(r, p2), runs: [a], now: later(60_000) }));
    expect(creates(again.actions)).toHaveLength(0);
    // Manual reconciliation starts again from the first pipeline and removes the label.
    const manual = applied(r, p2);
    manual.metadata.labels = { [LABEL_MANUAL_RECONCILIATION]: 'true' };
    const p3 = planResourceWorkflow(observe({ resource: manual, runs: [a] }));
    expect(
      creates(p3.actions).map((c) => [c.pipeline, c.run.metadata.labels?.[LABEL_WORKFLOW_ROUND]]),
    ).toEqual([['a', '2']]);
    expect(p3.actions[0]).toEqual({ type: 'setLabels', labels: { [LABEL_MANUAL_RECONCILIATION]: null } });
  });

  it('an update while a pipeline runs waits for it to end, then restarts from the first pipeline once', () => {
    let r = resource();
    const p1 = planResourceWorkflow(observe({ resource: r }));
    r = applied(r, p1);
    const a = ran(creates(p1.actions)[0]?.run as WorkflowRun, 'Running');
    r = { ...r, metadata: { ...r.metadata, generation: 2 }, spec: { size: 'large' } };
    const waiting = planResourceWorkflow(observe({ resource: r, runs: [a] }));
    expect(creates(waiting.actions)).toHaveLength(0);
    expect(waiting.status.message).toBe('a new reconciliation waits for pipeline "a" to end');
    const done = ran(a, 'Succeeded');
    const p2 = planResourceWorkflow(observe({ resource: applied(r, waiting), runs: [done] }));
    const started = creates(p2.actions);
    expect(started.map((c) => [c.pipeline, c.run.metadata.labels?.[LABEL_WORKFLOW_ROUND]])).toEqual([
      ['a', '2'],
    ]);
    expect(started[0]?.run.spec.jobs.main?.steps?.[0]?.env?.KRT_OBSERVED_GENERATION).toBe('2');
    expect(started[0]?.run.spec.jobs.main?.steps?.[0]?.run).toBe('echo large');
    expect(p2.status.observedGeneration).toBe(2);
  });

  it("merges what pipelines wrote to status.yaml as a nested document, their conditions beside the controller's", () => {
    let r = resource();
    r.status = {
      conditions: [
        {
          type: 'Backup',
          status: 'True',
          reason: 'Scheduled',
          message: '',
          lastTransitionTime: T0.toISOString(),
        },
      ],
    };
    const p1 = planResourceWorkflow(observe({ resource: r }));
    r = applied(r, p1);
    const a = ran(creates(p1.actions)[0]?.run as WorkflowRun, 'Succeeded', {
      stepStatus: {
        endpoint: { host: 'db', port: 5432 },
        tier: 'gold',
        conditions: [
          { type: 'DatabaseReady', status: 'True', reason: 'Provisioned' },
          { type: 'Ready', status: 'True', reason: 'SaysThePipeline' },
        ],
      },
    });
    const p2 = planResourceWorkflow(observe({ resource: r, runs: [a] }));
    const b = creates(p2.actions)[0]?.run as WorkflowRun;
    expect(b.metadata.labels?.[LABEL_PIPELINE]).toBe('b');
    r = applied(r, p2);
    const done = ran(b, 'Succeeded', {
      stepStatus: {
        endpoint: { host: 'db-2' },
        conditions: [{ type: 'DatabaseReady', status: 'False', reason: 'Degraded', message: 'one replica' }],
      },
    });
    const p3 = planResourceWorkflow(observe({ resource: r, runs: [a, done], now: later(1000) }));
    // Top-level keys merge, a later pipeline's value winning whole.
    expect(p3.status.endpoint).toEqual({ host: 'db-2' });
    expect(p3.status.tier).toBe('gold');
    const conditions = p3.status.conditions ?? [];
    expect(conditions.map((c) => c.type)).toEqual([
      'ConfigureWorkflowCompleted',
      'WorksSucceeded',
      'Reconciled',
      'Ready',
      'Backup',
      'DatabaseReady',
    ]);
    expect(conditions.find((c) => c.type === 'DatabaseReady')).toMatchObject({
      status: 'False',
      reason: 'Degraded',
      message: 'one replica',
      observedGeneration: 1,
      lastTransitionTime: later(1000).toISOString(),
    });
    // The controller's Ready wins over the one a pipeline wrote.
    expect(conditions.find((c) => c.type === 'Ready')?.reason).not.toBe('SaysThePipeline');
    // A condition no pipeline writes again is kept as it was.
    expect(conditions.find((c) => c.type === 'Backup')).toEqual(
      r.status?.conditions?.find((c) => c.type === 'Backup'),
    );
  });

  it('suspended: kubectl get shows what the pipeline wrote to status.yaml, describe the control message', () => {
    const p1 = planResourceWorkflow(observe());
    const created = creates(p1.actions)[0]?.run as WorkflowRun;
    const held = ran(created, 'Suspended', {
      jobs: { main: { phase: 'Suspended', message: 'waiting for approval', attempts: 1 } },
      stepStatus: { ticket: 'OPS-12' },
    });
    const wrote = (run: WorkflowRun) =>
      run.metadata.name === held.metadata.name ? 'approval requested in OPS-12' : undefined;
    const p2 = planResourceWorkflow(
      observe({ resource: applied(resource(), p1), runs: [held], statusMessageOf: wrote }),
    );
    expect(p2.status.message).toBe('approval requested in OPS-12');
    expect(p2.status.ticket).toBe('OPS-12');
    expect(p2.status.kruntimes?.workflows?.pipelines?.[0]?.message).toBe('waiting for approval');
    expect(p2.status.conditions?.find((c) => c.type === 'Reconciled')?.message).toContain(
      'waiting for approval',
    );
    // Without a status.yaml message, kubectl get says which pipeline is suspended and why.
    const p3 = planResourceWorkflow(observe({ resource: applied(resource(), p1), runs: [held] }));
    expect(p3.status.message).toMatch(/^pipeline "\w+" is suspended: waiting for approval$/);
  });

  it('suspended: the resource is labelled first; removing the label resumes that pipeline; a new reconcile restarts', () => {
    let r = resource();
    const p1 = planResourceWorkflow(observe({ resource: r }));
    r = applied(r, p1);
    const created = creates(p1.actions)[0]?.run as WorkflowRun;
    const a = ran(
      {
        ...created,
        metadata: { ...created.metadata, labels: { ...created.metadata.labels, [LABEL_SUSPENDED]: 'true' } },
      },
      'Suspended',
      { jobs: { main: { phase: 'Suspended', message: 'waiting for approval', attempts: 1 } } },
    );
    const p2 = planResourceWorkflow(observe({ resource: r, runs: [a] }));
    expect(p2.actions[0]).toEqual({ type: 'setLabels', labels: { [LABEL_SUSPENDED]: 'true' } });
    expect(p2.status.kruntimes?.workflows?.pipelines?.[0]).toMatchObject({
      phase: 'Suspended',
      message: 'waiting for approval',
    });
    expect(p2.status.conditions?.find((c) => c.type === 'Reconciled')).toMatchObject({
      status: 'Unknown',
      reason: 'WorkflowSuspended',
    });
    expect(creates(p2.actions)).toHaveLength(0);
    r = applied(r, p2);
    // The user removes the label: the pipeline's run is resumed, not restarted.
    const unlabelled = { ...r, metadata: { ...r.metadata, labels: {} } };
    const p3 = planResourceWorkflow(observe({ resource: unlabelled, runs: [a] }));
    expect(p3.actions).toContainEqual({ type: 'resumeRun', name: a.metadata.name });
    expect(creates(p3.actions)).toHaveLength(0);
    // Still labelled, but a spec change comes: the suspended run is cancelled and round 2 starts.
    const changed = { ...r, spec: { size: 'large' } };
    const p4 = planResourceWorkflow(observe({ resource: changed, runs: [a] }));
    expect(p4.actions).toContainEqual({ type: 'cancelRun', name: a.metadata.name });
    expect(creates(p4.actions).map((c) => c.run.metadata.labels?.[LABEL_WORKFLOW_ROUND])).toEqual(['2']);
    expect(p4.actions[0]).toEqual({ type: 'setLabels', labels: { [LABEL_SUSPENDED]: null } });
  });

  it('retryAfter: the pipeline shows attempts and the next retry, and no later pipeline starts', () => {
    let r = resource();
    const p1 = planResourceWorkflow(observe({ resource: r }));
    r = applied(r, p1);
    const a = ran(creates(p1.actions)[0]?.run as WorkflowRun, 'Suspended', {
      jobs: {
        main: {
          phase: 'Suspended',
          attempts: 2,
          nextRetryAt: '2026-01-01T00:05:00.000Z',
          message: 'not yet',
        },
      },
    });
    const p2 = planResourceWorkflow(observe({ resource: r, runs: [a] }));
    expect(p2.status.kruntimes?.workflows?.pipelines?.[0]).toMatchObject({
      phase: 'Suspended',
      attempts: 2,
      nextRetryAt: '2026-01-01T00:05:00.000Z',
    });
    expect(p2.actions).toContainEqual(expect.objectContaining({ reason: 'PipelineRetryScheduled' }));
    expect(creates(p2.actions)).toHaveLength(0);
  });

  function succeededRound(promiseObj = promise()) {
    let r = resource();
    const p1 = planResourceWorkflow(observe({ resource: r, promise: promiseObj }));
    r = applied(r, p1);
    const a = ran(creates(p1.actions)[0]?.run as WorkflowRun, 'Succeeded');
    const p2 = planResourceWorkflow(observe({ resource: r, promise: promiseObj, runs: [a] }));
    r = applied(r, p2);
    const b = ran(creates(p2.actions)[0]?.run as WorkflowRun, 'Succeeded');
    const p3 = planResourceWorkflow(observe({ resource: r, promise: promiseObj, runs: [a, b] }));
    return { r: applied(r, p3), runs: [a, b], plan: p3 };
  }

  it('the periodic interval (Promise override) runs the workflow again from the first pipeline', () => {
    const short = promise({ reconcileInterval: '5s' });
    const { r, runs, plan } = succeededRound(short);
    expect(plan.requeueAfter).toBe(5000);
    const early = planResourceWorkflow(observe({ resource: r, promise: short, runs, now: later(4000) }));
    expect(creates(early.actions)).toHaveLength(0);
    expect(early.requeueAfter).toBe(1000);
    const due = planResourceWorkflow(observe({ resource: r, promise: short, runs, now: later(5000) }));
    expect(
      creates(due.actions).map((c) => [c.pipeline, c.run.metadata.labels?.[LABEL_WORKFLOW_ROUND]]),
    ).toEqual([['a', '2']]);
  });

  it("says its Works' state with Kratix's conditions, reasons and Events", () => {
    const { r, runs } = succeededRound();
    const work = (applied: 'True' | 'False' | undefined): Work => ({
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'Work',
      metadata: { name: 'w', generation: 1 },
      spec: { pipeline: 'a', workflowRunName: runs[0]?.metadata.name ?? '', objects: [] },
      status: applied
        ? {
            observedGeneration: 1,
            message: applied === 'False' ? 'ConfigMap ns/c: forbidden' : 'applied',
            conditions: [{ type: 'Applied', status: applied, reason: 'x', message: '' }],
          }
        : {},
    });
    const cond = (p: ReturnType<typeof planResourceWorkflow>, type: string) =>
      p.status.conditions?.find((c) => c.type === type);
    const events = (p: ReturnType<typeof planResourceWorkflow>) =>
      p.actions.flatMap((a) => (a.type === 'event' ? [`${a.eventType} ${a.reason}`] : []));
    const pending = planResourceWorkflow(observe({ resource: r, runs, works: [work(undefined)] }));
    expect(cond(pending, 'WorksSucceeded')).toMatchObject({ status: 'Unknown', reason: 'WorksPending' });
    expect(cond(pending, 'Reconciled')).toMatchObject({ status: 'Unknown', reason: 'WorksPending' });
    const failing = planResourceWorkflow(
      observe({ resource: applied(r, pending), runs, works: [work('False')] }),
    );
    expect(cond(failing, 'WorksSucceeded')).toMatchObject({
      status: 'False',
      reason: 'WorksFailing',
      message: 'Work "w": ConfigMap ns/c: forbidden',
    });
    expect(cond(failing, 'Reconciled')).toMatchObject({ status: 'False', reason: 'WorksFailing' });
    expect(events(failing)).toEqual(['Warning WorksFailing']);
    const fixed = planResourceWorkflow(
      observe({ resource: applied(r, failing), runs, works: [work('True')] }),
    );
    expect(cond(fixed, 'WorksSucceeded')).toMatchObject({ status: 'True', reason: 'WorksSucceeded' });
    expect(cond(fixed, 'Reconciled')).toMatchObject({ status: 'True', reason: 'Reconciled' });
    expect(events(fixed)).toEqual(['Normal WorksSucceeded', 'Normal ReconcileSucceeded']);
    // Said once: the next plan over the same state announces nothing.
    expect(
      events(planResourceWorkflow(observe({ resource: applied(r, fixed), runs, works: [work('True')] }))),
    ).toEqual([]);
  });

  it('retries a failed pipeline up to its jobOptions.backoffLimit, waiting longer each time, then halts', () => {
    const limited = promise({
      workflows: {
        resource: {
          configure: [{ ...pipeline('a'), spec: { ...pipeline('a').spec, jobOptions: { backoffLimit: 2 } } }],
        },
      },
    });
    let r = resource();
    const p1 = planResourceWorkflow(observe({ resource: r, promise: limited }));
    r = applied(r, p1);
    const first = creates(p1.actions)[0]?.run as WorkflowRun;
    const failedAt = (run: WorkflowRun, at: Date): WorkflowRun =>
      ran(run, 'Failed', {
        message: 'job "main" failed: step "main" failed with exit code 1',
        finishedAt: at.toISOString(),
      });
    const a1 = failedAt(first, later(1000));
    // Attempt 1 failed: the pipeline waits 5 s, still running, and says when it goes again.
    const p2 = planResourceWorkflow(observe({ resource: r, promise: limited, runs: [a1], now: later(2000) }));
    expect(creates(p2.actions)).toHaveLength(0);
    expect(p2.status.kruntimes?.workflows?.phase).toBe('Running');
    expect(p2.status.kruntimes?.workflows?.pipelines?.[0]).toMatchObject({
      phase: 'Running',
      attempts: 1,
      nextRetryAt: later(6000).toISOString(),
      message: 'attempt 1 failed: job "main" failed: step "main" failed with exit code 1',
    });
    expect(p2.requeueAfter).toBe(4000);
    expect(p2.actions).toContainEqual(
      expect.objectContaining({ type: 'event', reason: 'PipelineRetryScheduled' }),
    );
    r = applied(r, p2);
    // Its time comes: attempt 2 is a new run of the same round, labelled and named apart.
    const p3 = planResourceWorkflow(observe({ resource: r, promise: limited, runs: [a1], now: later(6000) }));
    const second = creates(p3.actions)[0]?.run as WorkflowRun;
    expect(second.metadata.labels?.[LABEL_PIPELINE_ATTEMPT]).toBe('2');
    expect(second.metadata.labels?.[LABEL_WORKFLOW_ROUND]).toBe('1');
    expect(second.metadata.name).not.toBe(first.metadata.name);
    expect(p3.status.kruntimes?.workflows?.pipelines?.[0]).toMatchObject({ phase: 'Running', attempts: 2 });
    r = applied(r, p3);
    // Attempt 2 fails: the wait doubles to 10 s.
    const a2 = failedAt(second, later(7000));
    const p4 = planResourceWorkflow(
      observe({ resource: r, promise: limited, runs: [a1, a2], now: later(7000) }),
    );
    expect(p4.status.kruntimes?.workflows?.pipelines?.[0]?.nextRetryAt).toBe(later(17000).toISOString());
    r = applied(r, p4);
    const p5 = planResourceWorkflow(
      observe({ resource: r, promise: limited, runs: [a1, a2], now: later(17000) }),
    );
    const third = creates(p5.actions)[0]?.run as WorkflowRun;
    expect(third.metadata.labels?.[LABEL_PIPELINE_ATTEMPT]).toBe('3');
    r = applied(r, p5);
    // The last attempt the limit allows fails: the workflow halts as without a limit.
    const a3 = failedAt(third, later(18000));
    const p6 = planResourceWorkflow(
      observe({ resource: r, promise: limited, runs: [a1, a2, a3], now: later(18000) }),
    );
    expect(creates(p6.actions)).toHaveLength(0);
    expect(p6.status.kruntimes?.workflows?.phase).toBe('Failed');
    expect(p6.status.kruntimes?.workflows?.pipelines?.[0]).toMatchObject({ phase: 'Failed', attempts: 3 });
  });

  it('without a backoffLimit a failed pipeline halts the workflow at once', () => {
    let r = resource();
    const p1 = planResourceWorkflow(observe({ resource: r }));
    r = applied(r, p1);
    const a = ran(creates(p1.actions)[0]?.run as WorkflowRun, 'Failed', { message: 'x' });
    expect(a.metadata.labels?.[LABEL_PIPELINE_ATTEMPT]).toBe('1');
    const p2 = planResourceWorkflow(observe({ resource: r, runs: [a] }));
    expect(p2.status.kruntimes?.workflows?.phase).toBe('Failed');
  });

  it('a change of the Promise spec runs the workflow again; an unchanged one does not', () => {
    const { r, runs } = succeededRound();
    expect(creates(planResourceWorkflow(observe({ resource: r, runs })).actions)).toHaveLength(0);
    const changed = promise();
    changed.spec.workflows?.resource?.configure?.push(pipeline('c'));
    const plan = planResourceWorkflow(observe({ resource: r, runs, promise: changed }));
    expect(creates(plan.actions).map((c) => c.pipeline)).toEqual(['a']);
    expect(plan.status.kruntimes?.workflows?.pipelines?.map((p) => p.name)).toEqual(['a', 'b', 'c']);
  });

  it('after a restart that lost the status write, the run found by its labels is adopted, not repeated', () => {
    const r = resource();
    const p1 = planResourceWorkflow(observe({ resource: r }));
    // The run was created, the status never written.
    const a = ran(creates(p1.actions)[0]?.run as WorkflowRun, 'Running');
    expect(a.metadata.labels?.[LABEL_WORKFLOW_HASH]).toBe(workflowHash(r, promise()));
    const after = planResourceWorkflow(observe({ resource: r, runs: [a] }));
    expect(creates(after.actions)).toHaveLength(0);
    expect(after.status.kruntimes?.workflows).toMatchObject({
      round: 1,
      pipelines: [
        { name: 'a', phase: 'Running' },
        { name: 'b', phase: 'Pending' },
      ],
    });
    // A run recorded as started but not yet in the cache is created again under the same name.
    const lagging = planResourceWorkflow(observe({ resource: applied(r, p1), runs: [] }));
    expect(creates(lagging.actions).map((c) => c.run.metadata.name)).toEqual([a.metadata.name]);
  });

  it('an invalid document from a pipeline fails it with the file and the parse error', () => {
    let r = resource();
    const p1 = planResourceWorkflow(observe({ resource: r }));
    r = applied(r, p1);
    const a = ran(creates(p1.actions)[0]?.run as WorkflowRun, 'Succeeded');
    const plan = planResourceWorkflow(
      observe({ resource: r, runs: [a], filesOf: () => ({ 'x.yaml': 'kind: ConfigMap\n' }) }),
    );
    expect(creates(plan.actions)).toHaveLength(0);
    expect(plan.status.message).toBe(
      'pipeline "a" failed: it wrote an invalid document: $KRT_OUTPUT_DIR/x.yaml: apiVersion is required',
    );
  });

  it('writes status that does not change when nothing changed (no new times)', () => {
    const { r, runs } = succeededRound();
    const again = planResourceWorkflow(observe({ resource: r, runs, now: later(30_000) }));
    expect(again.status).toEqual(r.status);
    expect(again.actions.filter((a) => a.type !== 'writeWork')).toEqual([]);
  });

  describe('a pipeline that names a Workflow (uses)', () => {
    const wf = (jobs: Record<string, unknown>): Workflow =>
      ({
        apiVersion: 'kruntimes.io/v1alpha1',
        kind: 'Workflow',
        metadata: { name: 'provision', namespace: 'platform' },
        spec: { inputs: { size: { type: 'string', required: true } }, jobs },
      }) as Workflow;
    const using = (
      w: Workflow | undefined,
      given: Record<string, string> = { size: 'big-${{ resource.spec.size }}' },
    ) => {
      const p = promise({ workflowNamespace: 'platform' });
      p.spec.workflows = {
        resource: {
          configure: [
            {
              apiVersion: 'kruntimes.io/v1alpha1',
              kind: 'Pipeline',
              metadata: { name: 'a' },
              spec: { uses: 'provision', with: given },
            },
          ],
        },
      };
      return planResourceWorkflow(
        observe({
          promise: p,
          workflow: (ns, n) => (ns === 'platform' && n === w?.metadata.name ? w : undefined),
        }),
      );
    };

    it('runs the Workflow materialized with its inputs, the resource values read as data', () => {
      const plan = using(
        wf({ go: { 'runs-on': 'bash', steps: [{ name: 's', run: 'echo ${{ inputs.size }}' }] } }),
      );
      const step = creates(plan.actions)[0]?.run.spec.jobs.go?.steps?.[0];
      expect(step?.run).toBe('echo big-small');
      expect(step?.env?.KRT_OBSERVED_GENERATION).toBe('1');
    });

    it('fails the pipeline when the Workflow is missing, calls other Workflows, or misses an input', () => {
      expect(using(undefined).status.message).toBe(
        'pipeline "a" failed: Workflow "provision" not found in namespace "platform"',
      );
      // The caller confirms the absence with the API server before it trusts a cache.
      expect(using(undefined).missingWorkflows).toEqual([{ namespace: 'platform', name: 'provision' }]);
      expect(using(wf({ call: { uses: 'other' } })).missingWorkflows).toBeUndefined();
      expect(using(wf({ call: { uses: 'other' } })).status.message).toBe(
        'pipeline "a" failed: Workflow "provision" calls other Workflows (job "call"), which a pipeline cannot',
      );
      const ok = wf({ go: { 'runs-on': 'bash', steps: [{ name: 's', run: 'true' }] } });
      expect(using(ok, {}).status.message).toMatch(/^pipeline "a" failed: with: .*"size"/);
    });
  });

  it('puts the finalizers on before the first Work, and the delete one only while the Promise has a delete pipeline', () => {
    const { r, runs } = succeededRound();
    expect(r.metadata.finalizers).toEqual(['kruntimes.io/works-cleanup']);
    const withDelete = promise();
    withDelete.spec.workflows = {
      resource: { ...withDelete.spec.workflows?.resource, delete: [pipeline('bye')] },
    };
    const plan = planResourceWorkflow(observe({ resource: r, runs, promise: withDelete }));
    expect(plan.actions.find((a) => a.type === 'setFinalizers')).toEqual({
      type: 'setFinalizers',
      finalizers: ['kruntimes.io/works-cleanup', 'kruntimes.io/delete-workflow'],
    });
    const both = {
      ...r,
      metadata: { ...r.metadata, finalizers: ['kruntimes.io/works-cleanup', 'kruntimes.io/delete-workflow'] },
    };
    expect(
      planResourceWorkflow(observe({ resource: both, runs, promise: promise() })).actions,
    ).toContainEqual({
      type: 'setFinalizers',
      finalizers: ['kruntimes.io/works-cleanup'],
    });
    // The first Work of a resource comes after its finalizer in the same plan.
    const first = planResourceWorkflow(
      observe({
        resource: applied(resource(), planResourceWorkflow(observe())),
        runs: [runs[0] as WorkflowRun],
      }),
    );
    const kinds = first.actions.map((a) => a.type);
    expect(kinds.indexOf('setFinalizers')).toBeLessThan(kinds.indexOf('writeWork'));
  });
});

describe('the paused label', () => {
  const paused = (r: ResourceObject, on: boolean): ResourceObject => ({
    ...r,
    metadata: { ...r.metadata, labels: on ? { [LABEL_PAUSED]: 'true' } : {} },
  });
  const pausedCondition = (p: ReturnType<typeof planResourceWorkflow>) =>
    p.status.conditions?.find((c) => c.type === 'Paused');

  it('starts nothing for a paused resource, and says why; without the label it starts', () => {
    const p = planResourceWorkflow(observe({ resource: paused(resource(), true) }));
    expect(creates(p.actions)).toHaveLength(0);
    expect(pausedCondition(p)).toMatchObject({ status: 'True', reason: 'PausedByLabel' });
    const resumed = planResourceWorkflow(observe({ resource: paused(applied(resource(), p), false) }));
    expect(creates(resumed.actions).map((c) => c.pipeline)).toEqual(['a']);
    expect(pausedCondition(resumed)).toBeUndefined();
  });

  it('lets a running pipeline finish but starts neither the next pipeline nor its Work, until unpaused', () => {
    let r = resource();
    const p1 = planResourceWorkflow(observe({ resource: r }));
    r = applied(r, p1);
    const a = ran(creates(p1.actions)[0]?.run as WorkflowRun, 'Succeeded');
    const p2 = planResourceWorkflow(observe({ resource: paused(r, true), runs: [a] }));
    expect(creates(p2.actions)).toHaveLength(0);
    expect(p2.actions.filter((x) => x.type === 'writeWork' || x.type === 'cancelRun')).toEqual([]);
    expect(p2.status.kruntimes?.workflows?.pipelines?.[0]).toMatchObject({ name: 'a', phase: 'Succeeded' });
    r = applied(paused(r, true), p2);
    const p3 = planResourceWorkflow(observe({ resource: paused(r, false), runs: [a] }));
    expect(creates(p3.actions).map((c) => c.pipeline)).toEqual(['b']);
  });

  it('starts no new round on a spec change while paused', () => {
    let r = resource();
    const p1 = planResourceWorkflow(observe({ resource: r }));
    r = applied(r, p1);
    const a = ran(creates(p1.actions)[0]?.run as WorkflowRun, 'Succeeded');
    const p2 = planResourceWorkflow(observe({ resource: r, runs: [a] }));
    r = applied(r, p2);
    const b = ran(creates(p2.actions)[0]?.run as WorkflowRun, 'Succeeded');
    const done = planResourceWorkflow(observe({ resource: r, runs: [a, b] }));
    r = { ...applied(r, done), spec: { size: 'large' }, metadata: { ...r.metadata, generation: 2 } };
    const held = planResourceWorkflow(observe({ resource: paused(r, true), runs: [a, b] }));
    expect(creates(held.actions)).toHaveLength(0);
    expect(held.requeueAfter).toBeUndefined();
    const resumed = planResourceWorkflow(observe({ resource: paused(r, false), runs: [a, b] }));
    expect(creates(resumed.actions)[0]?.run.metadata.labels?.[LABEL_WORKFLOW_ROUND]).toBe('2');
  });
});
