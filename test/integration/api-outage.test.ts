// An API outage longer than the stale period while a step finishes (issue "Reliability under
// faults"): a step that ends before its agent gives up on its heartbeats (runtimed/liveness.ts) is
// not lost: the agent keeps the result, on disk as well, and reports it when the API server is back,
// also after its own restart; the other agent does not re-queue the Run meanwhile, so the step runs
// once. Real API server (stopped and started), real runtimed agents, real bash in the sandbox.
import { appendFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgent, type AgentProcess } from '../harness/agent.js';
import { startApiServer, stopApiServer } from '../harness/apiserver.js';
import { channel, type Channel } from '../harness/channel.js';
import { eventually, testCluster, type TestCluster } from '../harness/cluster.js';
import { controllerPid, startController } from '../harness/controller.js';
import { createRun, runInPhase } from '../harness/objects.js';
import { processAlive } from '../harness/webhook.js';

const RUNTIME = 'outage';
// The fault itself: the API server stays away longer than the agents' stale period (a duration of
// the fault, not a wait for state).
const outageFor = (staleSeconds: number) => (staleSeconds + 3) * 1000;

let c: TestCluster;
let ch: Channel;
const agents: AgentProcess[] = [];
beforeAll(async () => {
  c = await testCluster('api-outage');
  ch = await channel();
});
afterAll(async () => {
  // KRT_DEBUG_OUTAGE=<file> keeps what the agents logged (with KRT_LOG_LEVEL=debug, their claims).
  const debug = process.env.KRT_DEBUG_OUTAGE;
  if (debug) for (const a of agents) appendFileSync(debug, a.output());
  for (const a of agents) if (a.proc.exitCode === null) a.proc.kill('SIGTERM');
  await Promise.all(agents.map((a) => a.exited));
  // The controller gives up leading when it cannot renew; a Deployment would restart it.
  if (!processAlive(controllerPid())) startController();
  await c?.cleanup();
  await ch?.close();
});

// Long enough that the step ends (the gate opened as the API server stops) before its agent, whose
// heartbeats fail from then on, stops it for want of them (runtimed/liveness.ts fence).
const agent = async (identity: string, dataDir: string, staleSeconds = 8) => {
  const a = await startAgent({
    identity,
    runtime: RUNTIME,
    dataDir,
    namespace: c.namespace,
    staleSeconds,
    heartbeatSeconds: 1,
  });
  agents.push(a);
  return a;
};

interface Outage {
  staleSeconds: number;
  /** While the API server is down, after the step ended. */
  whileDown?: (holder: string) => Promise<void>;
  /** Right after it is back. */
  afterUp?: (holder: string) => Promise<void>;
}

async function stepFinishedDuringOutage(name: string, o: Outage) {
  const executions = ch.journal();
  const ended = ch.journal();
  const gate = ch.gate();
  await createRun(c, name, {
    runtime: RUNTIME,
    script: [
      `echo "attempt $KRT_ATTEMPT" | ${executions.append}`,
      `until ${gate.check}; do sleep 0.1; done`,
      'echo "answer=42" >> "$KRT_OUTPUT"',
      `echo ended | ${ended.append}`,
    ].join('\n'),
  });
  const running = await runInPhase(c, name, ['Running'], 30_000);
  const holder = running.status?.assignedTo ?? '';
  await stopApiServer();
  try {
    gate.open();
    await eventually(async () => ended.lines().length === 1, 30_000, 'the step to end during the outage');
    await o.whileDown?.(holder);
    await new Promise((r) => setTimeout(r, outageFor(o.staleSeconds)));
  } finally {
    await startApiServer();
  }
  await o.afterUp?.(holder);
  const run = await runInPhase(c, name, ['Succeeded', 'Failed'], 60_000);
  return { run, holder, executions: executions.lines() };
}

it('a step that ends while the API server is away longer than the stale period runs once and completes', async () => {
  await agent('outage-a', mkdtempSync(join(tmpdir(), 'krt-outage-a-')));
  await agent('outage-b', mkdtempSync(join(tmpdir(), 'krt-outage-b-')));
  const { run, holder, executions } = await stepFinishedDuringOutage('survives', { staleSeconds: 8 });
  expect(executions).toEqual(['attempt 1']);
  expect(run.status).toMatchObject({
    phase: 'Succeeded',
    outputs: { answer: '42' },
    attempts: 1,
    assignedTo: holder,
  });
});

it('the result is kept on disk: an agent killed during the outage reports it when it starts again', async () => {
  const dirs = new Map(['outage-a', 'outage-b'].map((id) => [id, mkdtempSync(join(tmpdir(), `krt-${id}-`))]));
  for (const a of agents) a.proc.kill('SIGTERM');
  await Promise.all(agents.map((a) => a.exited));
  agents.length = 0;
  const byId = new Map<string, AgentProcess>();
  // A stale period that leaves the killed agent time to start again (a second or two).
  const staleSeconds = 6;
  for (const [id, dir] of dirs) byId.set(id, await agent(id, dir, staleSeconds));
  const { run, executions } = await stepFinishedDuringOutage('kept', {
    staleSeconds,
    whileDown: async (holder) => {
      const a = byId.get(holder) as AgentProcess;
      a.proc.kill('SIGKILL');
      await a.exited;
    },
    afterUp: async (holder) => {
      const again = await agent(holder, dirs.get(holder) as string, staleSeconds);
      await eventually(
        async () => again.output().includes('reporting a result kept on disk'),
        30_000,
        'the restarted agent to report the kept result',
      );
    },
  });
  expect(executions).toEqual(['attempt 1']);
  expect(run.status).toMatchObject({ phase: 'Succeeded', outputs: { answer: '42' }, attempts: 1 });
});
