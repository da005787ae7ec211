import type { Run, WorkflowRun } from '../src/api/types.js';
import {
  buildTree,
  duration,
  jobsInOrder,
  progressLine,
  renderTree,
  stepsInOrder,
  suspendedRuns,
} from './tree.js';

const t = (s: number) => new Date(Date.UTC(2026, 11, 2, 10, 0, s)).toISOString();
const now = new Date(Date.UTC(2026, 11, 2, 10, 1, 0));

function wfr(
  name: string,
  uid: string,
  spec: WorkflowRun['spec'],
  status: WorkflowRun['status'],
  parent?: [string, string],
): WorkflowRun {
  return {
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'WorkflowRun',
    metadata: {
      name,
      uid,
      ...(parent
        ? { labels: { 'kruntimes.io/parent-uid': parent[0], 'kruntimes.io/call-job': parent[1] } }
        : {}),
    },
    spec,
    status,
  };
}
function run(name: string, owner: string, job: string, step: string, status: Run['status']): Run {
  return {
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'Run',
    metadata: {
      name,
      labels: {
        'kruntimes.io/workflowrun-uid': owner,
        'kruntimes.io/workflow-job': job,
        'kruntimes.io/workflow-step': step,
      },
    },
    spec: { runtime: 'bash', script: 'true' },
    status,
  };
}

const root = wfr(
  'release',
  'u1',
  {
    jobs: {
      deploy: { needs: ['build'], uses: 'deploy' },
      build: {
        'runs-on': 'bash',
        steps: [
          { name: 'compile', run: 'x' },
          { name: 'pack', run: 'y' },
        ],
      },
    },
  },
  {
    phase: 'Failed',
    startedAt: t(0),
    finishedAt: t(30),
    message: 'job "deploy" failed',
    jobs: {
      build: { phase: 'Succeeded', startedAt: t(0), finishedAt: t(5), outputs: { version: '1.2.3' } },
      deploy: {
        phase: 'Failed',
        startedAt: t(5),
        finishedAt: t(30),
        workflowRunName: 'release-call-deploy',
        message: 'child failed',
      },
    },
  },
);
const child = wfr(
  'release-call-deploy',
  'u2',
  { jobs: { push: { 'runs-on': 'bash', steps: [{ name: 'notify', run: 'z' }] } } },
  {
    phase: 'Failed',
    startedAt: t(6),
    finishedAt: t(29),
    jobs: { push: { phase: 'Failed', startedAt: t(6), finishedAt: t(29) } },
  },
  ['u1', 'deploy'],
);
const runs = [
  run('release-build-compile', 'u1', 'build', 'compile', {
    phase: 'Succeeded',
    exitCode: 0,
    reason: 'Completed',
    startTime: t(0),
    completionTime: t(2),
  }),
  run('release-build-pack', 'u1', 'build', 'pack', {
    phase: 'Succeeded',
    exitCode: 0,
    reason: 'Completed',
    startTime: t(2),
    completionTime: t(5),
  }),
  run('release-call-deploy-push-notify', 'u2', 'push', 'notify', {
    phase: 'Failed',
    exitCode: 3,
    reason: 'NonZeroExit',
    startTime: t(7),
    completionTime: t(29),
  }),
];

describe('the WorkflowRun tree', () => {
  const tree = buildTree(root, [root, child], runs);
  it('orders jobs by dependency and nests the child run under its call job', () => {
    expect(renderTree(tree, now)).toEqual([
      'release  Failed  30s  (job "deploy" failed)',
      '├─ build  Succeeded  5s  version=1.2.3',
      '│  ├─ step compile  Succeeded  2s',
      '│  └─ step pack  Succeeded  3s',
      '└─ deploy  Failed  25s  (child failed)',
      '   └─ release-call-deploy  Failed  23s',
      '      └─ push  Failed  23s',
      '         └─ step notify  Failed  22s  exit 3  NonZeroExit',
    ]);
  });
  it('walks steps and jobs in the same order, with the job path as the log prefix', () => {
    expect(stepsInOrder(tree).map((s) => [s.prefix, s.step.run?.metadata.name])).toEqual([
      ['build:compile', 'release-build-compile'],
      ['build:pack', 'release-build-pack'],
      ['deploy/push:notify', 'release-call-deploy-push-notify'],
    ]);
    expect(jobsInOrder(tree).map((j) => j.path.join('/'))).toEqual(['build', 'deploy', 'deploy/push']);
  });
  it('shows a run that has not started yet as Pending, without children or Runs', () => {
    const fresh = wfr('fresh', 'u9', root.spec, undefined);
    expect(renderTree(buildTree(fresh, [], []), now)).toEqual([
      'fresh  Pending  -',
      '├─ build  Pending  -',
      '│  ├─ step compile  Pending  -',
      '│  └─ step pack  Pending  -',
      '└─ deploy  Pending  -',
    ]);
  });
  it('prints a job Running before its steps or child, even when its status lags behind them', () => {
    // The parent's status still says Pending for both jobs, but their Runs and child run exist.
    const lagging = wfr('release', 'u1', root.spec, { phase: 'Running', jobs: {} });
    const childRunning = wfr(
      'release-call-deploy',
      'u2',
      child.spec,
      { phase: 'Running', jobs: { push: { phase: 'Running' } } },
      ['u1', 'deploy'],
    );
    const active = [
      runs[0] as Run,
      run('release-build-pack', 'u1', 'build', 'pack', { phase: 'Running' }),
      run('release-call-deploy-push-notify', 'u2', 'push', 'notify', { phase: 'Running' }),
    ];
    const lines = jobsInOrder(buildTree(lagging, [lagging, childRunning], active)).map(
      (j) => `${j.path.join('/')}: ${progressLine(j)}`,
    );
    expect(lines).toEqual([
      'build: Running (step pack)',
      'deploy: Running -> release-call-deploy',
      'deploy/push: Running (step notify)',
    ]);
    const waiting = jobsInOrder(buildTree(wfr('fresh', 'u9', root.spec, undefined), [], []));
    expect(waiting.map(progressLine)).toEqual(['Pending', 'Pending']);
  });
  it('shows a suspended job with its message, attempt and the time left until its retry', () => {
    const held = wfr(
      'held',
      'u5',
      { jobs: { work: { 'runs-on': 'bash', steps: [{ name: 's', run: 'x' }] } } },
      {
        phase: 'Suspended',
        startedAt: t(0),
        message: 'job "work" is suspended: waiting for approval',
        jobs: {
          work: { phase: 'Suspended', startedAt: t(0), attempts: 2, nextRetryAt: t(125), message: 'not yet' },
        },
      },
    );
    const child = {
      ...held,
      metadata: { ...held.metadata, labels: { 'kruntimes.io/workflow-suspended': 'true' } },
    };
    const tree = buildTree(child, [], []);
    expect(renderTree(tree, now)[1]).toBe('└─ work  Suspended  1m00s  attempt 2  retry in 1m05s  (not yet)');
    expect(suspendedRuns(tree).map((r) => r.metadata.name)).toEqual(['held']);
    expect(suspendedRuns(buildTree(held, [], []))).toEqual([]);
  });
  it('formats durations', () => {
    expect(duration(undefined, undefined, now)).toBe('-');
    expect(duration(t(0), undefined, now)).toBe('1m00s');
    expect(duration(t(0), t(59), now)).toBe('59s');
    expect(duration('2026-12-02T08:58:00Z', undefined, now)).toBe('1h03m');
    expect(duration(t(10), t(0), now)).toBe('-');
  });
});
