// Agents are visible: each runtimed holds a Lease; admission warns about a runtime nobody serves; a
// Run nobody can claim says so (Pending, NoAgent), as do its job, its WorkflowRun and an Event; an
// agent that comes takes it; `krt agent list` shows who serves what.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowRun } from '../../src/api/types.js';
import { crd } from '../../src/kube/rest.js';
import { startAgent, type AgentProcess } from '../harness/agent.js';
import { eventually, testCluster, type TestCluster } from '../harness/cluster.js';
import { kubectl } from '../harness/kubectl.js';
import { krt } from '../harness/krt.js';
import { getRun, getWorkflowRun, runInPhase, workflowRunInPhase } from '../harness/objects.js';

let c: TestCluster;
const agents: AgentProcess[] = [];
beforeAll(async () => {
  c = await testCluster('e2e-agents');
});
afterAll(async () => {
  for (const a of agents) a.proc.kill('SIGKILL');
  await c?.cleanup();
});

const run = (name: string, runtime: string) => ({
  apiVersion: 'kruntimes.io/v1alpha1',
  kind: 'WorkflowRun',
  metadata: { name, namespace: c.namespace },
  spec: { jobs: { job: { 'runs-on': runtime, steps: [{ name: 'main', run: 'echo served' }] } } },
});
const waitsFor = (runtime: string) => `no runtimed serves runtime "${runtime}" in namespace "${c.namespace}"`;

async function noAgentEvents(): Promise<string[]> {
  const events = await c.admin.core.listNamespacedEvent({ namespace: c.namespace });
  return events.items
    .filter((e) => e.reason === 'NoAgent')
    .map((e) => `${e.involvedObject.kind}/${e.involvedObject.name}: ${e.message}`);
}

it('krt agent list shows the local agent and what it serves', async () => {
  const l = await krt(c, 'agent', 'list');
  expect(l.status).toBe(0);
  expect(l.stdout).toMatch(/^IDENTITY\s+RUNTIMES\s+NAMESPACES\s+LIVE\s+RENEWED\s+AGE$/m);
  expect(l.stdout).toMatch(/^local-runtimed\s+bash\s+\*\s+yes\s+\d+s ago\s/m);
});

it('a runtime nobody serves: a warning at apply, then Pending NoAgent until an agent comes', async () => {
  const applied = kubectl(['apply', '-f', '-'], JSON.stringify(run('lonely', 'python')));
  expect(applied.status).toBe(0);
  expect(applied.stderr).toContain(
    `Warning: spec.jobs.job.runs-on: ${waitsFor('python')} now; its steps will wait until one does`,
  );
  const waiting = await runInPhase(c, 'lonely-job-main', ['Pending'], 20_000);
  await eventually(
    async () => (await getRun(c, 'lonely-job-main')).status?.reason === 'NoAgent',
    20_000,
    'reason NoAgent',
  );
  const marked = await getRun(c, 'lonely-job-main');
  expect(marked.status).toMatchObject({ phase: 'Pending', reason: 'NoAgent', message: waitsFor('python') });
  expect(waiting.metadata.name).toBe('lonely-job-main');
  let wfr: WorkflowRun | undefined;
  await eventually(
    async () => {
      wfr = await getWorkflowRun(c, 'lonely');
      return wfr.status?.message !== undefined;
    },
    20_000,
    'the WorkflowRun to say why it waits',
  );
  expect(wfr?.status).toMatchObject({
    phase: 'Running',
    message: `job "job": step "main": NoAgent: ${waitsFor('python')}`,
    jobs: { job: { phase: 'Running', message: `step "main": NoAgent: ${waitsFor('python')}` } },
  });
  await eventually(async () => (await noAgentEvents()).length >= 2, 20_000, 'NoAgent events');
  expect(await noAgentEvents()).toEqual(
    expect.arrayContaining([
      `Run/lonely-job-main: ${waitsFor('python')}`,
      `WorkflowRun/lonely: job "job" waits: step "main": NoAgent: ${waitsFor('python')}`,
    ]),
  );
  const g = await krt(c, 'wfr', 'get', 'lonely');
  expect(g.stdout).toContain(`(job "job": step "main": NoAgent: ${waitsFor('python')})`);

  // An agent that serves python in this namespace comes: it takes the Run, the message goes.
  const agent = await startAgent({
    identity: `py-${c.namespace}`,
    runtime: 'python',
    namespace: c.namespace,
    dataDir: mkdtempSync(join(tmpdir(), 'krt-agent-')),
  });
  agents.push(agent);
  const done = await workflowRunInPhase(c, 'lonely', ['Succeeded', 'Failed'], 30_000);
  expect(done.status?.phase).toBe('Succeeded');
  expect(done.status?.message).toBeUndefined();
  const listed = await krt(c, 'agent', 'list');
  expect(listed.stdout).toMatch(new RegExp(`^py-${c.namespace}\\s+python\\s+${c.namespace}\\s+yes\\s`, 'm'));
  // Stopped cleanly, it takes its Lease with it, and admission warns again at once.
  agent.proc.kill('SIGTERM');
  await agent.exited;
  expect((await krt(c, 'agent', 'list')).stdout).not.toContain(`py-${c.namespace}`);
  await eventually(
    async () =>
      kubectl(
        ['apply', '--dry-run=server', '-f', '-'],
        JSON.stringify(run('again', 'python')),
      ).stderr.includes(waitsFor('python')),
    10_000,
    'the webhook to see the Lease gone',
  );
});

it('an agent that dies is known gone when its Lease expires: a Run made meanwhile then says NoAgent', async () => {
  const agent = await startAgent({
    identity: `brief-${c.namespace}`,
    runtime: 'brief',
    namespace: c.namespace,
    dataDir: mkdtempSync(join(tmpdir(), 'krt-agent-')),
    leaseSeconds: 3,
  });
  agents.push(agent);
  agent.proc.kill('SIGKILL');
  await agent.exited;
  // Created while the dead agent's Lease still counts: no warning, nobody claims it.
  await c.admin.custom.createNamespacedCustomObject({
    ...crd('workflowruns', c.namespace),
    body: run('orphaned', 'brief'),
  });
  await eventually(
    async () => (await getRun(c, 'orphaned-job-main').catch(() => undefined))?.status?.reason === 'NoAgent',
    30_000,
    'the Run to be marked NoAgent once the Lease expired',
  );
  // The controller carries the Run's reason into its WorkflowRun when it sees the Run change.
  const why = `step "main": NoAgent: ${waitsFor('brief')}`;
  await eventually(
    async () => (await getWorkflowRun(c, 'orphaned')).status?.jobs?.job?.message === why,
    30_000,
    'the WorkflowRun to say why its job waits',
  );
  expect((await krt(c, 'agent', 'list')).stdout).toMatch(
    new RegExp(`^brief-${c.namespace}\\s+brief\\s+${c.namespace}\\s+no \\(expired \\d+s ago\\)`, 'm'),
  );
});
