// The Pod executor under make chaos, on the one-node cluster of test/cluster (root; started, and the
// suite's install deployed, when it is not there): rounds of two-step container runs while the rest
// of the load goes on, each round with one fault of the Pod runtime in turn: a step Pod deleted, a
// step Pod evicted by a drain of the node (cordoned, evicted, uncordoned), both executor Pods killed
// at once. In each round every run must end; the one whose Pod went fails with PodDeleted naming
// that Pod, the others succeed; no step ran in two Pods (its Pod's Events name one Pod uid).
// KRT_CHAOS_PODS=none leaves it out. Every kubectl call is asynchronous: the main load shares the
// event loop.
import { join } from 'node:path';
import { ckAsync } from '../harness/node-cluster.js';
import { repoRoot } from '../harness/paths.js';
import {
  deploy,
  EXECUTOR_PODS,
  NS,
  podJob,
  podUids,
  startCluster,
  step,
  stopCluster,
  workflowRun,
} from '../e2e-cluster/helpers.js';
import type { Fault, PodFaultKind } from './faults.js';

export const POD_FAULTS = [
  'step Pod deleted',
  'step Pod evicted by a drain',
  'executor Pods killed',
] as const;
type PodFault = (typeof POD_FAULTS)[number] & PodFaultKind;

/** How many runs a round makes; its first is the one whose Pod a delete or a drain takes. */
const PER_ROUND = 4;

export interface PodOutcome {
  rounds: number;
  runs: number;
  /** Ended as their round's fault says they must. */
  right: number;
  /** Each run that did not, with what it did. */
  wrong: string[];
  /** Steps whose Events name more than one Pod. */
  twice: string[];
  faults: Fault[];
}

type Log = (line: string) => void;

async function kubectl(args: string[], input?: string): Promise<string> {
  const r = await ckAsync(args, input);
  if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr.trim()}`);
  return r.stdout;
}

const get = async <T>(args: string[]): Promise<T> => JSON.parse(await kubectl([...args, '-o', 'json'])) as T;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Asks `f` every second until it gives a value, for at most `seconds`; undefined after that. */
async function within<T>(seconds: number, f: () => Promise<T | undefined | false>): Promise<T | undefined> {
  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) {
    const v = await f().catch(() => undefined);
    if (v) return v;
    await sleep(1000);
  }
  return undefined;
}

type RunView = { status?: { phase?: string; reason?: string; message?: string } };

/** The name of the Pod the step's Run runs in, once it runs. */
const runningPod = (run: string) =>
  within(120, async () => {
    const r = await get<RunView>(['get', '-n', NS, 'run', run]);
    const pods = await get<{ items: { metadata: { name: string } }[] }>([
      'get',
      'pods',
      '-n',
      NS,
      '-l',
      `kruntimes.io/run=${run}`,
    ]);
    return r.status?.phase === 'Running' && pods.items.length === 1 && pods.items[0]?.metadata.name;
  });

async function inject(kind: PodFault, target: string): Promise<Fault> {
  // Each fault while a step of the round runs in its Pod.
  const pod = await runningPod(target);
  const at = Date.now();
  if (!pod) return { kind, happened: false, at, detail: `${target} never ran in a Pod` };
  if (kind === 'executor Pods killed') {
    const pods = (await kubectl([...EXECUTOR_PODS, '-o', 'name'])).split('\n').filter(Boolean);
    await kubectl(['delete', '-n', 'kruntimes-system', '--wait=false', ...pods]);
    return { kind, happened: pods.length > 0, at, detail: `${pods.join(', ')} deleted` };
  }
  if (kind === 'step Pod deleted') {
    await kubectl(['delete', 'pod', '-n', NS, pod, '--wait=false']);
    return { kind, happened: true, at, detail: `Pod ${pod} deleted` };
  }
  const node = await kubectl(['get', 'pod', '-n', NS, pod, '-o', 'jsonpath={.spec.nodeName}']);
  try {
    await kubectl([
      'drain',
      node,
      '--pod-selector',
      `kruntimes.io/run=${pod}`,
      '--ignore-daemonsets',
      '--delete-emptydir-data',
      '--force',
      '--timeout=60s',
    ]);
  } finally {
    await kubectl(['uncordon', node]);
  }
  return { kind, happened: true, at, detail: `Pod ${pod} evicted, node ${node} drained and uncordoned` };
}

/** One round: its runs made, its fault injected, each run's end checked against what the fault allows. */
async function round(n: number, kind: PodFault, out: PodOutcome): Promise<void> {
  const names = Array.from(
    { length: PER_ROUND },
    (_, i) => `chaos-pods-${Date.now().toString(36)}-${n}-${i}`,
  );
  const runs = names.map((name) =>
    workflowRun(name, {
      a: podJob([
        { name: 's1', image: step(), run: 'sleep 6; echo "v=1" >> "$KRT_OUTPUT"' },
        { name: 's2', image: step(), run: 'sleep 2; echo "v=2" >> "$KRT_OUTPUT"' },
      ]),
    }),
  );
  await kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: runs }));
  out.runs += names.length;
  const fault = await inject(kind, `${names[0]}-a-s1`).catch((e: unknown): Fault => ({
    kind,
    happened: false,
    detail: `injection failed: ${String(e)}`,
  }));
  out.faults.push(fault);
  const podWent = kind !== 'executor Pods killed' && fault.happened;
  for (const [i, name] of names.entries()) {
    const wfr = await within(300, async () => {
      const r = await get<RunView>(['get', '-n', NS, 'wfr', name]);
      return ['Succeeded', 'Failed', 'Cancelled'].includes(r.status?.phase ?? '') && r;
    });
    const s1 = await get<RunView>(['get', '-n', NS, 'run', `${name}-a-s1`]).catch(() => undefined);
    const mustFail = podWent && i === 0;
    const ok = mustFail
      ? wfr?.status?.phase === 'Failed' &&
        s1?.status?.reason === 'PodDeleted' &&
        (s1.status.message ?? '').includes(`${name}-a-s1`)
      : wfr?.status?.phase === 'Succeeded';
    if (ok) out.right++;
    else
      out.wrong.push(
        `${name} (${kind}): ${wfr?.status?.phase ?? 'not ended in 300 s'}; s1 ${JSON.stringify(s1?.status ?? {})}`,
      );
    for (const s of mustFail ? ['s1'] : ['s1', 's2']) {
      const pod = `${name}-a-${s}`;
      if ((await podUids(pod)).size > 1) out.twice.push(pod);
    }
  }
  await kubectl(['delete', '-n', NS, 'wfr', ...names, '--wait=false']).catch(() => undefined);
}

/**
 * Starts the Pod load: the cluster and the install first (before the main load, as they block),
 * then rounds until stop() is called; stop() waits for the round under way and gives the outcome.
 */
export async function podLoad(log: Log): Promise<{ stop(): Promise<PodOutcome | undefined> }> {
  if (process.env.KRT_CHAOS_PODS === 'none' || process.getuid?.() !== 0) {
    log('the Pod load is left out (KRT_CHAOS_PODS=none, or not root: the one-node cluster needs root)');
    return { stop: async () => undefined };
  }
  log('the Pod load: starting the one-node cluster and deploying the install (test/cluster)');
  const started = startCluster();
  await deploy(join(repoRoot, 'test', 'e2e-cluster', 'overlay'), 'kruntimes-system');
  const out: PodOutcome = { rounds: 0, runs: 0, right: 0, wrong: [], twice: [], faults: [] };
  let stopping = false;
  const rounds = (async () => {
    for (let n = 0; !stopping; n++) {
      const kind = POD_FAULTS[n % POD_FAULTS.length] as PodFault;
      log(`pod fault: ${kind} (round ${n + 1})`);
      await round(n, kind, out).catch((e: unknown) => out.wrong.push(`round ${n + 1}: ${String(e)}`));
      out.rounds++;
      const f = out.faults.at(-1);
      log(`  ${f?.happened ? 'happened' : 'DID NOT HAPPEN'}: ${f?.detail ?? ''}`);
    }
  })();
  return {
    stop: async () => {
      stopping = true;
      await rounds;
      if (started && !process.env.KRT_KEEP_CLUSTER) stopCluster();
      return out;
    },
  };
}
