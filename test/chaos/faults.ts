// The faults `make chaos` injects, each one checked: a fault is counted only when it is seen to
// have happened (the process gone, the server not answering, admission timing out), and the
// result says how long the system took to come back. Real processes of the local environment.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { crd, statusCode, statusMessage } from '../../src/kube/rest.js';
import type { TestCluster } from '../harness/cluster.js';
import { stateDir } from '../harness/paths.js';
import { localPort, pidOf, processAlive, ready, startProcess, stopProcess } from '../harness/processes.js';
import type { SecondAgent, SecondController } from './actors.js';

export type FaultKind =
  | 'controller SIGKILL'
  | 'runtimed SIGKILL'
  | 'webhook SIGKILL'
  | 'kube-apiserver down 5 s'
  | 'kube-apiserver down 60 s'
  | 'etcd restart'
  | 'webhook unresponsive'
  | 'controller B SIGKILL'
  | 'agent B SIGKILL'
  | 'agent B cut off 10 s'
  | 'agent B slow 10 s';

/** The Pod executor's faults, on the one-node cluster (pod-load.ts). */
export type PodFaultKind = 'step Pod deleted' | 'step Pod evicted by a drain' | 'executor Pods killed';

export interface Fault {
  kind: FaultKind | PodFaultKind;
  /** Seen to happen; a fault that did not is reported, never counted. */
  happened: boolean;
  detail: string;
  /** From the fault's end to the component answering again. */
  recoveredMs?: number;
  /** When it was injected (ms since the epoch). */
  at?: number;
}

export type Component = 'controller' | 'runtimed' | 'webhook';

/** The component answers its readiness endpoint. */
export function componentReady(name: Component): boolean {
  const ca = join(stateDir, 'pki', 'ca.crt');
  const url = {
    controller: `http://127.0.0.1:${localPort('CONTROLLER_PORT')}/readyz`,
    webhook: `https://127.0.0.1:${localPort('WEBHOOK_PORT')}/readyz`,
    runtimed: `https://127.0.0.1:${localPort('RUNTIMED_PORT')}/readyz`,
  }[name];
  return spawnSync('curl', ['-sf', '--max-time', '2', '--cacert', ca, url]).status === 0;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (check()) return true;
    await pause(100);
  }
  return check();
}

/** SIGKILL of a supervised component at this moment; its supervisor starts it again. */
export async function killComponent(name: Component, recoverWithinMs = 60_000): Promise<Fault> {
  const kind = `${name} SIGKILL` as FaultKind;
  const pid = pidOf(name);
  if (!pid || !processAlive(pid)) return { kind, happened: false, detail: `${name} was not running` };
  const at = Date.now();
  process.kill(pid, 'SIGKILL');
  if (!(await until(() => !processAlive(pid), 5000)))
    return { kind, happened: false, detail: `pid ${pid} survived SIGKILL` };
  const t = Date.now();
  const back = await until(
    () => pidOf(name) !== pid && processAlive(pidOf(name)) && componentReady(name),
    recoverWithinMs,
  );
  return back
    ? {
        kind,
        at,
        happened: true,
        detail: `pid ${pid} killed, ${pidOf(name)} ready`,
        recoveredMs: Date.now() - t,
      }
    : { kind, at, happened: true, detail: `pid ${pid} killed; not ready again within ${recoverWithinMs} ms` };
}

/** kube-apiserver SIGKILLed, kept down for `seconds`, started again as it ran. */
export async function apiServerDown(seconds: 5 | 60): Promise<Fault> {
  const kind: FaultKind = `kube-apiserver down ${seconds} s`;
  if (!processAlive(pidOf('kube-apiserver')))
    return { kind, happened: false, detail: 'kube-apiserver was not running' };
  await stopProcess('kube-apiserver');
  const down = !ready['kube-apiserver']();
  await pause(seconds * 1000);
  const t = Date.now();
  await startProcess('kube-apiserver');
  return down
    ? { kind, happened: true, detail: `down for ${seconds} s`, recoveredMs: Date.now() - t }
    : { kind, happened: false, detail: 'still answered after it was stopped' };
}

/** etcd SIGKILLed and started again at once on the same data. */
export async function etcdRestart(): Promise<Fault> {
  const kind: FaultKind = 'etcd restart';
  if (!processAlive(pidOf('etcd'))) return { kind, happened: false, detail: 'etcd was not running' };
  await stopProcess('etcd');
  const down = !ready.etcd();
  const t = Date.now();
  await startProcess('etcd');
  return down
    ? { kind, happened: true, detail: 'killed and started again', recoveredMs: Date.now() - t }
    : { kind, happened: false, detail: 'still answered after it was stopped' };
}

/** What an admission attempt during the fault found. */
export interface Probe {
  refused: boolean;
  /** Whether the object that should have been refused was stored anyway. */
  stored: boolean;
  message: string;
}

/**
 * Tries to create a WorkflowRun only the webhook refuses (an unknown expression context: the
 * schema takes it), and looks whether it was stored.
 */
export async function admissionProbe(c: TestCluster, name: string): Promise<Probe> {
  const body = {
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'WorkflowRun',
    metadata: { name },
    spec: { jobs: { a: { 'runs-on': 'bash', steps: [{ name: 's', run: 'echo ${{ needs.x }}' }] } } },
  };
  let refused = false;
  let message = 'accepted';
  try {
    await c.admin.custom.createNamespacedCustomObject({ ...crd('workflowruns', c.namespace), body });
  } catch (e) {
    refused = true;
    message = statusMessage(e);
  }
  const stored = await c.admin.custom
    .getNamespacedCustomObject({ ...crd('workflowruns', c.namespace), name })
    .then(() => true)
    .catch((e: unknown) => statusCode(e) !== 404);
  return { refused, stored, message };
}

/**
 * The webhook stopped (SIGSTOP: its port open, nothing answered) for `seconds`; `probe` tries to
 * create what the webhook would deny. Happened when that was refused by the call timing out; with
 * `failurePolicy: Fail` nothing unvalidated may be stored.
 */
export async function webhookUnresponsive(seconds: number, probe: () => Promise<Probe>): Promise<Fault> {
  const kind: FaultKind = 'webhook unresponsive';
  const pid = pidOf('webhook');
  if (!pid || !processAlive(pid)) return { kind, happened: false, detail: 'webhook was not running' };
  const t0 = Date.now();
  process.kill(pid, 'SIGSTOP');
  let p: Probe;
  try {
    p = await probe();
    await pause(Math.max(0, seconds * 1000 - (Date.now() - t0)));
  } finally {
    process.kill(pid, 'SIGCONT');
  }
  const timedOut = p.refused && /deadline|timeout|timed out/i.test(p.message);
  if (p.stored) return { kind, happened: timedOut, detail: `UNVALIDATED OBJECT STORED: ${p.message}` };
  return timedOut
    ? { kind, happened: true, detail: `admission timed out and refused: ${p.message.slice(0, 120)}` }
    : { kind, happened: false, detail: `admission did not time out: ${p.message.slice(0, 120)}` };
}

/** A process of the run's own (the second replica or agent): killed, and started again until it runs. */
interface Restartable {
  readonly pid: number;
  kill(): Promise<void>;
  ensure(): Promise<void>;
}

/** SIGKILL of a second one, started again as its Deployment would. */
async function killAndRestart(kind: FaultKind, b: Restartable, note = ''): Promise<Fault> {
  await b.ensure();
  const pid = b.pid;
  if (!pid || !processAlive(pid)) return { kind, happened: false, detail: 'it was not running' };
  const at = Date.now();
  await b.kill();
  const t = Date.now();
  await b.ensure();
  return {
    kind,
    at,
    happened: !processAlive(pid),
    detail: `pid ${pid} killed${note}, ${b.pid} running`,
    recoveredMs: Date.now() - t,
  };
}

/** The second replica SIGKILLed, whether or not it led. */
export async function killSecondController(b: SecondController): Promise<Fault> {
  return killAndRestart('controller B SIGKILL', b, (await b.leads()) ? ' while it led' : '');
}

/** The second agent SIGKILLed and started again on its data folder: it hands back what it held. */
export const killSecondAgent = (b: SecondAgent): Promise<Fault> => killAndRestart('agent B SIGKILL', b);

const FENCE = 'no heartbeat confirmed for the stale period';
const count = (text: string, what: string) => text.split(what).length - 1;

/**
 * The second agent cut off from the API server for `seconds` (its relay resets every connection),
 * everything else reaching it as before: the other agent takes its Runs once they are stale, and
 * its fence stops its steps before that. Says how many steps the fence stopped.
 */
export async function cutOffSecondAgent(b: SecondAgent, seconds: number): Promise<Fault> {
  const kind: FaultKind = 'agent B cut off 10 s';
  await b.ensure();
  if (!b.pid || !processAlive(b.pid)) return { kind, happened: false, detail: 'it was not running' };
  const before = count(b.output(), FENCE);
  const at = Date.now();
  b.link.cut();
  await pause(seconds * 1000);
  b.link.restore();
  const fenced = count(b.output(), FENCE) - before;
  return { kind, at, happened: true, detail: `cut for ${seconds} s; its fence stopped ${fenced} steps` };
}

/** Every byte between the second agent and the API server held `delayMs` for `seconds`. */
export async function slowSecondAgent(b: SecondAgent, seconds: number, delayMs: number): Promise<Fault> {
  const kind: FaultKind = 'agent B slow 10 s';
  await b.ensure();
  if (!b.pid || !processAlive(b.pid)) return { kind, happened: false, detail: 'it was not running' };
  const at = Date.now();
  b.link.delay(delayMs);
  await pause(seconds * 1000);
  b.link.delay(0);
  return { kind, at, happened: true, detail: `${delayMs} ms each way for ${seconds} s` };
}
