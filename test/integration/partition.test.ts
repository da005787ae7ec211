// An agent cut off from the API server while its step runs (issue "Reliability III"): it stops the
// step once its heartbeats have gone unconfirmed for (nearly) the stale period, before the other
// agent may put the Run back, so the step never runs twice at once. The partition is a relay in
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

const agent = async (identity: string, apiServer?: string) => {
  const a = await startAgent({
    identity,
    runtime: RUNTIME,
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
