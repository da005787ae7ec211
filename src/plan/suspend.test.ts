// The planner's suspend and retry transitions (docs/specifications.md R5-R7).
import type { Run, WorkflowRun } from '../api/types.js';
import { decide, suspendedResourceLabel } from './suspension.js';
import { planWorkflowRun, type Action, type Observed } from './workflowrun.js';

const T0 = Date.parse('2026-12-03T10:00:00Z');
const at = (ms: number) => new Date(T0 + ms);
const iso = (ms: number) => at(ms).toISOString();

const run = (labels?: Record<string, string>, cancel = false): WorkflowRun => ({
  apiVersion: 'kruntimes.io/v1alpha1',
  kind: 'WorkflowRun',
  metadata: { name: 'r', namespace: 'ns', uid: 'u', generation: 1, ...(labels ? { labels } : {}) },
  spec: {
    jobs: {
      work: {
        'runs-on': 'bash',
        steps: [
          { name: 'one', run: 'x' },
          { name: 'two', run: 'y' },
        ],
      },
      after: { 'runs-on': 'bash', needs: ['work'], steps: [{ name: 's', run: 'z' }] },
      aside: { 'runs-on': 'bash', steps: [{ name: 's', run: 'w' }] },
    },
    ...(cancel ? { cancelRequested: true } : {}),
  },
});
const created = (a: Action[]) =>
  a
    .filter((x): x is Extract<Action, { type: 'createRun' }> => x.type === 'createRun' && x.job === 'work')
    .map((x) => x.run.metadata.name);
/** A Run of the plan, ended as given. */
const ended = (name: string, status: Run['status']): Run =>
  ({
    metadata: { name, namespace: 'ns', labels: {} },
    spec: { runtime: 'bash', script: 'x' },
    status,
  }) as Run;

function plan(wfr: WorkflowRun, runs: Run[], now: number, status?: WorkflowRun['status']) {
  const o: Observed = {
    run: { ...wfr, status },
    snapshot: wfr.spec,
    runs,
    children: [],
    workflow: () => undefined,
    now: at(now),
  };
  return planWorkflowRun(o);
}

describe('decide', () => {
  const before = {};
  it('suspends, or retries after the duration from when the step completed', () => {
    expect(decide({ suspend: true, message: 'waiting' }, iso(0), before, false, at(5))).toEqual({
      suspended: true,
      message: 'waiting',
    });
    expect(decide({ retryAfter: '2s' }, iso(0), before, false, at(5))).toEqual({
      suspended: true,
      retryAt: iso(2000),
      message: 'retrying after 2s',
    });
    expect(decide({ retryAfter: '2s' }, iso(0), before, true, at(2000))).toEqual({ suspended: false });
  });
  it('retryAfter wins over suspend', () => {
    expect(decide({ retryAfter: '1m', suspend: true }, iso(0), before, false, at(0))).toMatchObject({
      retryAt: iso(60_000),
    });
  });
  it('keeps the recorded retry time (a restart neither loses nor moves it)', () => {
    const recorded = { phase: 'Suspended' as const, nextRetryAt: iso(5000) };
    expect(decide({ retryAfter: '2s' }, iso(0), recorded, true, at(4999))).toMatchObject({
      retryAt: iso(5000),
    });
    expect(decide({ retryAfter: '2s' }, iso(0), recorded, true, at(5000))).toEqual({ suspended: false });
  });
  it('a recorded suspension whose label is gone was resumed; one not yet recorded was not', () => {
    expect(decide({ suspend: true }, iso(0), { phase: 'Suspended' }, false, at(1))).toEqual({
      suspended: false,
    });
    expect(decide({ suspend: true }, iso(0), { phase: 'Running' }, false, at(1))).toMatchObject({
      suspended: true,
    });
  });
});

describe('planWorkflowRun with workflow control', () => {
  const one = (control: object) =>
    ended('r-work-one', { phase: 'Succeeded', completionTime: iso(0), control });
  const aside = ended('r-aside-s', { phase: 'Running' });

  it('a suspend holds the job (no next step, no dependent), labels the run and marks it Suspended', () => {
    const p = plan(run(), [one({ suspend: true, message: 'approve me' }), aside], 1000);
    expect(created(p.actions)).toEqual([]);
    expect(p.actions[0]).toEqual({ type: 'setSuspendedLabel', value: true });
    expect(p.status.jobs?.work).toMatchObject({ phase: 'Suspended', message: 'approve me', attempts: 1 });
    expect(p.status.jobs?.after?.phase).toBe('Pending');
    expect(p.status.jobs?.aside?.phase).toBe('Running');
    expect(p.status).toMatchObject({ phase: 'Suspended', message: 'job "work" is suspended: approve me' });
    expect(p.status.conditions?.[0]).toMatchObject({ status: 'Unknown', reason: 'Suspended' });
    // Labelled and recorded: it stays, with no action.
    const held = plan(
      run({ 'kruntimes.io/workflow-suspended': 'true' }),
      [one({ suspend: true }), aside],
      2000,
      p.status,
    );
    expect(held.actions).toEqual([]);
    expect(held.status.jobs?.work?.phase).toBe('Suspended');
  });

  it('removing the label runs the job again from its first step, as attempt 2', () => {
    const first = plan(run(), [one({ suspend: true })], 1000);
    const resumed = plan(run(), [one({ suspend: true })], 5000, first.status);
    expect(created(resumed.actions)).toEqual(['r-work-one-a2']);
    expect(resumed.status.jobs?.work).toMatchObject({ phase: 'Running', attempts: 2 });
    expect(resumed.actions.some((a) => a.type === 'setSuspendedLabel')).toBe(false);
  });

  it('retries after the duration, counting attempts, and goes on when an attempt asks for none', () => {
    const labelled = run({ 'kruntimes.io/workflow-suspended': 'true' });
    const p1 = plan(run(), [one({ retryAfter: '2s' })], 500);
    expect(p1.status.jobs?.work).toMatchObject({ phase: 'Suspended', nextRetryAt: iso(2000), attempts: 1 });
    expect(p1.requeueAfter).toBe(1500);
    const waiting = plan(labelled, [one({ retryAfter: '2s' })], 1999, p1.status);
    expect(created(waiting.actions)).toEqual([]);
    const p2 = plan(labelled, [one({ retryAfter: '2s' })], 2000, p1.status);
    expect(created(p2.actions)).toEqual(['r-work-one-a2']);
    expect(p2.actions[0]).toEqual({ type: 'setSuspendedLabel', value: false });
    expect(p2.status.jobs?.work).toMatchObject({ phase: 'Running', attempts: 2 });
    // Attempt 2 asks again; attempt 3 does not, and the job goes on to its second step.
    const a2 = ended('r-work-one-a2', {
      phase: 'Succeeded',
      completionTime: iso(2500),
      control: { retryAfter: '2s' },
    });
    const p3 = plan(run(), [one({ retryAfter: '2s' }), a2], 2600, p2.status);
    expect(p3.status.jobs?.work).toMatchObject({ phase: 'Suspended', nextRetryAt: iso(4500), attempts: 2 });
    const p4 = plan(labelled, [one({ retryAfter: '2s' }), a2], 4500, p3.status);
    expect(created(p4.actions)).toEqual(['r-work-one-a3']);
    const a3 = ended('r-work-one-a3', { phase: 'Succeeded', completionTime: iso(5000) });
    const p5 = plan(run(), [one({ retryAfter: '2s' }), a2, a3], 5100, p4.status);
    expect(created(p5.actions)).toEqual(['r-work-two-a3']);
    expect(p5.status.jobs?.work).toMatchObject({ phase: 'Running', attempts: 3 });
  });

  it('cancelling a suspended run ends it Cancelled and takes the label off', () => {
    const p1 = plan(run(), [one({ suspend: true })], 1000);
    const labelled = run({ 'kruntimes.io/workflow-suspended': 'true' }, true);
    const p = plan(labelled, [one({ suspend: true })], 2000, p1.status);
    expect(p.status.jobs?.work).toMatchObject({ phase: 'Cancelled', message: 'cancelled while suspended' });
    expect(p.status.phase).toBe('Cancelled');
    expect(p.actions).toContainEqual({ type: 'setSuspendedLabel', value: false });
  });

  it('a message written to $KRT_STATUS becomes the run message; other keys are kept', () => {
    const s1 = ended('r-work-one', {
      phase: 'Succeeded',
      completionTime: iso(0),
      stepStatus: { message: 'half', a: '1' },
    });
    const s2 = ended('r-work-two', { phase: 'Running' });
    const p0 = plan(run(), [s1], 100);
    const p = plan(run(), [s1, s2], 200, p0.status);
    expect(p.status).toMatchObject({ phase: 'Running', message: 'half', stepStatus: { a: '1' } });
  });
});

describe('suspendedResourceLabel', () => {
  const run = (labelled: boolean) => ({
    metadata: {
      name: 'r-p-1',
      labels: (labelled ? { 'kruntimes.io/workflow-suspended': 'true' } : {}) as Record<string, string>,
    },
  });
  it('labels the resource when its run first suspends', () => {
    expect(suspendedResourceLabel({ wasSuspended: false, labelled: false, run: run(true) })).toEqual({
      label: 'true',
    });
  });
  it('passes a removed label on to the run as a resume', () => {
    expect(suspendedResourceLabel({ wasSuspended: true, labelled: false, run: run(true) })).toEqual({
      resumeRun: 'r-p-1',
    });
  });
  it('does nothing while suspended and labelled, or once the run was resumed', () => {
    expect(suspendedResourceLabel({ wasSuspended: true, labelled: true, run: run(true) })).toEqual({});
    expect(suspendedResourceLabel({ wasSuspended: true, labelled: false, run: run(false) })).toEqual({});
  });
});
