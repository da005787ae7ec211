import { spawnSync } from 'node:child_process';
import { adminKubeconfig, kubectlPath } from './paths.js';

/** Runs the built kubectl as admin; returns exit status and both streams. */
export function kubectl(args: string[], input?: string, kubeconfig = adminKubeconfig) {
  const r = spawnSync(kubectlPath, ['--kubeconfig', kubeconfig, ...args], { input, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
