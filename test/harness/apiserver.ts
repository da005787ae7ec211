// Stops and starts the local kube-apiserver for suites that test an API outage: the same process
// with the same arguments, its state in etcd kept. Clients see connections refused meanwhile.
import { spawn, spawnSync } from 'node:child_process';
import { openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive } from './webhook.js';
import { stateDir } from './paths.js';

const pidFile = join(stateDir, 'pids', 'kube-apiserver.pid');
let argv: string[] | undefined;

export function apiServerPid(): number {
  return Number(readFileSync(pidFile, 'utf8'));
}

/** SIGKILL (a crash: no graceful drain of watches), and returns once the process is gone. */
export async function stopApiServer(): Promise<void> {
  const pid = apiServerPid();
  argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  process.kill(pid, 'SIGKILL');
  while (processAlive(pid)) await new Promise((r) => setTimeout(r, 50));
}

/** Starts it again as it ran, and returns once it answers /readyz. */
export async function startApiServer(): Promise<void> {
  if (!argv) throw new Error('startApiServer: the API server was not stopped by stopApiServer');
  const [file = '', ...args] = argv;
  const out = openSync(join(stateDir, 'logs', 'kube-apiserver.log'), 'a');
  const p = spawn(file, args, { detached: true, stdio: ['ignore', out, out] });
  p.unref();
  writeFileSync(pidFile, String(p.pid));
  const ports = readFileSync(join(stateDir, 'ports.env'), 'utf8');
  const port = /API_PORT=(\d+)/.exec(ports)?.[1];
  const pki = join(stateDir, 'pki');
  for (;;) {
    const r = spawnSync('curl', [
      '-sf',
      '--max-time',
      '2',
      '--cacert',
      join(pki, 'ca.crt'),
      '--cert',
      join(pki, 'admin.crt'),
      '--key',
      join(pki, 'admin.key'),
      `https://127.0.0.1:${port}/readyz`,
    ]);
    if (r.status === 0) return;
    if (!processAlive(p.pid ?? 0)) throw new Error('the API server exited on start; see its log');
    await new Promise((res) => setTimeout(res, 200));
  }
}
