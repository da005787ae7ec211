// The fault injection of `make chaos` (test/chaos/faults.ts) checked against the real local
// environment: each fault is seen to happen and the component to come back, and a fault that did
// not happen is reported as such and not counted.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import {
  admissionProbe,
  apiServerDown,
  componentReady,
  etcdRestart,
  killComponent,
  webhookUnresponsive,
  type Fault,
} from '../chaos/faults.js';
import {
  agentKills,
  classifyExecutions,
  faultCounts,
  parseEffect,
  percentile,
  requeuedOnRestart,
  requeuedStale,
  RequestCounter,
  table,
  whyStuck,
} from '../chaos/report.js';
import { eventually, testCluster, type TestCluster } from '../harness/cluster.js';
import { repoRoot } from '../harness/paths.js';
import { pidOf, processAlive, ready } from '../harness/processes.js';

const lib = (fn: string) =>
  spawnSync('bash', ['-c', `. ${join(repoRoot, 'test/controlplane/lib.sh')} && ${fn}`], { stdio: 'ignore' });

let c: TestCluster;
beforeAll(async () => {
  c = await testCluster('chaos-faults');
});
afterAll(async () => {
  if (!processAlive(pidOf('runtimed'))) lib('start_runtimed');
  await c?.cleanup();
});

it('kills a supervised component, which comes back under a new pid and answers', async () => {
  const before = pidOf('runtimed');
  const f = await killComponent('runtimed');
  expect(f).toMatchObject({ kind: 'runtimed SIGKILL', happened: true });
  expect(f.recoveredMs).toBeGreaterThanOrEqual(0);
  expect(processAlive(before)).toBe(false);
  expect(pidOf('runtimed')).not.toBe(before);
  expect(componentReady('runtimed')).toBe(true);
});

it('says when a killed component did not come back, and does not count a kill of one that is not running', async () => {
  lib('touch "$pids/runtimed.stop"'); // its supervisor will not start it again
  const killed = await killComponent('runtimed', 3000);
  expect(killed.happened).toBe(true);
  expect(killed.recoveredMs).toBeUndefined();
  expect(killed.detail).toMatch(/not ready again/);
  const nothing = await killComponent('runtimed');
  expect(nothing).toMatchObject({ happened: false, detail: 'runtimed was not running' });
  expect(faultCounts([killed, nothing]).get('runtimed SIGKILL')).toEqual({ injected: 1, notHappened: 1 });
  lib('start_runtimed');
  await eventually(async () => componentReady('runtimed'), 30_000, 'runtimed to be back');
});

it('makes the webhook unresponsive: admission times out, refuses, stores nothing; then it answers again', async () => {
  const f = await webhookUnresponsive(1, () => admissionProbe(c, 'probe-unresponsive'));
  expect(f).toMatchObject({ kind: 'webhook unresponsive', happened: true });
  expect(f.detail).toMatch(/timed out and refused/);
  const after = await admissionProbe(c, 'probe-after');
  expect(after).toMatchObject({ refused: true, stored: false });
  expect(after.message).toMatch(/unknown context "needs"/);
});

it('does not count an unresponsive webhook when admission answered all the same', async () => {
  const f = await webhookUnresponsive(0, async () => ({
    refused: false,
    stored: false,
    message: 'accepted',
  }));
  expect(f).toMatchObject({ happened: false });
  expect(f.detail).toMatch(/did not time out/);
});

it('stops the API server for 5 s and etcd for a restart; both are back afterwards', async () => {
  const api = await apiServerDown(5);
  expect(api).toMatchObject({ kind: 'kube-apiserver down 5 s', happened: true });
  expect(ready['kube-apiserver']()).toBe(true);
  const etcd = await etcdRestart();
  expect(etcd).toMatchObject({ kind: 'etcd restart', happened: true });
  expect(ready.etcd()).toBe(true);
  // The API server works through the restarted etcd.
  await c.admin.core.createNamespacedConfigMap({
    namespace: c.namespace,
    body: { metadata: { name: 'after' } },
  });
});

const effect = (key: string, attempt: number, run: string, at: number) => ({ key, attempt, run, at });

describe('the chaos table', () => {
  const fault = (kind: Fault['kind'], happened: boolean): Fault => ({ kind, happened, detail: '' });

  it('counts only faults that happened, and shows the others apart', () => {
    const faults = [
      fault('etcd restart', true),
      fault('etcd restart', false),
      fault('webhook SIGKILL', true),
    ];
    expect(Object.fromEntries(faultCounts(faults))).toEqual({
      'etcd restart': { injected: 1, notHappened: 1 },
      'webhook SIGKILL': { injected: 1, notHappened: 0 },
    });
    const t = table({
      faults,
      runs: 3,
      completed: 3,
      failed: 0,
      lost: 0,
      duplicatedExecutions: 0,
      rerunAfterAgentKill: 1,
      duplicatedObjects: 0,
      unvalidatedStored: 0,
      steps: 10,
      latenciesMs: [1000, 2000, 3000],
      peakRssMiB: { controller: 100 },
      apiRequests: 55,
      minutes: 1,
    });
    expect(t).toMatch(/\| fault: etcd restart +\| 1 \(\+1 did not happen\) +\|/);
    expect(t).toMatch(/\| fault: webhook SIGKILL +\| 1 +\|/);
    expect(t).toMatch(/\| completion latency p50 \/ p99 +\| 2\.0 s \/ 3\.0 s +\|/);
    expect(t).toMatch(/\| API requests per step +\| 5\.5 +\|/);
    expect(t).toMatch(/\| re-run: agent killed before it saw the step end +\| 1 +\|/);
  });

  it("shows the Pod load's faults and container runs beside the rest", () => {
    const t = table({
      faults: [
        fault('step Pod deleted', true),
        fault('executor Pods killed', true),
        fault('executor Pods killed', false),
      ],
      runs: 1,
      completed: 1,
      failed: 0,
      lost: 0,
      duplicatedExecutions: 0,
      rerunAfterAgentKill: 0,
      pods: { runs: 8, right: 7, wrong: 1, twice: 0 },
      duplicatedObjects: 0,
      unvalidatedStored: 0,
      steps: 1,
      latenciesMs: [1000],
      peakRssMiB: {},
      apiRequests: 1,
      minutes: 1,
    });
    expect(t).toMatch(/\| fault: step Pod deleted +\| 1 +\|/);
    expect(t).toMatch(/\| fault: executor Pods killed +\| 1 \(\+1 did not happen\) +\|/);
    expect(t).toMatch(/\| container runs on the one-node cluster \(Pod executor\) +\| 8 +\|/);
    expect(t).toMatch(/\| of those, wrong or not ended +\| 1 +\|/);
    expect(t).toMatch(/\| container steps run in two Pods +\| 0 +\|/);
  });

  it('tells a re-run of a step its restarted agent handed back from a step that ran twice', () => {
    const e = effect;
    // The step's own clock when it gives one, else when the journal received the line.
    expect(parseEffect('run-1/j0 2 run-1-j0-s 1650', 17)).toEqual(e('run-1/j0', 2, 'run-1-j0-s', 1650));
    expect(parseEffect('run-1/j0 2 run-1-j0-s', 17)).toEqual(e('run-1/j0', 2, 'run-1-j0-s', 17));
    expect(parseEffect('garbage', 1)).toBeUndefined();
    const at = (ms: number) => new Date(ms).toISOString();
    const log = [
      `{"level":40,"time":"${at(1600)}","component":"runtimed-launcher","steps":3,"msg":"the agent went away; stopped its steps"}`,
      `{"level":30,"time":"${at(2000)}","run":"ns/handed-back-s","why":"restart","msg":"re-queued"}`,
      `{"level":30,"time":"${at(2000)}","run":"ns/while-dying-s","why":"restart","msg":"re-queued"}`,
      `{"level":30,"time":"${at(2000)}","run":"ns/outlived-s","why":"restart","msg":"re-queued"}`,
      `{"level":30,"time":"${at(2000)}","run":"other/same-attempt-s","why":"restart","msg":"re-queued"}`,
      `{"level":30,"time":"${at(25_000)}","run":"ns/stale-s","why":"stale","msg":"re-queued"}`,
      `{"level":30,"time":"${at(40_000)}","run":"ns/no-launcher-s","why":"restart","msg":"re-queued"}`,
      `{"level":30,"time":"${at(1300)}","run":"ns/same-attempt-s","phase":"Succeeded","msg":"ended"}`,
    ].join('\n');
    const handedBack = requeuedOnRestart(log, 'ns');
    expect(Object.fromEntries(handedBack)).toEqual({
      'handed-back-s': 2000,
      'while-dying-s': 2000,
      'outlived-s': 2000,
      'no-launcher-s': 40_000,
    });
    // Killed at 1500 (its launcher stopped the steps at 1600) and at 35000 (no launcher line).
    const kills = agentKills([1500, 35_000], log);
    expect(kills).toEqual([
      { at: 1500, stepsStoppedAt: 1600 },
      { at: 35_000, stepsStoppedAt: 35_000 },
    ]);
    // A launcher's line long after a kill is another kill's, not this one's.
    expect(agentKills([1000 - 60_000], log)).toEqual([{ at: -59_000, stepsStoppedAt: -59_000 }]);
    const { duplicates, reruns } = classifyExecutions(
      [
        e('once', 1, 'once-s', 100),
        // Done before the kill, handed back by the restarted agent, run again by attempt 2: a re-run.
        e('handed-back', 1, 'handed-back-s', 1000),
        e('handed-back', 2, 'handed-back-s', 9000),
        // Done after the kill but before its launcher stopped the steps: the agent was dying; a re-run.
        e('while-dying', 1, 'while-dying-s', 1550),
        e('while-dying', 2, 'while-dying-s', 9000),
        // Did its work after its agent stopped its steps (it outlived it), then ran again: a duplicate.
        e('outlived', 1, 'outlived-s', 1700),
        e('outlived', 2, 'outlived-s', 9000),
        // Without the launcher's line, the kill is the moment: after it is a duplicate.
        e('no-launcher', 1, 'no-launcher-s', 35_010),
        e('no-launcher', 2, 'no-launcher-s', 41_000),
        // Ran again in the same attempt: a duplicate.
        e('same-attempt', 1, 'same-attempt-s', 1200),
        e('same-attempt', 1, 'same-attempt-s', 1300),
        // A later attempt that no restart explains (re-queued as stale): a duplicate.
        e('stale', 1, 'stale-s', 20_000),
        e('stale', 2, 'stale-s', 30_000),
      ],
      handedBack,
      kills,
    );
    expect(reruns).toEqual([
      e('handed-back', 2, 'handed-back-s', 9000),
      e('while-dying', 2, 'while-dying-s', 9000),
    ]);
    expect(duplicates).toEqual([
      e('outlived', 2, 'outlived-s', 9000),
      e('no-launcher', 2, 'no-launcher-s', 41_000),
      e('same-attempt', 1, 'same-attempt-s', 1300),
      e('stale', 2, 'stale-s', 30_000),
    ]);
  });

  it('with several agents: a step handed back as stale is re-run, one running twice at once is not', () => {
    const e = (key: string, attempt: number, run: string, at: number, start: number) => ({
      ...effect(key, attempt, run, at),
      start,
    });
    expect(parseEffect('run-1/j0 2 run-1-j0-s 1650 1600', 17)).toEqual(
      e('run-1/j0', 2, 'run-1-j0-s', 1650, 1600),
    );
    const at = (ms: number) => new Date(ms).toISOString();
    const log = [
      `{"level":30,"time":"${at(10_000)}","run":"ns/fenced-s","why":"stale","msg":"re-queued"}`,
      `{"level":30,"time":"${at(10_000)}","run":"ns/late-s","why":"stale","msg":"re-queued"}`,
      `{"level":30,"time":"${at(10_000)}","run":"ns/overlap-s","why":"stale","msg":"re-queued"}`,
      `{"level":30,"time":"${at(10_000)}","run":"other/fenced-s","why":"stale","msg":"re-queued"}`,
      `{"level":30,"time":"${at(10_000)}","run":"ns/fenced-s","phase":"Succeeded","msg":"ended"}`,
    ].join('\n');
    const stale = requeuedStale(log, 'ns');
    expect(Object.fromEntries(stale)).toEqual({
      'fenced-s': [10_000],
      'late-s': [10_000],
      'overlap-s': [10_000],
    });
    const { duplicates, reruns, staleReruns, atOnce } = classifyExecutions(
      [
        // Done on the cut-off agent before it was handed back, run again after: a re-run.
        e('fenced', 1, 'fenced-s', 9000, 8000),
        e('fenced', 2, 'fenced-s', 12_000, 11_000),
        // Did its work after it was handed back (the fence did not stop it): a duplicate.
        e('late', 1, 'late-s', 10_500, 8000),
        e('late', 2, 'late-s', 12_000, 11_000),
        // The second started before the first had done its work: twice at once.
        e('overlap', 1, 'overlap-s', 9900, 8000),
        e('overlap', 2, 'overlap-s', 12_000, 9500),
      ],
      new Map(),
      [],
      stale,
    );
    expect(reruns).toEqual([]);
    expect(staleReruns).toEqual([e('fenced', 2, 'fenced-s', 12_000, 11_000)]);
    expect(atOnce).toEqual([e('overlap', 2, 'overlap-s', 12_000, 9500)]);
    expect(duplicates).toEqual([
      e('late', 2, 'late-s', 12_000, 11_000),
      e('overlap', 2, 'overlap-s', 12_000, 9500),
    ]);
  });

  it('takes percentiles by rank', () => {
    const xs = Array.from({ length: 100 }, (_, i) => i + 1);
    expect([percentile(xs, 0.5), percentile(xs, 0.99), percentile(xs, 1)]).toEqual([50, 99, 100]);
    expect(percentile([], 0.5)).toBeNaN();
  });

  it("counts the API server's requests from its first reading on, across its restarts", () => {
    // Requests before the load (an environment up through earlier loads) are not the load's; then
    // the API server is down (no reading) and restarted (its counters began again at zero).
    const readings = [500_000, 500_100, undefined, 40, 90];
    const counter = new RequestCounter(() => readings.shift());
    for (let i = 0; i < 5; i++) counter.sample();
    expect(counter.value).toBe(100 + 40 + 50);
  });
});

it('says of each run left unfinished what it waits for: its jobs, its Runs, their holder and last heartbeat', () => {
  const now = Date.parse('2026-12-07T10:00:30Z');
  const run = {
    metadata: { name: 'load-7' },
    status: {
      phase: 'Running',
      jobs: {
        build: { phase: 'Succeeded' },
        test: { phase: 'Running', message: 'step "main": NoAgent: no runtimed serves runtime "x"' },
      },
    },
  };
  const steps = [
    { metadata: { name: 'load-7-build-main' }, status: { phase: 'Succeeded' } },
    {
      metadata: { name: 'load-7-test-main' },
      status: { phase: 'Running', assignedTo: 'agent-b', heartbeatTime: '2026-12-07T10:00:00Z' },
    },
    {
      metadata: { name: 'load-7-test-next' },
      status: { phase: 'Pending', reason: 'NoAgent', message: 'none' },
    },
  ];
  expect(whyStuck(run, 'load-7', steps, now)).toBe(
    'load-7: Running; job test Running: step "main": NoAgent: no runtimed serves runtime "x"; ' +
      'Run load-7-test-main Running on agent-b, heartbeat 30 s ago; Run load-7-test-next Pending (NoAgent: none)',
  );
  expect(whyStuck(undefined, 'load-8', [], now)).toBe('load-8: gone (its WorkflowRun no longer exists)');
});
