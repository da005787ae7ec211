// The local controller process, for suites that kill and restart it.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { metricsOf } from './components.js';
import { repoRoot, stateDir } from './paths.js';

/** 1 while the local controller leads (its own metric), 0 otherwise or when it does not answer. */
export async function isLeader(): Promise<number> {
  const text = await metricsOf('controller').catch(() => '');
  return Number(/^krt_controller_is_leader (\d)/m.exec(text)?.[1] ?? 0);
}

export const controllerPid = () => Number(readFileSync(join(stateDir, 'pids', 'controller.pid'), 'utf8'));

export const startController = () =>
  spawnSync('bash', ['-c', `. ${join(repoRoot, 'test/controlplane/lib.sh')} && start_controller`], {
    stdio: 'ignore',
  });

/** The next exit of the local controller is for good: its supervisor does not start it again. */
export const endControllerSupervision = () => writeFileSync(join(stateDir, 'pids', 'controller.stop'), '');
