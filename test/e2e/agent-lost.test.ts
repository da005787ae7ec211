// A Run whose agent is lost on every attempt ends (issue "Reliability III"): the local runtimed is
// SIGKILLed while the step runs, three times; its supervisor starts it again, and each time the
// restarted agent hands the Run back, until its attempts are spent and it fails with AgentLost,
// naming them. Real API server, webhook, runtimed and bash.
import { killComponent } from '../chaos/faults.js';
import { eventually, testCluster, type TestCluster } from '../harness/cluster.js';
import { createRun, getRun } from '../harness/objects.js';

let c: TestCluster;
beforeAll(async () => {
  c = await testCluster('e2e-agent-lost');
});
afterAll(async () => {
  await c?.cleanup();
});

it('fails a Run as AgentLost after its agent was lost on all --max-attempts (3) attempts', async () => {
  await createRun(c, 'doomed', { script: 'sleep 600' });
  for (const attempt of [1, 2, 3]) {
    await eventually(
      async () => {
        const s = (await getRun(c, 'doomed')).status;
        return s?.phase === 'Running' && s.attempts === attempt;
      },
      60_000,
      `attempt ${attempt} to run`,
    );
    expect(await killComponent('runtimed')).toMatchObject({
      happened: true,
      recoveredMs: expect.any(Number),
    });
  }
  let last: Awaited<ReturnType<typeof getRun>> | undefined;
  await eventually(
    async () => (last = await getRun(c, 'doomed')).status?.phase === 'Failed',
    60_000,
    () => `the Run to fail (last: ${JSON.stringify(last?.status)})`,
  );
  expect(last?.status).toMatchObject({
    phase: 'Failed',
    reason: 'AgentLost',
    attempts: 3,
    message:
      'AgentLost: agent local-runtimed restarted; its agent was lost on all 3 attempts (--max-attempts 3)',
  });
  expect(last?.status?.assignedTo).toBeUndefined();
});
