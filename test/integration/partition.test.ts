// An agent cut off from the API server while its step runs (issue "Reliability III"): it stops the
// step once its heartbeats have gone unconfirmed for (nearly) the stale period, before the other
// agent may put the Run back, so the step never runs twice at once; and an agent whose claim is
// answered only after another agent took the Run over never starts it. The partition is a relay in
// front of the API server that only the first agent goes through. Real API server, two real
// runtimed agents, real bash in the sandbox.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgent, type AgentProcess } from '../harness/agent.js';
import { channel, type Channel } from '../harness/channel.js';
import { eventually, testCluster, type TestCluster } from '../harness/cluster.js';
import { createRun, getRun, runInPhase } from '../harness/objects.js';
import { localPort } from '../harness/processes.js';
import { relay, type Relay } from '../harness/proxy.js';

const RUNTIME = 'partition';
let c: TestCluster;
let ch: Channel;
let cut: Relay;
const agents: AgentProcess[] = [];
beforeAll(async () => {
  c = await testCluster('partition');
  ch = await channel();
  cut = await relay(Number(localPort('API_PORT')));
});
afterAll(async () => {
  cut?.restore();
  for (const a of agents) if (a.proc.exitCode === null) a.proc.kill('SIGTERM');
  await Promise.all(agents.map((a) => a.exited));
  await cut?.close();
  await c?.cleanup();
  await ch?.close();
});

const agent = async (identity: string, apiServer?: string, runtime = RUNTIME) => {
  const a = await startAgent({
    identity,
    runtime,
    dataDir: mkdtempSync(join(tmpdir(), `krt-${identity}-`)),
    namespace: c.namespace,
    staleSeconds: 5,
    heartbeatSeconds: 1,
    ...(apiServer ? { apiServer } : {}),
  });
  agents.push(a);
  return a;
};

it('an agent cut off from the API server stops its step before another agent runs it again', async () => {
  const cutOff = await agent('partition-a', `https://127.0.0.1:${cut.port}`);
  const journal = ch.journal();
  await createRun(c, 'once-at-a-time', {
    runtime: RUNTIME,
    script: [
      `echo "started $KRT_ATTEMPT" | ${journal.append}`,
      // The first says it is alive until it is stopped; the second ends after a while in which a
      // first attempt still running would have said so.
      'if [ "$KRT_ATTEMPT" -gt 1 ]; then sleep 2; exit 0; fi',
      `while :; do echo "alive 1" | ${journal.append}; sleep 0.2; done`,
    ].join('\n'),
  });
  const running = await runInPhase(c, 'once-at-a-time', ['Running'], 30_000);
  expect(running.status?.assignedTo).toBe('partition-a');
  await eventually(async () => journal.lines().includes('alive 1'), 30_000, 'the first attempt to run');
  await agent('partition-b');
  cut.cut();
  let last: Awaited<ReturnType<typeof getRun>> | undefined;
  await eventually(
    async () => (last = await getRun(c, 'once-at-a-time')).status?.phase === 'Succeeded',
    60_000,
    () =>
      `the Run to succeed on the other agent (last: ${JSON.stringify(last?.status)}; journal: ${journal.lines().join(', ')})`,
  );
  // The first attempt was alive until it was stopped, and never after the second started.
  const lines = journal.lines();
  expect(lines.filter((l) => l.startsWith('started'))).toEqual(['started 1', 'started 2']);
  expect(lines.slice(lines.indexOf('started 2'))).toEqual(['started 2']);
  expect(last?.status).toMatchObject({ assignedTo: 'partition-b', attempts: 2 });
  expect(cutOff.output()).toContain('no heartbeat confirmed for the stale period; stopping the step');
});

it('an agent whose claim is answered after the stale period hands the Run back unstarted', async () => {
  // The answers to the first agent come 10 s late: its claim reaches the API server at once, but by
  // the time it hears it won, the second agent has found the Run stale, put it back and run it.
  const runtime = 'late-claim';
  const link = await relay(Number(localPort('API_PORT')));
  try {
    const late = await agent('late-claim-a', `https://127.0.0.1:${link.port}`, runtime);
    link.delay(10_000, 'answers');
    const journal = ch.journal();
    await createRun(c, 'answered-late', {
      runtime,
      script: [
        `echo "started $KRT_ATTEMPT" | ${journal.append}`,
        `for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do echo "alive $KRT_ATTEMPT" | ${journal.append}; sleep 0.5; done`,
      ].join('\n'),
    });
    const claimed = await runInPhase(c, 'answered-late', ['Running'], 60_000);
    expect(claimed.status).toMatchObject({ assignedTo: 'late-claim-a', attempts: 1 });
    await agent('late-claim-b', undefined, runtime);
    let last: Awaited<ReturnType<typeof getRun>> | undefined;
    await eventually(
      async () => (last = await getRun(c, 'answered-late')).status?.phase === 'Succeeded',
      90_000,
      () =>
        `the Run to succeed on the second agent (last: ${JSON.stringify(last?.status)}; journal: ${journal.lines().join(', ')})`,
    );
    // Only the second agent's attempt ever ran.
    expect(new Set(journal.lines())).toEqual(new Set(['started 2', 'alive 2']));
    await eventually(
      async () => late.output().includes('handing the Run back unstarted'),
      30_000,
      () => `the first agent to say it handed the Run back unstarted:\n${late.output()}`,
    );
    expect(last?.status).toMatchObject({ assignedTo: 'late-claim-b', attempts: 2 });
  } finally {
    link.delay(0);
    await link.close();
  }
}, 180_000);
