// Stops and starts a process of the local control plane (etcd, kube-apiserver) for suites that
// inject its failure: SIGKILL (a crash, nothing drained), then the same binary with the same
// arguments, its state on disk kept. $state/pids/NAME.pid follows the new process.
import { spawn, spawnSync } from 'node:child_process';
import { openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stateDir } from './paths.js';

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export const pidOf = (name: string): number => {
  try {
    return Number(readFileSync(join(stateDir, 'pids', `${name}.pid`), 'utf8'));
  } catch {
    return 0;
  }
};

/** A loopback port of the local environment (.kruntimes/ports.env), such as API_PORT. */
export const localPort = (key: string): string | undefined =>
  new RegExp(`^${key}=(\\d+)$`, 'm').exec(readFileSync(join(stateDir, 'ports.env'), 'utf8'))?.[1];
const pki = join(stateDir, 'pki');

/** One request to the local kube-apiserver as its admin, with curl (so it works while a test stops it). */
export function apiCurl(path: string, timeoutSeconds = 2): { ok: boolean; body: string } {
  const r = spawnSync(
    'curl',
    [
      '-sf',
      '--max-time',
      String(timeoutSeconds),
      '--cacert',
      join(pki, 'ca.crt'),
      '--cert',
      join(pki, 'admin.crt'),
      '--key',
      join(pki, 'admin.key'),
      `https://127.0.0.1:${localPort('API_PORT')}${path}`,
    ],
    { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  return { ok: r.status === 0, body: r.stdout ?? '' };
}

/** Whether it answers its health endpoint now (one request, 2 s at most). */
export const ready: Record<'etcd' | 'kube-apiserver', () => boolean> = {
  etcd: () =>
    spawnSync('curl', ['-sf', '--max-time', '2', `http://127.0.0.1:${localPort('ETCD_PORT')}/health`])
      .status === 0,
  'kube-apiserver': () => apiCurl('/readyz').ok,
};

const argvs = new Map<string, string[]>();

/** SIGKILL, and returns once the process is gone. */
export async function stopProcess(name: keyof typeof ready): Promise<void> {
  const pid = pidOf(name);
  if (!processAlive(pid)) throw new Error(`${name} is not running (pid ${pid})`);
  argvs.set(name, readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean));
  process.kill(pid, 'SIGKILL');
  while (processAlive(pid)) await new Promise((r) => setTimeout(r, 50));
}

/** Starts it again as it ran, and returns once it answers its health endpoint. */
export async function startProcess(name: keyof typeof ready): Promise<void> {
  const argv = argvs.get(name);
  if (!argv) throw new Error(`startProcess: ${name} was not stopped by stopProcess`);
  const [file = '', ...args] = argv;
  const out = openSync(join(stateDir, 'logs', `${name}.log`), 'a');
  const p = spawn(file, args, { detached: true, stdio: ['ignore', out, out] });
  p.unref();
  writeFileSync(join(stateDir, 'pids', `${name}.pid`), String(p.pid));
  while (!ready[name]()) {
    if (!processAlive(p.pid ?? 0)) throw new Error(`${name} exited on start; see its log`);
    await new Promise((res) => setTimeout(res, 200));
  }
}
