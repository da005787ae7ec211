// Suspend, resume and retry (second seed, "Suspending or Retrying a workflow") end to end: real API
// server, webhook, controller and runtimed running real bash. One test per rule of the seed.
// Steps decide by a counter this suite owns (the harness channel), so each attempt can behave
// differently.
import type { Run, WorkflowRun } from '../../src/api/types.js';
import { crd } from '../../src/kube/rest.js';
import { controllerSees } from '../harness/caches.js';
import { eventually, testCluster, type TestCluster } from '../harness/cluster.js';
import { controllerPid, isLeader, startController } from '../harness/controller.js';
import { kubectl } from '../harness/kubectl.js';
import { krt } from '../harness/krt.js';
import { getRun, getWorkflowRun, runInPhase, workflowRunInPhase } from '../harness/objects.js';
import { processAlive } from '../harness/webhook.js';
import { channel, type Channel } from '../harness/channel.js';

const SUSPENDED = 'kruntimes.io/workflow-suspended';
let c: TestCluster;
let ch: Channel;
beforeAll(async () => {
  c = await testCluster('e2e-suspend');
  ch = await channel();
});
afterAll(async () => {
  if (!processAlive(controllerPid())) startController();
  await c?.cleanup();
  await ch?.close();
});

/** A fresh counter (a journal of the harness channel) and a script line that bumps it into $n. */
function counter(): { count: () => number; bump: string } {
  const j = ch.journal();
  return { count: () => j.lines().length, bump: `echo x | ${j.append}; n=$(${j.read} | wc -l)` };
}
const step = (name: string, run: string) => ({ name, run });
async function create(name: string, jobs: object): Promise<void> {
  await c.admin.custom.createNamespacedCustomObject({
    ...crd('workflowruns', c.namespace),
    body: { apiVersion: 'kruntimes.io/v1alpha1', kind: 'WorkflowRun', metadata: { name }, spec: { jobs } },
  });
}
const inPhase = (name: string, phases: string[]) => workflowRunInPhase(c, name, phases, 60_000);
async function runs(): Promise<Run[]> {
  return (
    (await c.admin.custom.listNamespacedCustomObject({ ...crd('runs', c.namespace) })) as { items: Run[] }
  ).items;
}
async function events(name: string): Promise<string[]> {
  const list = await c.admin.core.listNamespacedEvent({ namespace: c.namespace });
  return list.items.filter((e) => e.involvedObject.name === name).map((e) => e.reason ?? '');
}
/** work (suspends on its first execution), after (needs work), aside (independent). */
function suspending(n: ReturnType<typeof counter>, message = 'waiting for approval') {
  return {
    work: {
      'runs-on': 'bash',
      steps: [
        step(
          'ask',
          `${n.bump}; if [ "$n" = 1 ]; then printf 'suspend: true\\nmessage: ${message}\\n' > "$KRT_CONTROL"; fi`,
        ),
        step('go', 'echo going'),
      ],
    },
    after: { 'runs-on': 'bash', needs: ['work'], steps: [step('s', 'echo after')] },
    aside: { 'runs-on': 'bash', steps: [step('s', 'echo aside')] },
  };
}

async function expectSuspended(name: string): Promise<WorkflowRun> {
  const wfr = await inPhase(name, ['Suspended']);
  await eventually(
    async () => (await getWorkflowRun(c, name)).status?.jobs?.aside?.phase === 'Succeeded',
    30_000,
    'aside to finish',
  );
  const now = await getWorkflowRun(c, name);
  expect(now.metadata.labels?.[SUSPENDED]).toBe('true');
  expect(now.status?.jobs?.work).toMatchObject({
    phase: 'Suspended',
    message: 'waiting for approval',
    attempts: 1,
  });
  expect(now.status?.jobs?.after?.phase).toBe('Pending');
  expect(now.status?.conditions?.[0]).toMatchObject({
    type: 'Succeeded',
    status: 'Unknown',
    reason: 'Suspended',
  });
  const names = (await runs()).map((r) => r.metadata.name);
  expect(names).toContain(`${name}-work-ask`);
  expect(names).not.toContain(`${name}-work-go`);
  expect(names).not.toContain(`${name}-after-s`);
  return wfr;
}

it('suspend holds the job and its dependents; removing the label with kubectl resumes it as attempt 2', async () => {
  const n = counter();
  await create('sus-kubectl', suspending(n));
  await expectSuspended('sus-kubectl');
  const got = kubectl(['get', 'wfr', 'sus-kubectl', '-n', c.namespace]);
  expect(got.stdout).toMatch(/MESSAGE/);
  expect(got.stdout).toContain('job "work" is suspended: waiting for approval');
  expect(kubectl(['label', 'wfr', 'sus-kubectl', '-n', c.namespace, `${SUSPENDED}-`]).status).toBe(0);
  const done = await inPhase('sus-kubectl', ['Succeeded', 'Failed', 'Cancelled']);
  expect(done.status?.phase).toBe('Succeeded');
  expect(done.status?.jobs?.work).toMatchObject({ phase: 'Succeeded', attempts: 2 });
  expect(done.status?.jobs?.work?.steps?.map((s) => s.runName)).toEqual([
    'sus-kubectl-work-ask-a2',
    'sus-kubectl-work-go-a2',
  ]);
  expect(n.count()).toBe(2);
  expect(await events('sus-kubectl')).toEqual(expect.arrayContaining(['JobSuspended', 'JobResumed']));
});

it('krt wfr resume --wait resumes it and follows the run to its end', async () => {
  const n = counter();
  await create('sus-krt', suspending(n));
  await expectSuspended('sus-krt');
  const g = await krt(c, 'wfr', 'get', 'sus-krt');
  expect(g.stdout).toMatch(/work {2}Suspended {2}\S+ {2}attempt 1 {2}\(waiting for approval\)/);
  const r = await krt(c, 'wfr', 'resume', 'sus-krt', '--wait');
  expect(r.stdout.split('\n')[0]).toBe('workflowrun/sus-krt resumed');
  expect(r.status).toBe(0);
  expect(r.stderr).toMatch(/sus-krt: Succeeded/);
  expect((await getWorkflowRun(c, 'sus-krt')).status?.jobs?.after?.phase).toBe('Succeeded');
  expect((await krt(c, 'wfr', 'resume', 'sus-krt')).stderr).toBe(
    'krt: workflowrun sus-krt has no suspended job\n',
  );
});

it('retryAfter 2s twice: three executions, attempts 3, then the next job runs', async () => {
  const n = counter();
  await create('retry', {
    work: {
      'runs-on': 'bash',
      steps: [step('try', `${n.bump}; if [ "$n" -lt 3 ]; then echo "retryAfter: 2s" > "$KRT_CONTROL"; fi`)],
    },
    after: { 'runs-on': 'bash', needs: ['work'], steps: [step('s', 'echo after')] },
  });
  const held = await inPhase('retry', ['Suspended']);
  expect(held.status?.jobs?.work?.nextRetryAt).toBeDefined();
  const done = await inPhase('retry', ['Succeeded', 'Failed']);
  expect(done.status?.phase).toBe('Succeeded');
  expect(done.status?.jobs?.work?.attempts).toBe(3);
  expect(n.count()).toBe(3);
  // Each retry ran no sooner than the time recorded for it.
  const tries = await Promise.all(
    ['retry-work-try', 'retry-work-try-a2', 'retry-work-try-a3'].map((r) => getRun(c, r)),
  );
  for (let i = 1; i < 3; i++)
    expect(Date.parse(tries[i]?.status?.startTime ?? '')).toBeGreaterThanOrEqual(
      Date.parse(tries[i - 1]?.status?.completionTime ?? '') + 2000,
    );
  expect(done.status?.jobs?.after?.phase).toBe('Succeeded');
  expect(await events('retry')).toEqual(expect.arrayContaining(['JobRetryScheduled', 'JobResumed']));
});

it('suspend and retryAfter together: the retry wins, no label removal is needed', async () => {
  const n = counter();
  await create('both', {
    work: {
      'runs-on': 'bash',
      steps: [
        step(
          'try',
          `${n.bump}; if [ "$n" = 1 ]; then printf 'retryAfter: 1s\\nsuspend: true\\n' > "$KRT_CONTROL"; fi`,
        ),
      ],
    },
  });
  const done = await inPhase('both', ['Succeeded', 'Failed']);
  expect(done.status?.phase).toBe('Succeeded');
  expect(done.status?.jobs?.work?.attempts).toBe(2);
  expect(done.metadata.labels?.[SUSPENDED]).toBeUndefined();
});

it('a controller SIGKILLed between retries keeps the schedule: the retry happens once, not early', async () => {
  const n = counter();
  await create('restart', {
    work: {
      'runs-on': 'bash',
      steps: [step('try', `${n.bump}; if [ "$n" = 1 ]; then echo "retryAfter: 4s" > "$KRT_CONTROL"; fi`)],
    },
  });
  const held = await inPhase('restart', ['Suspended']);
  const retryAt = Date.parse(held.status?.jobs?.work?.nextRetryAt ?? '');
  const pid = controllerPid();
  process.kill(pid, 'SIGKILL');
  await eventually(async () => !processAlive(pid), 5000, 'the controller to die');
  startController();
  await eventually(async () => (await isLeader()) === 1, 30_000, 'the restarted controller to lead');
  const done = await inPhase('restart', ['Succeeded', 'Failed']);
  expect(done.status?.jobs?.work?.attempts).toBe(2);
  expect(n.count()).toBe(2);
  const second = await getRun(c, 'restart-work-try-a2');
  expect(Date.parse(second.status?.startTime ?? '')).toBeGreaterThanOrEqual(retryAt);
  expect((await runs()).filter((r) => r.metadata.name?.startsWith('restart-work-try')).length).toBe(2);
});

it('cancelling a suspended run ends it Cancelled', async () => {
  const n = counter();
  await create('sus-cancel', suspending(n));
  await expectSuspended('sus-cancel');
  const r = await krt(c, 'wfr', 'cancel', 'sus-cancel', '--wait');
  expect(r.status).toBe(1);
  const done = await getWorkflowRun(c, 'sus-cancel');
  expect(done.status?.phase).toBe('Cancelled');
  expect(done.status?.jobs?.work).toMatchObject({ phase: 'Cancelled', message: 'cancelled while suspended' });
  expect(done.status?.jobs?.after?.phase).toBe('Cancelled');
});

it('a call job whose child suspends shows Suspended; resumed on the child, the parent follows', async () => {
  const n = counter();
  const approval = {
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'Workflow',
    metadata: { name: 'approval', namespace: c.namespace },
    spec: {
      jobs: {
        gate: {
          'runs-on': 'bash',
          steps: [
            step(
              'ask',
              `${n.bump}; if [ "$n" = 1 ]; then printf 'suspend: true\\nmessage: sign here\\n' > "$KRT_CONTROL"; fi`,
            ),
          ],
        },
      },
    },
  };
  expect(kubectl(['apply', '-f', '-'], JSON.stringify(approval)).status).toBe(0);
  await controllerSees(c, 'approval');
  await create('parent', {
    call: { uses: 'approval' },
    after: { 'runs-on': 'bash', needs: ['call'], steps: [step('s', 'echo after')] },
  });
  const parent = await inPhase('parent', ['Suspended']);
  expect(parent.status?.jobs?.call).toMatchObject({
    phase: 'Suspended',
    workflowRunName: 'parent-call-call',
  });
  expect(parent.status?.jobs?.call?.message).toContain('sign here');
  const child = await getWorkflowRun(c, 'parent-call-call');
  expect(child.metadata.labels?.[SUSPENDED]).toBe('true');
  expect(parent.metadata.labels?.[SUSPENDED]).toBeUndefined();
  const r = await krt(c, 'wfr', 'resume', 'parent');
  expect(r.stdout).toBe('workflowrun/parent-call-call resumed\n');
  const done = await inPhase('parent', ['Succeeded', 'Failed']);
  expect(done.status?.phase).toBe('Succeeded');
  expect(done.status?.jobs?.after?.phase).toBe('Succeeded');
});

it.each([
  ['not: [yaml', /^\$KRT_CONTROL is not YAML: /],
  ['retryAfter: soon', /^\$KRT_CONTROL retryAfter: "soon" is not a duration such as 30s, 10m, 1h30m or 1d$/],
])('a bad control file (%s) fails the Run, naming the file and the problem', async (text, message) => {
  const name = `bad-${text.length}`;
  await create(name, { work: { 'runs-on': 'bash', steps: [step('s', `echo '${text}' > "$KRT_CONTROL"`)] } });
  const run = await runInPhase(c, `${name}-work-s`, ['Failed'], 30_000);
  expect(run.status?.reason).toBe('WorkflowControlInvalid');
  expect(run.status?.message).toMatch(message);
  expect((await inPhase(name, ['Failed'])).status?.jobs?.work?.message).toContain('WorkflowControlInvalid');
});

it('a message written to $KRT_STATUS is the run message kubectl get wfr shows', async () => {
  await create('told', {
    work: {
      'runs-on': 'bash',
      steps: [
        step(
          's',
          `printf 'message: deployed 3 replicas\\nreplicas: 3\\nendpoint: {host: web, ports: [80, 443]}\\n' > "$KRT_STATUS"`,
        ),
      ],
    },
  });
  const done = await inPhase('told', ['Succeeded', 'Failed']);
  // Kept as written: numbers stay numbers, nested values stay nested.
  expect(done.status).toMatchObject({
    phase: 'Succeeded',
    message: 'deployed 3 replicas',
    stepStatus: { replicas: 3, endpoint: { host: 'web', ports: [80, 443] } },
  });
  expect(kubectl(['get', 'wfr', 'told', '-n', c.namespace]).stdout).toMatch(
    /^told\s+Succeeded\s+1\/1\s+deployed 3 replicas\s+\S+$/m,
  );
});

it('a $KRT_STATUS nested deeper than its bound fails the Run, naming the key and the bound', async () => {
  await create('deep', {
    work: {
      'runs-on': 'bash',
      steps: [step('s', `echo 'a: {b: {c: {d: {e: {f: {g: {h: {i: 1}}}}}}}}' > "$KRT_STATUS"`)],
    },
  });
  const run = await runInPhase(c, 'deep-work-s', ['Failed'], 30_000);
  expect(run.status?.reason).toBe('StatusFileInvalid');
  expect(run.status?.message).toBe('$KRT_STATUS a.b.c.d.e.f.g.h: nested deeper than 8 levels');
});
