import type { Run, Workflow, WorkflowRun } from '../api/types.js';
import { planWorkflowRun as planner, withFailedJobs, type Action, type Observed } from './workflowrun.js';
import { frozen } from './frozen.testing.js';

/** The planner, given its input frozen: one that changed what it was given would throw. */
const planWorkflowRun = (o: Observed) => planner(frozen(o));

const NOW = new Date('2026-12-02T10:00:00Z');
const inline = (run: string, extra: object = {}) => ({
  'runs-on': 'bash',
  steps: [{ name: 'main', run }],
  ...extra,
});

function wfr(
  jobs: Record<string, unknown>,
  extra: Partial<WorkflowRun['spec']> = {},
  annotations?: Record<string, string>,
): WorkflowRun {
  return {
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'WorkflowRun',
    metadata: {
      name: 'release',
      namespace: 'ns',
      uid: 'uid-1',
      generation: 1,
      ...(annotations ? { annotations } : {}),
    },
    spec: { jobs, ...extra } as WorkflowRun['spec'],
  };
}

function observed(run: WorkflowRun, over: Partial<Observed> = {}): Observed {
  return { run, snapshot: run.spec, runs: [], children: [], workflow: () => undefined, now: NOW, ...over };
}

function finished(r: Run, phase: string, extra: object = {}): Run {
  return { ...r, status: { phase, ...extra } as Run['status'] };
}

const created = (actions: Action[]) =>
  actions
    .filter((a): a is Extract<Action, { type: 'createRun' }> => a.type === 'createRun')
    .map((a) => a.run);
const children = (actions: Action[]) =>
  actions
    .filter((a): a is Extract<Action, { type: 'createChild' }> => a.type === 'createChild')
    .map((a) => a.child);

/** Runs the plan the way the controller does: apply creations, let `settle` finish Runs, replan. */
function step(o: Observed, settle: (r: Run) => Run = (r) => r) {
  const plan = planWorkflowRun(o);
  const runs = [...o.runs, ...created(plan.actions)].map((r) => (r.status ? r : settle(r)));
  return { plan, next: { ...o, run: { ...o.run, status: plan.status }, runs } };
}

describe('planWorkflowRun', () => {
  it('creates the snapshot first and executes nothing before it exists', () => {
    const run = wfr({ a: inline('true') });
    const plan = planWorkflowRun(observed(run, { snapshot: undefined }));
    expect(plan.actions).toEqual([
      {
        type: 'createSnapshot',
        name: expect.stringMatching(/^release-snapshot-[0-9a-f]{8}$/),
        spec: run.spec,
      },
    ]);
    expect(plan.status.phase).toBe('Pending');
  });

  it('starts only jobs whose needs succeeded, and renders outputs downstream', () => {
    const run = wfr({
      build: inline('make', { outputs: { image: '${{ steps.main.outputs.image }}' } }),
      deploy: inline('deploy ${{ jobs.build.outputs.image }}', { needs: ['build'] }),
    });
    let { plan, next } = step(observed(run));
    expect(created(plan.actions).map((r) => r.metadata.name)).toEqual(['release-build-main']);
    expect(plan.status).toMatchObject({
      phase: 'Running',
      progress: '0/2',
      jobs: { build: { phase: 'Running' }, deploy: { phase: 'Pending' } },
    });
    const [buildRun] = next.runs;
    expect(buildRun?.metadata).toMatchObject({
      labels: {
        'kruntimes.io/workflowrun-uid': 'uid-1',
        'kruntimes.io/workflow-job': 'build',
        'kruntimes.io/workflow-step': 'main',
      },
      ownerReferences: [{ kind: 'WorkflowRun', name: 'release', uid: 'uid-1', controller: true }],
    });
    next.runs = [finished(buildRun as Run, 'Succeeded', { outputs: { image: 'app:1' } })];
    ({ plan, next } = step(next));
    expect(plan.status.jobs?.build).toMatchObject({ phase: 'Succeeded', outputs: { image: 'app:1' } });
    expect(created(plan.actions).map((r) => [r.metadata.name, r.spec.script])).toEqual([
      ['release-deploy-main', 'deploy app:1'],
    ]);
    next.runs = next.runs.map((r) => (r.status ? r : finished(r, 'Succeeded')));
    ({ plan } = step(next));
    expect(plan.actions).toEqual([]);
    expect(plan.status).toMatchObject({ phase: 'Succeeded', progress: '2/2', finishedAt: NOW.toISOString() });
    expect(plan.status.conditions?.[0]).toMatchObject({
      type: 'Succeeded',
      status: 'True',
      reason: 'Succeeded',
    });
  });

  it('runs the steps of a job in order, each reading earlier steps', () => {
    const run = wfr({
      a: {
        'runs-on': 'bash',
        steps: [
          { name: 'one', run: 'x' },
          { name: 'two', run: 'echo ${{ steps.one.outputs.v }}', env: { V: '${{ steps.one.outputs.v }}' } },
        ],
      },
    });
    const first = step(observed(run));
    expect(created(first.plan.actions).map((r) => r.metadata.name)).toEqual(['release-a-one']);
    const next = first.next;
    next.runs = [finished(next.runs[0] as Run, 'Succeeded', { outputs: { v: '42' } })];
    const { plan } = step(next);
    expect(created(plan.actions).map((r) => [r.spec.script, r.spec.env])).toEqual([
      ['echo 42', [{ name: 'V', value: '42' }]],
    ]);
  });

  it('gives a Run the references of secretEnv, never values, and the limits a step asks', () => {
    const run = wfr({
      a: {
        'runs-on': 'bash',
        steps: [
          {
            name: 'one',
            run: 'x',
            env: { A: 'a' },
            secretEnv: { P: { name: 'db', key: 'password', optional: true } },
            limits: { processes: 10, memoryMiB: 64 },
          },
        ],
      },
    });
    const [r] = created(step(observed(run)).plan.actions);
    expect(r?.spec.env).toEqual([
      { name: 'A', value: 'a' },
      { name: 'P', valueFrom: { secretKeyRef: { name: 'db', key: 'password', optional: true } } },
    ]);
    expect(r?.spec.limits).toEqual({ processes: 10, memoryMiB: 64 });
  });

  it('fails a job whose step fails, skips its dependents and fails the run', () => {
    const run = wfr({
      a: inline('exit 3'),
      b: inline('true', { needs: ['a'] }),
      c: inline('true', { needs: ['b'] }),
    });
    const { next } = step(observed(run));
    next.runs = [
      finished(next.runs[0] as Run, 'Failed', {
        exitCode: 3,
        reason: 'NonZeroExit',
        message: 'the script exited with code 3',
      }),
    ];
    const { plan } = step(next);
    expect(plan.status.jobs).toMatchObject({
      a: { phase: 'Failed', message: 'step "main" failed with exit code 3' },
      b: { phase: 'Skipped', message: 'needs job "a", which did not succeed' },
      c: { phase: 'Skipped', message: 'needs job "b", which did not succeed' },
    });
    expect(plan.status).toMatchObject({
      phase: 'Failed',
      message: 'job "a" failed: step "main" failed with exit code 3',
    });
    expect(plan.status.conditions?.[0]).toMatchObject({ status: 'False', reason: 'Failed' });
    expect(plan.actions).toEqual([]);
  });

  it.each([
    [
      { phase: 'Failed', exitCode: 0, reason: 'OutputsInvalid', message: '$KRT_OUTPUT line 1: bad' },
      'step "main" failed (OutputsInvalid): $KRT_OUTPUT line 1: bad',
    ],
    [
      { phase: 'Timeout', reason: 'Timeout', message: 'stopped after timeoutSeconds 60' },
      'step "main" timed out: stopped after timeoutSeconds 60',
    ],
    [
      { phase: 'Failed', reason: 'Signaled', message: 'the script was killed by SIGKILL' },
      'step "main" failed (Signaled): the script was killed by SIGKILL',
    ],
    [{ phase: 'Failed', exitCode: 2 }, 'step "main" failed with exit code 2'],
  ] as const)('names why a step failed: %j', (status, message) => {
    const { next } = step(observed(wfr({ a: inline('x') })));
    const { phase, ...rest } = status;
    next.runs = [finished(next.runs[0] as Run, phase, rest)];
    expect(step(next).plan.status.jobs?.a).toMatchObject({ phase: 'Failed', message });
  });

  describe('call jobs', () => {
    const deploy: Workflow = {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'Workflow',
      metadata: { name: 'deploy-workflow', namespace: 'ns' },
      spec: {
        inputs: {
          environment: { type: 'string', required: true },
          region: { type: 'string', default: 'eu' },
        },
        outputs: {
          endpoint: { value: '${{ jobs.apply.outputs.endpoint }}' },
          where: { value: '${{ inputs.region }}' },
        },
        jobs: {
          apply: inline('deploy --env=${{ inputs.environment }} --region=${{ inputs.region }}', {
            outputs: { endpoint: '${{ steps.main.outputs.endpoint }}' },
          }),
        },
      },
    };
    const caller = () =>
      wfr({
        build: inline('true', { outputs: { env: '${{ steps.main.outputs.env }}' } }),
        deploy: {
          needs: ['build'],
          uses: 'deploy-workflow',
          with: { environment: '${{ jobs.build.outputs.env }}' },
        },
        notify: inline("notify '${{ jobs.deploy.outputs.endpoint }}'", { needs: ['deploy'] }),
      });
    const afterBuild = (workflow: Observed['workflow']) => {
      const { next } = step(observed(caller(), { workflow }));
      next.runs = [finished(next.runs[0] as Run, 'Succeeded', { outputs: { env: 'staging' } })];
      return next;
    };

    it('creates the child from the template as it is when the job becomes runnable', () => {
      const { actions, status } = planWorkflowRun(
        afterBuild((n) => (n === 'deploy-workflow' ? deploy : undefined)),
      );
      const [child] = children(actions);
      expect(child?.metadata).toMatchObject({
        name: 'release-call-deploy',
        labels: {
          'kruntimes.io/parent-uid': 'uid-1',
          'kruntimes.io/call-job': 'deploy',
          'kruntimes.io/workflow': 'deploy-workflow',
        },
        annotations: {
          'kruntimes.io/workflow-output.endpoint': '${{ jobs.apply.outputs.endpoint }}',
          'kruntimes.io/workflow-output.where': 'eu',
        },
        ownerReferences: [{ kind: 'WorkflowRun', name: 'release', uid: 'uid-1', controller: true }],
      });
      expect(child?.spec.jobs.apply?.steps?.[0]?.run).toBe('deploy --env=staging --region=eu');
      expect(status.jobs?.deploy).toMatchObject({ phase: 'Running', workflowRunName: 'release-call-deploy' });
    });

    it('renders numbers and booleans given in with, and fails the job on a value of the wrong type', () => {
      const typed = {
        ...deploy,
        spec: {
          ...deploy.spec,
          inputs: { ...deploy.spec.inputs, replicas: { type: 'number' }, dry: { type: 'boolean' } },
          jobs: { apply: inline('deploy ${{ inputs.replicas }} ${{ inputs.dry }}') },
        },
      } as unknown as Workflow;
      const withValues = (w: Record<string, unknown>) =>
        planWorkflowRun(
          observed(wfr({ deploy: { uses: 'deploy-workflow', with: { environment: 'x', ...w } } }), {
            workflow: () => typed,
          }),
        );
      const ok = withValues({ replicas: 3, dry: true });
      expect(children(ok.actions)[0]?.spec.jobs.apply?.steps?.[0]?.run).toBe('deploy 3 true');
      const wrong = withValues({ replicas: false });
      expect(wrong.status.jobs?.deploy).toEqual({
        phase: 'Failed',
        message:
          'jobs.deploy.with.replicas: "false" is not a number (input "replicas" of workflow "deploy-workflow")',
        startedAt: NOW.toISOString(),
        finishedAt: NOW.toISOString(),
      });
      const nested = withValues({ replicas: { k: 1 } });
      expect(nested.status.jobs?.deploy?.message).toBe(
        'jobs.deploy.with.replicas: must be a string, number or boolean, not an object (an input value is one scalar)',
      );
      expect(children(nested.actions)).toEqual([]);
    });

    it('projects a succeeded child through its frozen annotations, not the current template', () => {
      const next = afterBuild(() => ({ ...deploy, spec: { ...deploy.spec, outputs: {} } }) as Workflow);
      const child: WorkflowRun = {
        ...wfr(
          { apply: inline('x') },
          {},
          { 'kruntimes.io/workflow-output.endpoint': '${{ jobs.apply.outputs.endpoint }}' },
        ),
        metadata: {
          name: 'release-call-deploy',
          namespace: 'ns',
          uid: 'c',
          annotations: { 'kruntimes.io/workflow-output.endpoint': '${{ jobs.apply.outputs.endpoint }}' },
        },
        status: {
          phase: 'Succeeded',
          jobs: { apply: { phase: 'Succeeded', outputs: { endpoint: 'https://staging.example.com' } } },
        },
      };
      const { actions, status } = planWorkflowRun({ ...next, children: [child] });
      expect(status.jobs?.deploy).toMatchObject({
        phase: 'Succeeded',
        outputs: { endpoint: 'https://staging.example.com' },
      });
      expect(created(actions).map((r) => r.spec.script)).toEqual(["notify 'https://staging.example.com'"]);
    });

    it('fails the caller job when an output annotation refers to a missing job output', () => {
      const next = afterBuild(() => deploy);
      const child = {
        ...wfr({ apply: inline('x') }),
        metadata: {
          name: 'release-call-deploy',
          namespace: 'ns',
          annotations: { 'kruntimes.io/workflow-output.endpoint': '${{ jobs.apply.outputs.nope }}' },
        },
        status: { phase: 'Succeeded', jobs: { apply: { phase: 'Succeeded', outputs: {} } } },
      } as WorkflowRun;
      const { actions, status } = planWorkflowRun({ ...next, children: [child] });
      expect(status.jobs?.deploy?.phase).toBe('Failed');
      expect(status.jobs?.deploy?.message).toContain(
        'output "endpoint" of workflow run "release-call-deploy": jobs.apply.outputs.nope is not defined',
      );
      expect(status.jobs?.notify?.phase).toBe('Skipped');
      expect(actions).toEqual([]);
    });

    it('fails only the call job, without a child, when the graph became cyclic; dependents are skipped', () => {
      const cyclic = new Map<string, Workflow>([
        ['deploy-workflow', { ...deploy, spec: { jobs: { back: { uses: 'other' } } } } as Workflow],
        [
          'other',
          {
            ...deploy,
            metadata: { name: 'other' },
            spec: { jobs: { again: { uses: 'deploy-workflow' } } },
          } as Workflow,
        ],
      ]);
      const { actions, status } = planWorkflowRun(afterBuild((n) => cyclic.get(n)));
      expect(children(actions)).toEqual([]);
      expect(status.jobs?.deploy).toEqual({
        phase: 'Failed',
        message: 'workflow call cycle: deploy-workflow -> other -> deploy-workflow',
        startedAt: NOW.toISOString(),
        finishedAt: NOW.toISOString(),
      });
      expect(status.jobs?.notify?.phase).toBe('Skipped');
      expect(status.phase).toBe('Failed');
    });

    it('fails the call job when the Workflow does not exist, and does not retry it', () => {
      const next = afterBuild(() => undefined);
      const first = planWorkflowRun(next);
      expect(first.status.jobs?.deploy?.message).toBe(
        'workflow "deploy-workflow" not found: deploy-workflow',
      );
      // The caller confirms the absence with the API server before it trusts a cache.
      expect(first.missingWorkflows).toEqual(['deploy-workflow']);
      const again = planWorkflowRun({
        ...next,
        run: { ...next.run, status: first.status },
        workflow: () => deploy,
      });
      expect(children(again.actions)).toEqual([]);
      expect(again.status.jobs?.deploy?.phase).toBe('Failed');
      expect(again.missingWorkflows).toBeUndefined();
    });

    it('names the missing Workflow deep in the call graph, once', () => {
      const calls = { ...deploy, spec: { jobs: { a: { uses: 'gone' }, b: { uses: 'gone' } } } } as Workflow;
      const plan = planWorkflowRun(afterBuild((n) => (n === 'deploy-workflow' ? calls : undefined)));
      expect(plan.status.jobs?.deploy?.message).toBe('workflow "gone" not found: deploy-workflow -> gone');
      expect(plan.missingWorkflows).toEqual(['gone']);
    });

    it('names no missing Workflow when the call graph fails for another reason', () => {
      const self = { ...deploy, spec: { jobs: { a: { uses: 'deploy-workflow' } } } } as Workflow;
      const plan = planWorkflowRun(afterBuild(() => self));
      expect(plan.status.jobs?.deploy?.phase).toBe('Failed');
      expect(plan.missingWorkflows).toBeUndefined();
    });

    it('fails the call job when its inputs do not fit the template', () => {
      const strict = {
        ...deploy,
        spec: { ...deploy.spec, inputs: { count: { type: 'number', required: true } } },
      } as Workflow;
      const { status } = planWorkflowRun(afterBuild(() => strict));
      expect(status.jobs?.deploy?.message).toBe(
        'jobs.deploy.with.environment: input "environment" is not declared by workflow "deploy-workflow"; jobs.deploy.with: required input "count" of workflow "deploy-workflow" is not given',
      );
    });
  });

  describe('cancellation', () => {
    it('requests cancellation of direct children and ends only after they settle', () => {
      const run = wfr({ a: inline('sleep 100'), b: inline('true', { needs: ['a'] }), c: { uses: 'w' } });
      const started = step(
        observed(run, {
          workflow: (n) =>
            n === 'w'
              ? ({ metadata: { name: 'w' }, spec: { jobs: { x: inline('x') } } } as unknown as Workflow)
              : undefined,
        }),
      );
      const child = {
        ...(children(started.plan.actions)[0] as WorkflowRun),
        status: { phase: 'Running' },
      } as WorkflowRun;
      const cancelled = {
        ...started.next,
        run: { ...started.next.run, spec: { ...run.spec, cancelRequested: true } },
        children: [child],
      };
      let plan = planWorkflowRun(cancelled);
      expect(plan.actions).toEqual([
        { type: 'cancelRun', name: 'release-a-main' },
        { type: 'cancelChild', name: 'release-call-c' },
      ]);
      expect(plan.status.phase).toBe('Running');
      expect(plan.status.jobs?.b?.phase).toBe('Cancelled');
      // The Run settles first; the child is still running, so the run is not terminal yet.
      const settledRun = finished(
        {
          ...(cancelled.runs[0] as Run),
          spec: { ...(cancelled.runs[0] as Run).spec, cancelRequested: true },
        },
        'Cancelled',
      );
      const cancelledChild = { ...child, spec: { ...child.spec, cancelRequested: true } };
      plan = planWorkflowRun({ ...cancelled, runs: [settledRun], children: [cancelledChild] });
      expect(plan.actions).toEqual([]);
      expect(plan.status.phase).toBe('Running');
      expect(plan.status.jobs).toMatchObject({
        a: { phase: 'Cancelled' },
        b: { phase: 'Cancelled' },
        c: { phase: 'Running' },
      });
      plan = planWorkflowRun({
        ...cancelled,
        runs: [settledRun],
        children: [{ ...cancelledChild, status: { phase: 'Cancelled' } }],
      });
      expect(plan.status).toMatchObject({ phase: 'Cancelled', message: 'cancelled on request' });
      expect(plan.status.conditions?.[0]).toMatchObject({ status: 'False', reason: 'Cancelled' });
    });

    it('cancels jobs that have not started without creating anything', () => {
      const plan = planWorkflowRun(observed(wfr({ a: inline('true') }, { cancelRequested: true })));
      expect(plan.actions).toEqual([]);
      expect(plan.status).toMatchObject({
        phase: 'Cancelled',
        jobs: { a: { phase: 'Cancelled', message: 'cancelled before it started' } },
      });
    });
  });

  it('waits while a deterministic name is held by a deleted run of the same name, then goes on', () => {
    const run = wfr({ a: inline('true'), c: { uses: 'w' } });
    const o = observed(run, {
      takenByOther: () => 'previous',
      workflow: () =>
        ({ metadata: { name: 'w' }, spec: { jobs: { x: inline('x') } } }) as unknown as Workflow,
    });
    const waiting = planWorkflowRun(o);
    expect(waiting.actions).toEqual([]);
    expect(waiting.requeueAfter).toBe(2000);
    expect(waiting.status.jobs).toMatchObject({
      a: {
        phase: 'Pending',
        message: 'waiting for Run "release-a-main" of a deleted run of this name to go',
      },
      c: {
        phase: 'Pending',
        message: 'waiting for WorkflowRun "release-call-c" of a deleted run of this name to go',
      },
    });
    expect(waiting.status.phase).toBe('Pending');
    // Once the garbage collector removed them, the run's own are made.
    const gone = planWorkflowRun({
      ...o,
      run: { ...run, status: waiting.status },
      takenByOther: () => undefined,
    });
    expect(gone.actions.map((a) => a.type).sort()).toEqual(['createChild', 'createRun']);
  });

  it('fails a job whose deterministic name is taken by another owner, instead of retrying', () => {
    const run = wfr({ a: inline('true'), c: { uses: 'w' } });
    const plan = planWorkflowRun(
      observed(run, {
        takenByOther: () => 'other',
        workflow: () =>
          ({ metadata: { name: 'w' }, spec: { jobs: { x: inline('x') } } }) as unknown as Workflow,
      }),
    );
    expect(plan.actions).toEqual([]);
    expect(plan.status.jobs).toMatchObject({
      a: { phase: 'Failed', message: 'Run "release-a-main" exists and belongs to another owner' },
      c: { phase: 'Failed', message: 'WorkflowRun "release-call-c" exists and belongs to another owner' },
    });
  });

  it('fails only the job whose create was refused, skips its dependents and goes on with the rest', () => {
    const run = wfr({
      a: {
        'runs-on': 'bash',
        steps: [
          { name: 'one', run: 'true' },
          { name: 'two', run: 'x' },
        ],
      },
      b: inline('true', { needs: ['a'] }),
      c: { uses: 'w' },
      d: inline('true'),
    });
    const w = { metadata: { name: 'w' }, spec: { jobs: { j: inline('true') } } } as unknown as Workflow;
    const o = observed(run, { workflow: () => w });
    const first = planWorkflowRun(o);
    const runs = created(first.actions).map((r) => finished(r, 'Succeeded'));
    const second = planWorkflowRun({ ...o, run: { ...run, status: first.status }, runs });
    // The API server refuses step "two" of a and the child of c.
    expect(second.actions.map((a) => ('job' in a ? `${a.type} ${a.job}` : a.type))).toEqual([
      'createRun a',
      'createChild c',
    ]);
    const refused = withFailedJobs(
      { ...run, status: second.status },
      { a: 'the API server refused to create Run "release-a-two": too big', c: 'denied' },
    );
    const third = planWorkflowRun({ ...o, run: refused, runs });
    expect(third.actions).toEqual([]);
    expect(third.status.jobs).toMatchObject({
      a: { phase: 'Failed', message: 'the API server refused to create Run "release-a-two": too big' },
      b: { phase: 'Skipped', message: 'needs job "a", which did not succeed' },
      c: { phase: 'Failed', message: 'denied' },
      d: { phase: 'Succeeded' },
    });
    expect(third.status.phase).toBe('Failed');
    // A later reconcile keeps the failure and creates nothing again.
    const again = planWorkflowRun({ ...o, run: { ...run, status: third.status }, runs });
    expect(again.actions).toEqual([]);
    expect(again.status).toEqual(third.status);
  });

  describe('a Run that waits for an agent', () => {
    const run = wfr({ py: { 'runs-on': 'python', steps: [{ name: 'main', run: 'print(1)' }] } });
    const made = () => created(planWorkflowRun(observed(run)).actions)[0] as Run;
    const message = 'no runtimed serves runtime "python" in namespace "ns"';

    it('is marked Pending with NoAgent when no live agent serves its runtime, and the job and run say so', () => {
      const plan = planWorkflowRun(observed(run, { runs: [made()], agentsServe: () => undefined }));
      expect(plan.actions).toEqual([{ type: 'markNoAgent', run: made(), message }]);
      expect(plan.status.jobs?.py).toMatchObject({
        phase: 'Running',
        message: `step "main": NoAgent: ${message}`,
      });
      expect(plan.status).toMatchObject({
        phase: 'Running',
        message: `job "py": step "main": NoAgent: ${message}`,
      });
      expect(plan.status.conditions?.[0]).toMatchObject({ status: 'Unknown', message: plan.status.message });
      expect(plan.requeueAfter).toBeUndefined();
    });

    it('is marked once', () => {
      const marked = { ...made(), status: { phase: 'Pending', reason: 'NoAgent', message } } as Run;
      const plan = planWorkflowRun(observed(run, { runs: [marked], agentsServe: () => undefined }));
      expect(plan.actions).toEqual([]);
      expect(plan.status.jobs?.py?.message).toBe(`step "main": NoAgent: ${message}`);
    });

    it('is ended by the controller when its run is cancelled: no agent would, and none may claim it now', () => {
      const cancelled = { ...run, spec: { ...run.spec, cancelRequested: true } };
      const plan = planWorkflowRun(observed(cancelled, { runs: [made()], agentsServe: () => undefined }));
      expect(plan.actions).toEqual([
        { type: 'cancelUnserved', run: made(), message: `cancelled before it started: ${message}` },
      ]);
      // Once it says Cancelled, the job and the run end.
      const ended = { ...made(), status: { phase: 'Cancelled', reason: 'Cancelled' } } as Run;
      const after = planWorkflowRun(observed(cancelled, { runs: [ended], agentsServe: () => undefined }));
      expect(after.actions).toEqual([]);
      expect(after.status.jobs?.py?.phase).toBe('Cancelled');
      expect(after.status.phase).toBe('Cancelled');
    });

    it('is left to its agent when cancelled while one serves it, or once one has claimed it', () => {
      const cancelled = { ...run, spec: { ...run.spec, cancelRequested: true } };
      const until = NOW.getTime() + 10_000;
      const served = planWorkflowRun(observed(cancelled, { runs: [made()], agentsServe: () => until }));
      expect(served.actions).toEqual([{ type: 'cancelRun', name: made().metadata.name }]);
      const claimed = { ...made(), status: { phase: 'Running', assignedTo: 'a' } } as Run;
      const held = planWorkflowRun(observed(cancelled, { runs: [claimed], agentsServe: () => undefined }));
      expect(held.actions).toEqual([{ type: 'cancelRun', name: made().metadata.name }]);
    });

    it('is looked at again when the serving agent’s Lease would expire, and says nothing meanwhile', () => {
      const until = NOW.getTime() + 10_000;
      const plan = planWorkflowRun(observed(run, { runs: [made()], agentsServe: () => until }));
      expect(plan.actions).toEqual([]);
      expect(plan.status.jobs?.py?.message).toBeUndefined();
      expect(plan.status.message).toBeUndefined();
      expect(plan.requeueAfter).toBe(11_000);
      // Once claimed, nothing waits.
      const claimed = { ...made(), status: { phase: 'Running', assignedTo: 'a' } } as Run;
      expect(
        planWorkflowRun(observed(run, { runs: [claimed], agentsServe: () => until })).requeueAfter,
      ).toBeUndefined();
    });
  });

  it('evaluates the run outputs from its own frozen annotations', () => {
    const run = wfr(
      { apply: inline('x', { outputs: { endpoint: '${{ steps.main.outputs.e }}' } }) },
      {},
      { 'kruntimes.io/workflow-output.endpoint': '${{ jobs.apply.outputs.endpoint }}' },
    );
    const { next } = step(observed(run));
    next.runs = [finished(next.runs[0] as Run, 'Succeeded', { outputs: { e: 'https://x' } })];
    expect(planWorkflowRun(next).status).toMatchObject({
      phase: 'Succeeded',
      outputs: { endpoint: 'https://x' },
    });
  });

  it('is idempotent: replanning an unchanged world gives the same status and no new work', () => {
    const run = wfr({ a: inline('true'), b: inline('true', { needs: ['a'] }) });
    const { next } = step(observed(run));
    const first = planWorkflowRun(next);
    const later = planWorkflowRun({
      ...next,
      run: { ...next.run, status: first.status },
      now: new Date('2026-12-02T11:00:00Z'),
    });
    expect(later.status).toEqual(first.status);
    expect(later.actions).toEqual([]);
  });
});
