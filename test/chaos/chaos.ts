// `make chaos`: WorkflowRuns created at a steady rate while faults are injected into the local
// environment, then every run is checked (finished, outputs, each step's side effect once, no
// extra object) and one table is printed. Bounded: KRT_CHAOS_RUNS runs (1200) over
// KRT_CHAOS_CREATE_SECONDS (720), then at most KRT_CHAOS_SETTLE_SECONDS (360) for the rest.
// Beside the local components run a second controller replica and a second agent (behind a relay
// that cuts it off or slows it down), a cancellation load (one run in 25 is cancelled while it
// runs) and a Promise load (a resource every 40 runs, each to be configured, its Work applied).
// Two streams of faults, over 100 in all; and, as root, container runs on the one-node cluster with
// the Pod executor's faults (pod-load.ts; KRT_CHAOS_PODS=none leaves them out).
// KRT_CHAOS_FAULTS=none runs the load alone, for comparison. Exits non-zero when a run is lost or wrong, a cancelled run does not end, a step ran
// twice at once or unexplained, or an object was duplicated.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Run, WorkflowRun } from '../../src/api/types.js';
import { LABEL_WORKFLOWRUN_UID } from '../../src/labels.js';
import { crd, statusCode, statusMessage } from '../../src/kube/rest.js';
import { ResilientInformer } from '../../src/kube/informer.js';
import { rawJson } from '../../src/kube/raw.js';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { controllerSees, webhookSees } from '../harness/caches.js';
import { channel } from '../harness/channel.js';
import { testCluster, type TestCluster } from '../harness/cluster.js';
import { stateDir } from '../harness/paths.js';
import { apiCurl, pidOf } from '../harness/processes.js';
import {
  admissionProbe,
  apiServerDown,
  cutOffSecondAgent,
  etcdRestart,
  killComponent,
  killSecondAgent,
  killSecondController,
  slowSecondAgent,
  webhookUnresponsive,
  type Fault,
  type FaultKind,
  type Probe,
} from './faults.js';
import {
  agentKills,
  classifyExecutions,
  killBefore,
  parseEffect,
  RequestCounter,
  requeuedOnRestart,
  requeuedStale,
  table,
  type Effect,
  whyStuck,
} from './report.js';
import { cancelled as cancelLoad, ofCancelLoad, workflows, workload, type Expected } from './workload.js';
import { ofPromiseLoad, promiseLoad } from './promise-load.js';
import { podLoad } from './pod-load.js';
import { deletePromise } from '../harness/promises.js';
import { SecondAgent, SecondController } from './actors.js';

const RUNS = Number(process.env.KRT_CHAOS_RUNS ?? 1200);
const CREATE_SECONDS = Number(process.env.KRT_CHAOS_CREATE_SECONDS ?? 720);
const SETTLE_SECONDS = Number(process.env.KRT_CHAOS_SETTLE_SECONDS ?? 360);
const CANCEL_EVERY = 25;
/** One Promise resource is created every this many runs. */
const PROMISE_EVERY = 40;
const times = (n: number, kind: FaultKind): FaultKind[] => Array<FaultKind>(n).fill(kind);
// Two streams, each one fault at a time: the shared components and the control plane, and the
// second agent. Each with about how long its faults take together, to spread them over the load.
const STREAMS: { faults: FaultKind[]; busySeconds: number }[] = [
  {
    faults: [
      ...times(8, 'controller SIGKILL'),
      ...times(8, 'controller B SIGKILL'),
      ...times(8, 'runtimed SIGKILL'),
      ...times(6, 'webhook SIGKILL'),
      ...times(3, 'kube-apiserver down 5 s'),
      'kube-apiserver down 60 s',
      ...times(3, 'etcd restart'),
      ...times(3, 'webhook unresponsive'),
    ],
    busySeconds: 300,
  },
  {
    faults: [
      ...times(20, 'agent B SIGKILL'),
      ...times(20, 'agent B cut off 10 s'),
      ...times(20, 'agent B slow 10 s'),
    ],
    busySeconds: 460,
  },
];
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (msg: string) => process.stderr.write(`chaos ${new Date().toISOString().slice(11, 19)} ${msg}\n`);

// A seeded shuffle, so one run's order of faults can be repeated (KRT_CHAOS_SEED).
function shuffled<T>(items: T[], seed: number): T[] {
  let s = seed >>> 0 || 1;
  const next = () => ((s = (s * 1103515245 + 12345) >>> 0) % 2 ** 31) / 2 ** 31;
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

const rssMiB = (pid: number) => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
};

/** apiserver_request_total summed, or undefined when the API server does not answer. */
function apiRequestsNow(): number | undefined {
  const r = apiCurl('/metrics', 5);
  if (!r.ok) return undefined;
  return [...r.body.matchAll(/^apiserver_request_total\{[^}]*\} (\d+)/gm)].reduce(
    (a, m) => a + Number(m[1]),
    0,
  );
}

/** Objects of the main load (the cancellation load's make as many as their cancel allowed). */
async function countObjects(c: TestCluster, plural: 'runs' | 'workflowruns'): Promise<number> {
  let n = 0;
  let cont = '';
  do {
    const page = (await rawJson(
      c.admin.kc,
      'GET',
      `/apis/kruntimes.io/v1alpha1/namespaces/${c.namespace}/${plural}?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`,
    )) as { items: { metadata: { name: string } }[]; metadata: { continue?: string } };
    n += page.items.filter((o) => !ofCancelLoad(o.metadata.name) && !ofPromiseLoad(o.metadata.name)).length;
    cont = page.metadata.continue ?? '';
  } while (cont);
  return n;
}

async function main() {
  // Its cluster and install first: starting them blocks, and the main load's clock starts after.
  const pods = await podLoad(log);
  const started = Date.now();
  const c = await testCluster('chaos');
  const ch = await channel();
  const effects = ch.journal();
  log(
    `namespace ${c.namespace}: ${RUNS} runs over ${CREATE_SECONDS} s, ${STREAMS.reduce((n, x) => n + x.faults.length, 0)} faults in ${STREAMS.length} streams`,
  );
  for (const w of workflows(c.namespace, effects.append))
    await c.admin.custom.createNamespacedCustomObject({
      ...crd('workflows', c.namespace),
      body: w as object,
    });
  await controllerSees(c, 'chaos-l1', 'chaos-l2', 'chaos-l3');
  const promises = await promiseLoad(c);
  log(`Promise ${promises.promise}: a resource every ${PROMISE_EVERY} runs`);
  await webhookSees(c, 'chaos-l1', 'chaos-l2', 'chaos-l3');
  const controllerB = new SecondController();
  await controllerB.start();
  const agentB = await SecondAgent.start(c.namespace);
  log(`second controller replica (pid ${controllerB.pid}) and second agent (pid ${agentB.pid}) running`);

  const created = new Map<string, { at: number; expected: Expected }>();
  const finished = new Map<string, { at: number; run: WorkflowRun }>();
  const roots = new ResilientInformer<WorkflowRun>(c.admin.kc, {
    path: `/apis/kruntimes.io/v1alpha1/namespaces/${c.namespace}/workflowruns`,
  });
  // Roots and their children; the verdict reads the roots.
  const seen = (r: WorkflowRun) => {
    const name = r.metadata?.name ?? '';
    const phase = r.status?.phase;
    if ((phase === 'Succeeded' || phase === 'Failed' || phase === 'Cancelled') && !finished.has(name))
      finished.set(name, { at: Date.now(), run: r });
  };
  roots.on('add', seen);
  roots.on('update', (_o, r) => seen(r));
  await roots.start();

  const peak: Record<string, number> = {
    controller: 0,
    webhook: 0,
    runtimed: 0,
    'kube-apiserver': 0,
    etcd: 0,
    'controller B': 0,
    'agent B': 0,
  };
  const pidOfPeak = (k: string) =>
    k === 'controller B' ? controllerB.pid : k === 'agent B' ? agentB.pid : pidOf(k);
  const rss = setInterval(() => {
    for (const k of Object.keys(peak)) peak[k] = Math.max(peak[k] ?? 0, rssMiB(pidOfPeak(k)));
  }, 1000);
  const requests = new RequestCounter(apiRequestsNow);
  requests.sample();
  const requestTimer = setInterval(() => requests.sample(), 10_000);

  // Load: one create every CREATE_SECONDS / RUNS, each retried until the API server takes it
  // (it may be down, or admission may time out, on purpose).
  let refusedAttempts = 0;
  let notCreated = 0;
  const creates: Promise<void>[] = [];
  const loadStart = Date.now();
  // Each write of the load is tried again every second until the API server takes it (it may be
  // down, or admission may time out, on purpose), for 10 minutes at most.
  const untilTaken = async (what: string, write: () => Promise<unknown>): Promise<boolean> => {
    const giveUp = Date.now() + 10 * 60_000;
    for (;;) {
      try {
        await write();
        return true;
      } catch (e) {
        if (statusCode(e) === 409) return true; // stored, though the answer was lost
        refusedAttempts++;
        if (Date.now() > giveUp) {
          log(`gave up ${what}: ${statusMessage(e)}`);
          return false;
        }
        await pause(1000);
      }
    }
  };
  const create = async (i: number) => {
    const w = workload(i, effects.append);
    const body = { ...crd('workflowruns', c.namespace), body: w.body };
    if (!(await untilTaken(`creating ${w.name}`, () => c.admin.custom.createNamespacedCustomObject(body))))
      return void notCreated++;
    created.set(w.name, { at: Date.now(), expected: w.expected });
  };
  // The cancellation load: created, then cancelled a few seconds later while its steps sleep.
  const cancels = new Map<string, number>();
  const cancelOne = async (i: number) => {
    const w = cancelLoad(i, effects.append);
    const at = { ...crd('workflowruns', c.namespace) };
    if (
      !(await untilTaken(`creating ${w.name}`, () =>
        c.admin.custom.createNamespacedCustomObject({ ...at, body: w.body }),
      ))
    )
      return void notCreated++;
    await pause(1000 + (i % 4) * 1000);
    const cancel = () =>
      c.admin.custom.patchNamespacedCustomObject(
        { ...at, name: w.name, body: { spec: { cancelRequested: true } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    if (await untilTaken(`cancelling ${w.name}`, cancel)) cancels.set(w.name, Date.now());
  };
  const load = (async () => {
    for (let i = 0; i < RUNS; i++) {
      const due = loadStart + (i * CREATE_SECONDS * 1000) / RUNS;
      if (due > Date.now()) await pause(due - Date.now());
      creates.push(create(i));
      if (i % CANCEL_EVERY === 0) creates.push(cancelOne(i));
      if (i % PROMISE_EVERY === PROMISE_EVERY / 2)
        creates.push(
          untilTaken(`creating resource ${i}`, () => promises.create(i)).then(
            (ok) => void (ok || notCreated++),
          ),
        );
      if (i % 200 === 0) log(`created ${i}`);
    }
    await Promise.all(creates);
  })();

  // Faults, one at a time at random moments while the load runs.
  const faults: Fault[] = [];
  let unvalidated = 0;
  let probes = 0;
  const probe = async (): Promise<Probe> => {
    const p = await admissionProbe(c, `chaos-unvalidated-${probes++}`);
    if (p.stored) unvalidated++;
    return p;
  };
  const inject = (kind: FaultKind): Promise<Fault> => {
    switch (kind) {
      case 'controller SIGKILL':
        return killComponent('controller');
      case 'runtimed SIGKILL':
        return killComponent('runtimed');
      case 'webhook SIGKILL':
        return killComponent('webhook');
      case 'kube-apiserver down 5 s':
        requests.sample();
        return apiServerDown(5);
      case 'kube-apiserver down 60 s':
        requests.sample();
        return apiServerDown(60);
      case 'etcd restart':
        return etcdRestart();
      case 'webhook unresponsive':
        return webhookUnresponsive(12, probe);
      case 'controller B SIGKILL':
        return killSecondController(controllerB);
      case 'agent B SIGKILL':
        agentBKills.push(Date.now());
        return killSecondAgent(agentB);
      case 'agent B cut off 10 s':
        return cutOffSecondAgent(agentB, 10);
      case 'agent B slow 10 s':
        return slowSecondAgent(agentB, 10, 800);
    }
  };
  const agentBKills: number[] = [];
  const seed = Number(process.env.KRT_CHAOS_SEED ?? Date.now() % 100000);
  log(`fault order seed ${seed} (KRT_CHAOS_SEED)`);
  const stream = async ({ faults: kinds, busySeconds }: (typeof STREAMS)[number], n: number) => {
    const plan = process.env.KRT_CHAOS_FAULTS === 'none' ? [] : shuffled(kinds, seed + n);
    // Spread over the load: the faults' own time plus random gaps.
    const gapMs = Math.max(2000, (CREATE_SECONDS * 1000 - busySeconds * 1000) / (plan.length + 1));
    let rand = seed + n;
    for (const kind of plan) {
      rand = (rand * 1103515245 + 12345) % 2 ** 31;
      await pause(gapMs * (0.5 + rand / 2 ** 31));
      log(`fault: ${kind}`);
      const f = await inject(kind).catch((e: unknown): Fault => ({
        kind,
        happened: false,
        detail: `injection failed: ${String(e)}`,
      }));
      faults.push(f);
      log(
        `  ${f.happened ? 'happened' : 'DID NOT HAPPEN'}: ${f.detail}${f.recoveredMs !== undefined ? ` (back in ${f.recoveredMs} ms)` : ''}`,
      );
    }
  };
  await Promise.all(STREAMS.map(stream));
  await load;
  const podOutcome = await pods.stop();
  if (podOutcome) {
    faults.push(...podOutcome.faults);
    for (const w of podOutcome.wrong.slice(0, 10)) log(`container run wrong: ${w}`);
    for (const t of podOutcome.twice.slice(0, 10)) log(`container step in two Pods: ${t}`);
  }
  log(
    `all ${created.size} created (${refusedAttempts} attempts refused while faults lasted); waiting for them to finish`,
  );

  const settleEnd = Date.now() + SETTLE_SECONDS * 1000;
  const rootsFinished = () => [...created.keys(), ...cancels.keys()].filter((n) => finished.has(n)).length;
  while (rootsFinished() < created.size + cancels.size && Date.now() < settleEnd) {
    await pause(2000);
    if (Math.random() < 0.05) log(`finished ${rootsFinished()} of ${created.size}`);
  }
  // The Promise load: every resource configured, within the same bound.
  let unconfigured = await promises.unconfigured();
  while (unconfigured.length > 0 && Date.now() < settleEnd) {
    await pause(2000);
    unconfigured = await promises.unconfigured();
  }
  for (const why of unconfigured.slice(0, 20)) log(`not configured: ${why}`);
  clearInterval(rss);
  clearInterval(requestTimer);
  requests.sample();

  // Verdict.
  const effects_ = effects.entries().map((e) => parseEffect(e.line, e.at));
  const malformed = effects_.filter((e) => e === undefined).length;
  const all = effects_.filter((e): e is Effect => e !== undefined);
  const agentLog = readFileSync(join(stateDir, 'logs', 'runtimed.log'), 'utf8');
  const agentBLog = agentB.output();
  const handedBack = new Map([
    ...requeuedOnRestart(agentLog, c.namespace),
    ...requeuedOnRestart(agentBLog, c.namespace),
  ]);
  const kills = [
    ...agentKills(
      faults.filter((f) => f.kind === 'runtimed SIGKILL' && f.happened).map((f) => f.at ?? 0),
      agentLog,
    ),
    ...agentKills(agentBKills, agentBLog),
  ];
  const stale = requeuedStale(`${agentLog}\n${agentBLog}`, c.namespace);
  const { duplicates, reruns, staleReruns, atOnce } = classifyExecutions(all, handedBack, kills, stale);
  for (const d of duplicates.slice(0, 10))
    log(
      `executed again: ${d.key} (attempt ${d.attempt}, ${JSON.stringify(all.filter((e) => e.key === d.key))})`,
    );
  for (const r of reruns.slice(0, 10))
    log(`re-run after its agent was killed: ${r.key} (attempt ${r.attempt})`);
  for (const r of staleReruns.slice(0, 10))
    log(
      `re-run after its agent went silent and it was handed back as stale: ${r.key} (attempt ${r.attempt})`,
    );
  if (kills.length)
    log(
      `killed agents stopped their steps at most ${Math.max(...kills.map((k) => k.stepsStoppedAt - k.at))} ms after the kill`,
    );
  // How long before the kill such a step had done its work: the agent had not yet seen it end.
  const gaps = reruns.flatMap((r) => {
    const first = all.find((e) => e.key === r.key && e.attempt < r.attempt);
    const kill = killBefore(kills, handedBack.get(r.run));
    return first && kill ? [kill.at - first.at] : [];
  });
  if (gaps.length)
    log(
      `re-runs: the step did its work from ${(Math.min(...gaps) / 1000).toFixed(3)} to ${(Math.max(...gaps) / 1000).toFixed(3)} s before its agent was killed`,
    );
  const executed = new Set(all.map((e) => e.key));
  let completed = 0;
  let failed = 0;
  // Counted with the verdict: a run that finished after the bound (while the objects were counted)
  // is still lost.
  let lost = 0;
  const unfinished: string[] = [];
  const failedNames: string[] = [];
  let steps = 0;
  let runsExpected = 0;
  let childrenExpected = 0;
  const latencies: number[] = [];
  for (const [name, { at, expected }] of created) {
    runsExpected += expected.runs;
    childrenExpected += expected.children;
    for (const k of expected.keys) if (executed.has(k)) steps++;
    const f = finished.get(name);
    if (!f) {
      lost++;
      unfinished.push(name);
      continue;
    }
    const ok =
      f.run.status?.phase === (expected.phase ?? 'Succeeded') &&
      Object.entries(expected.outputs).every(([job, outs]) =>
        Object.entries(outs).every(([k, v]) => f.run.status?.jobs?.[job]?.outputs?.[k] === v),
      ) &&
      Object.entries(expected.failures ?? {}).every(([job, says]) => {
        const j = f.run.status?.jobs?.[job];
        return j?.phase === 'Failed' && (j.message ?? '').includes(says);
      });
    if (ok) {
      completed++;
      latencies.push(f.at - at);
    } else {
      failed++;
      if (failed <= 5) failedNames.push(name);
    }
  }
  // The cancellation load: each must have ended, Cancelled or (done before the cancel) Succeeded.
  let cancelEnded = 0;
  const cancelNotEnded: string[] = [];
  for (const name of cancels.keys()) {
    const phase = finished.get(name)?.run.status?.phase;
    if (phase === 'Cancelled' || phase === 'Succeeded') cancelEnded++;
    else cancelNotEnded.push(name);
  }
  unfinished.push(...cancelNotEnded);
  // Why the first failed runs failed: each job not Succeeded and each Run that did not succeed.
  for (const name of failedNames) log(`failed: ${await explainFailed(c, name)}`);
  // Which runs did not finish, and what each was waiting for (the first 20).
  for (const name of unfinished.slice(0, 20)) log(`stuck: ${await explainStuck(c, name)}`);
  const runObjects = await countObjects(c, 'runs');
  const wfrObjects = await countObjects(c, 'workflowruns');
  await agentB.stop();
  await controllerB.stop();
  const duplicatedObjects =
    Math.max(0, runObjects - runsExpected) + Math.max(0, wfrObjects - created.size - childrenExpected);
  roots.stop();
  const outcome = {
    faults,
    runs: created.size,
    completed,
    failed,
    lost,
    duplicatedExecutions: duplicates.length,
    ranTwiceAtOnce: atOnce.length,
    rerunAfterAgentKill: reruns.length,
    rerunAfterStale: staleReruns.length,
    cancelled: { runs: cancels.size, ended: cancelEnded, notEnded: cancelNotEnded.length },
    resources: { created: promises.count(), configured: promises.count() - unconfigured.length },
    ...(podOutcome
      ? {
          pods: {
            runs: podOutcome.runs,
            right: podOutcome.right,
            wrong: podOutcome.wrong.length,
            twice: podOutcome.twice.length,
          },
        }
      : {}),
    duplicatedObjects,
    unvalidatedStored: unvalidated,
    steps,
    latenciesMs: latencies,
    peakRssMiB: peak,
    apiRequests: requests.value,
    minutes: (Date.now() - started) / 60_000,
  };
  console.log(`\nmake chaos, ${new Date().toISOString().slice(0, 10)} (fault order seed ${seed})`);
  console.log(table(outcome));
  if (notCreated) console.log(`(${notCreated} runs could not be created in 10 minutes of trying)`);
  console.log(
    `(objects: ${runObjects} Runs for ${runsExpected} expected, ${wfrObjects} WorkflowRuns for ${created.size + childrenExpected})`,
  );
  if (!process.env.KRT_CHAOS_KEEP) {
    await c.cleanup();
    deletePromise(promises.promise);
  }
  await ch.close();
  if (malformed) console.log(`(${malformed} side-effect lines could not be read)`);
  const bad =
    lost +
    failed +
    cancelNotEnded.length +
    unconfigured.length +
    duplicates.length +
    duplicatedObjects +
    unvalidated +
    notCreated +
    malformed +
    (podOutcome ? podOutcome.wrong.length + podOutcome.twice.length : 0);
  process.exit(bad === 0 ? 0 : 1);
}

/** A failed run as the API server holds it now: its jobs and Runs that did not succeed, with why. */
async function explainFailed(c: TestCluster, name: string): Promise<string> {
  const run = (await c.admin.custom
    .getNamespacedCustomObject({ ...crd('workflowruns', c.namespace), name })
    .catch(() => undefined)) as WorkflowRun | undefined;
  if (!run) return `${name}: gone`;
  const jobs = Object.entries(run.status?.jobs ?? {})
    .filter(([, j]) => j.phase !== 'Succeeded')
    .map(([job, j]) => `job ${job} ${j.phase ?? '?'}: ${j.message ?? ''}`);
  const steps = (
    (await c.admin.custom.listNamespacedCustomObject({
      ...crd('runs', c.namespace),
      labelSelector: `${LABEL_WORKFLOWRUN_UID}=${run.metadata.uid ?? ''}`,
    })) as { items: Run[] }
  ).items
    .filter((r) => r.status?.phase !== 'Succeeded')
    .map((r) => `Run ${r.metadata.name} ${JSON.stringify(r.status ?? {}).slice(0, 600)}`);
  return [`${name}: ${run.status?.phase ?? '?'} (${run.status?.message ?? ''})`, ...jobs, ...steps].join(
    '; ',
  );
}

/** One unfinished run as the API server holds it now, with its Runs. */
async function explainStuck(c: TestCluster, name: string): Promise<string> {
  const run = (await c.admin.custom
    .getNamespacedCustomObject({ ...crd('workflowruns', c.namespace), name })
    .catch(() => undefined)) as WorkflowRun | undefined;
  const steps = run
    ? (
        (await c.admin.custom.listNamespacedCustomObject({
          ...crd('runs', c.namespace),
          labelSelector: `${LABEL_WORKFLOWRUN_UID}=${run.metadata.uid ?? ''}`,
        })) as { items: Run[] }
      ).items
    : [];
  return whyStuck(run, name, steps, Date.now());
}

await main();
