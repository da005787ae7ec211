// runtimed end to end: the real API server and webhook, the controller, and runtimed running real
// bash. Most cases use the local agent `make up` started; the crash and pairing cases start agents
// of their own on a runtime name nobody else serves.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowRun } from '../../src/api/types.js';
import { crd } from '../../src/kube/rest.js';
import { startAgent, type AgentProcess } from '../harness/agent.js';
import { channel } from '../harness/channel.js';
import { eventually, rejection, testCluster, type TestCluster } from '../harness/cluster.js';
import {
  createRun,
  getRun,
  getWorkflowRun,
  patchRun,
  processesWith,
  runInPhase,
} from '../harness/objects.js';

let c: TestCluster;
const agents: AgentProcess[] = [];
beforeAll(async () => {
  c = await testCluster('e2e-runtimed');
});
afterAll(async () => {
  for (const a of agents) a.proc.kill('SIGKILL');
  await c?.cleanup();
});
/** A number to find a test's own processes with ps. */
const marker = () => String(100000 + Math.floor(Math.random() * 800000));

describe('steps through the local runtimed', () => {
  it('a step that exits 3 fails its job with exitCode, reason and logTail; its dependents are Skipped', async () => {
    const wfr: WorkflowRun = {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'WorkflowRun',
      metadata: { name: 'exit3' },
      spec: {
        jobs: {
          broken: {
            'runs-on': 'bash',
            steps: [{ name: 'main', run: 'echo "about to fail"\nexit 3\necho never' }],
          },
          after: {
            needs: ['broken'],
            'runs-on': 'bash',
            steps: [{ name: 'main', run: 'echo should not run' }],
          },
        },
      },
    };
    await c.admin.custom.createNamespacedCustomObject({ ...crd('workflowruns', c.namespace), body: wfr });
    await eventually(
      async () => (await getWorkflowRun(c, 'exit3')).status?.phase === 'Failed',
      30_000,
      'exit3 Failed',
    );
    const run = await getRun(c, 'exit3-broken-main');
    expect(run.status).toMatchObject({
      phase: 'Failed',
      exitCode: 3,
      reason: 'NonZeroExit',
      message: 'the script exited with code 3',
      logTail: 'about to fail\n',
      attempts: 1,
      assignedTo: 'local-runtimed',
    });
    const status = (await getWorkflowRun(c, 'exit3')).status;
    expect(status?.jobs?.broken?.phase).toBe('Failed');
    expect(status?.jobs?.after).toMatchObject({
      phase: 'Skipped',
      message: 'needs job "broken", which did not succeed',
    });
    await expect(getRun(c, 'exit3-after-main')).rejects.toThrow();
  });

  it('outputs: KEY=VALUE and heredoc values reach status; bad lines and oversized files fail without retry', async () => {
    await createRun(c, 'out-ok', {
      script: 'echo a=1 >> "$KRT_OUTPUT"\nprintf "b<<END\\nx\\ny\\nEND\\n" >> "$KRT_OUTPUT"',
    });
    await createRun(c, 'out-bad', { script: 'echo "not an output" >> "$KRT_OUTPUT"' });
    await createRun(c, 'out-big', {
      script: 'head -c 70000 /dev/zero | tr "\\0" a | sed "s/^/k=/" > "$KRT_OUTPUT"',
    });
    expect((await runInPhase(c, 'out-ok', ['Succeeded'])).status?.outputs).toEqual({ a: '1', b: 'x\ny' });
    expect((await runInPhase(c, 'out-bad', ['Failed'])).status).toMatchObject({
      reason: 'OutputsInvalid',
      message: '$KRT_OUTPUT line 1: expected KEY=VALUE or KEY<<DELIMITER, got "not an output"',
      exitCode: 0,
    });
    expect((await runInPhase(c, 'out-big', ['Failed'])).status).toMatchObject({ reason: 'OutputsTooLarge' });
    // Failed is final (a CRD transition rule, tested below), so one attempt stays one.
    expect((await getRun(c, 'out-bad')).status).toMatchObject({ phase: 'Failed', attempts: 1 });
  });

  it('a timeout ends in Timeout, not before the deadline, and the process group is gone', async () => {
    const m = marker();
    await createRun(c, 'timeout', { script: `echo started\nsleep ${m} &\nsleep ${m}`, timeoutSeconds: 2 });
    const running = await runInPhase(c, 'timeout', ['Running']);
    await eventually(async () => processesWith(`sleep ${m}`).length === 2, 5000, 'both sleeps to run');
    const done = await runInPhase(c, 'timeout', ['Timeout'], 10_000);
    // Not before the deadline; how soon after it is a figure of the runtimed benchmark.
    const deadline = Date.parse(running.status?.startTime ?? '') + 2000;
    expect(Date.parse(done.status?.completionTime ?? '')).toBeGreaterThanOrEqual(deadline);
    expect(done.status).toMatchObject({
      reason: 'Timeout',
      message: 'stopped after timeoutSeconds 2',
      logTail: 'started\n',
    });
    expect(processesWith(`sleep ${m}`)).toEqual([]);
  });

  it('cancelRequested on a running step ends in Cancelled and the process group is gone', async () => {
    const m = marker();
    await createRun(c, 'cancel', { script: `sleep ${m} & sleep ${m}` });
    await runInPhase(c, 'cancel', ['Running']);
    await eventually(async () => processesWith(`sleep ${m}`).length === 2, 5000, 'both sleeps to run');
    await patchRun(c, 'cancel', { spec: { cancelRequested: true } });
    const done = await runInPhase(c, 'cancel', ['Cancelled'], 10_000);
    expect(done.status).toMatchObject({ reason: 'Cancelled', message: 'cancelled on request' });
    expect(processesWith(`sleep ${m}`)).toEqual([]);
  });

  it('a Run cancelled before it was claimed goes straight to Cancelled without running', async () => {
    await createRun(c, 'cancel-early', { script: 'echo ran >> "$KRT_OUTPUT"', cancelRequested: true });
    const done = await runInPhase(c, 'cancel-early', ['Cancelled']);
    expect(done.status).toMatchObject({ reason: 'Cancelled', message: 'cancelled before it started' });
    expect(done.status?.startTime).toBeUndefined();
    expect(done.status?.attempts).toBeUndefined();
  });

  it('a terminal phase is final: a late report cannot change it', async () => {
    await createRun(c, 'final', { script: 'true' });
    await runInPhase(c, 'final', ['Succeeded']);
    const denied = await rejection(patchRun(c, 'final', { status: { phase: 'Failed' } }, true));
    expect(denied.code).toBe(422);
    expect(denied.message).toContain(
      'status.phase: a Run that ended (Succeeded, Failed, Timeout, Cancelled) keeps its phase',
    );
  });
});

describe('crashed agents', () => {
  it('a Run whose agent went silent is put back by a live agent, attempts kept, and completed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'krt-e2e-ghost-'));
    await createRun(c, 'ghost', {
      runtime: 'e2e-ghost',
      script: 'echo "attempt=$KRT_ATTEMPT" >> "$KRT_OUTPUT"',
    });
    const stale = new Date(Date.now() - 60_000).toISOString();
    await patchRun(
      c,
      'ghost',
      {
        status: {
          phase: 'Running',
          assignedTo: 'ghost-agent',
          attempts: 1,
          startTime: stale,
          heartbeatTime: stale,
        },
      },
      true,
    );
    const agent = await startAgent({
      identity: 'live',
      runtime: 'e2e-ghost',
      dataDir,
      namespace: c.namespace,
      staleSeconds: 3,
    });
    agents.push(agent);
    const done = await runInPhase(c, 'ghost', ['Succeeded'], 20_000);
    expect(done.status).toMatchObject({ assignedTo: 'live', attempts: 2, outputs: { attempt: '2' } });
    expect(agent.output()).toContain('"why":"stale"');
    agent.proc.kill('SIGTERM');
    expect(await agent.exited).toBe(0);
  });

  it('runtimed SIGKILLed while a step sleeps: a restarted agent completes the Run; it never runs twice at once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'krt-e2e-kill-'));
    const ch = await channel();
    const trace = ch.journal();
    const m = marker();
    const flags = { identity: 'kill-me', runtime: 'e2e-kill', dataDir, namespace: c.namespace };
    const first = await startAgent(flags);
    agents.push(first);
    await createRun(c, 'survivor', {
      runtime: 'e2e-kill',
      script: `echo "start $KRT_ATTEMPT" | ${trace.append}\nsleep 3 0.${m}\necho "end $KRT_ATTEMPT" | ${trace.append}`,
    });
    await runInPhase(c, 'survivor', ['Running']).catch((e: Error) => {
      throw new Error(`${e.message}\n${first.output()}`);
    });
    await eventually(async () => processesWith(`sleep 3 0.${m}`).length === 1, 5000, 'the step to sleep');
    first.proc.kill('SIGKILL');
    await first.exited;
    // Its launcher loses the agent and stops the step at once, before any other agent could re-run it.
    await eventually(
      async () => processesWith(`sleep 3 0.${m}`).length === 0,
      2000,
      'the orphaned step to stop',
    );
    const second = await startAgent(flags);
    agents.push(second);
    const done = await runInPhase(c, 'survivor', ['Succeeded'], 20_000);
    expect(done.status).toMatchObject({ attempts: 2, assignedTo: 'kill-me' });
    // The first attempt's processes were gone before the second agent started (above), so no
    // `end 1` can come any more.
    expect(trace.lines()).toEqual(['start 1', 'start 2', 'end 2']);
    await ch.close();
    expect(processesWith(`sleep 3 0.${m}`)).toEqual([]);
    expect(second.output()).toContain('"why":"restart"');
    second.proc.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it('a Run deleted while its step runs stops the step at once, long before its next heartbeat', async () => {
    const m = marker();
    // Heartbeats 30 s apart: the 404 of the next one would stop the step only then.
    const agent = await startAgent({
      identity: 'deleted-run',
      runtime: 'e2e-deleted',
      dataDir: mkdtempSync(join(tmpdir(), 'krt-deleted-')),
      namespace: c.namespace,
      heartbeatSeconds: 30,
      staleSeconds: 60,
    });
    agents.push(agent);
    await createRun(c, 'deleted', { runtime: 'e2e-deleted', script: `sleep ${m}` });
    await runInPhase(c, 'deleted', ['Running']);
    await eventually(async () => processesWith(`sleep ${m}`).length === 1, 5000, 'the step to sleep');
    await c.admin.custom.deleteNamespacedCustomObject({ ...crd('runs', c.namespace), name: 'deleted' });
    await eventually(async () => processesWith(`sleep ${m}`).length === 0, 10_000, 'the step to be stopped');
    await eventually(
      async () => agent.output().includes('the Run was deleted; stopping its step'),
      5000,
      () => `the agent to say why (it said: ${agent.output()})`,
    );
  });

  it('graceful shutdown: stops claiming, lets a running step finish, releases what outlives the deadline', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'krt-e2e-drain-'));
    const agent = await startAgent({
      identity: 'drain',
      runtime: 'e2e-drain',
      dataDir,
      namespace: c.namespace,
      shutdownSeconds: 2,
    });
    agents.push(agent);
    await createRun(c, 'drain-short', { runtime: 'e2e-drain', script: 'sleep 1' });
    await createRun(c, 'drain-long', { runtime: 'e2e-drain', script: 'sleep 30' });
    await runInPhase(c, 'drain-short', ['Running']);
    await runInPhase(c, 'drain-long', ['Running']);
    agent.proc.kill('SIGTERM');
    // The signal is handled when the agent's event loop gets to it; from its line on, it claims nothing.
    await eventually(
      async () => agent.output().includes('shutting down: no new claims'),
      10_000,
      'the agent to begin its shutdown',
    );
    await createRun(c, 'drain-late', { runtime: 'e2e-drain', script: 'true' });
    expect(await agent.exited).toBe(0);
    expect((await getRun(c, 'drain-short')).status?.phase).toBe('Succeeded');
    expect((await getRun(c, 'drain-long')).status).toMatchObject({ phase: 'Pending', attempts: 1 });
    expect((await getRun(c, 'drain-late')).status?.phase).toBeUndefined();
  });

  it('graceful shutdown amid a stream of Runs: it exits leaving none claimed by it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'krt-e2e-stream-'));
    const agent = await startAgent({
      identity: 'stream',
      runtime: 'e2e-stream',
      dataDir,
      namespace: c.namespace,
      shutdownSeconds: 2,
      concurrency: 4,
    });
    agents.push(agent);
    const names = Array.from({ length: 60 }, (_, i) => `stream-${i}`);
    // Runs keep coming while the signal is handled, so some claims are in flight when it lands.
    const created = (async () => {
      for (const n of names) await createRun(c, n, { runtime: 'e2e-stream', script: 'true' });
    })();
    await eventually(
      async () => agent.output().includes('"phase":"Succeeded"'),
      20_000,
      'the agent to finish a first Run',
    );
    agent.proc.kill('SIGTERM');
    expect(await agent.exited).toBe(0);
    await created;
    const statuses = await Promise.all(names.map(async (n) => (await getRun(c, n)).status));
    // Each Run ran to its end or is back to waiting, unassigned: nothing waits on a gone agent.
    const held = statuses.filter((st) => st?.assignedTo !== undefined && st.phase !== 'Succeeded');
    expect(held).toEqual([]);
    expect(statuses.filter((st) => st?.phase === 'Succeeded').length).toBeGreaterThan(0);
  });
});

describe('two agents, 500 Runs', () => {
  it('every Run is executed exactly once', async () => {
    const ch = await channel();
    const executed = ch.journal();
    const pair = await Promise.all(
      ['pair-a', 'pair-b'].map((identity) =>
        startAgent({
          identity,
          runtime: 'e2e-pair',
          dataDir: mkdtempSync(join(tmpdir(), `krt-e2e-${identity}-`)),
          namespace: c.namespace,
          concurrency: 16,
        }),
      ),
    );
    agents.push(...pair);
    const N = 500;
    const names = Array.from({ length: N }, (_, i) => `once-${i}`);
    for (let i = 0; i < N; i += 25)
      await Promise.all(
        names
          .slice(i, i + 25)
          .map((n) =>
            createRun(c, n, { runtime: 'e2e-pair', script: `echo "$KRT_RUN" | ${executed.append}` }),
          ),
      );
    let phases = new Map<string, number>();
    await eventually(
      async () => {
        const list = (await c.admin.custom.listNamespacedCustomObject({
          ...crd('runs', c.namespace),
          labelSelector: '',
        })) as {
          items: {
            metadata: { name: string };
            spec: { runtime: string };
            status?: { phase?: string; assignedTo?: string };
          }[];
        };
        const mine = list.items.filter((r) => r.spec.runtime === 'e2e-pair');
        phases = new Map();
        for (const r of mine)
          phases.set(r.status?.phase ?? 'none', (phases.get(r.status?.phase ?? 'none') ?? 0) + 1);
        return phases.get('Succeeded') === N;
      },
      150_000,
      'all 500 Runs to succeed',
    );
    const lines = executed.lines();
    const perRun = new Map<string, number>();
    for (const run of lines) perRun.set(run, (perRun.get(run) ?? 0) + 1);
    expect(lines.length).toBe(N);
    await ch.close();
    expect(names.filter((n) => perRun.get(n) !== 1)).toEqual([]);
    for (const a of pair) expect(a.proc.exitCode).toBeNull();
    const list = (await c.admin.custom.listNamespacedCustomObject({ ...crd('runs', c.namespace) })) as {
      items: { spec: { runtime: string }; status?: { assignedTo?: string; attempts?: number } }[];
    };
    const pairRuns = list.items.filter((r) => r.spec.runtime === 'e2e-pair');
    expect(pairRuns.every((r) => r.status?.attempts === 1)).toBe(true);
    const split = ['pair-a', 'pair-b'].map(
      (id) => pairRuns.filter((r) => r.status?.assignedTo === id).length,
    );
    console.log(`two agents, ${N} Runs: pair-a ran ${split[0]}, pair-b ran ${split[1]}`);
    for (const a of pair) a.proc.kill('SIGTERM');
    await Promise.all(pair.map((a) => a.exited));
  }, 240_000);
});
