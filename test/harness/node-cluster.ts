// The one-node cluster of test/cluster (make cluster-up): its kubectl and krt, as admin.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './paths.js';

export const clusterState = join(repoRoot, '.kruntimes-cluster');
// KRT_CLUSTER_KUBECONFIG: another cluster (make kind-e2e), started by the caller.
export const clusterKubeconfig = process.env.KRT_CLUSTER_KUBECONFIG ?? join(clusterState, 'kubeconfig');
const kubectlBin = join(clusterState, 'bin', 'kubectl');

export function ck(args: string[], input?: string) {
  const r = spawnSync(kubectlBin, ['--kubeconfig', clusterKubeconfig, ...args], { input, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** kubectl without blocking the test's event loop (for work done while the test watches). */
export function ckAsync(
  args: string[],
  input?: string,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(kubectlBin, ['--kubeconfig', clusterKubeconfig, ...args]);
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('close', (status) => resolve({ status, stdout, stderr }));
    p.stdin.end(input ?? '');
  });
}

export function ckJson<T = Record<string, unknown>>(args: string[]): T {
  const r = ck([...args, '-o', 'json']);
  if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

export function krt(args: string[]) {
  const r = spawnSync(join(repoRoot, 'bin', 'krt'), args, {
    encoding: 'utf8',
    env: { ...process.env, KUBECONFIG: clusterKubeconfig },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A value of .kruntimes-cluster/ports.env (API_PORT, IMAGE). */
export const clusterEnv = (key: string): string | undefined =>
  new RegExp(`^${key}=(.*)$`, 'm').exec(readFileSync(join(clusterState, 'ports.env'), 'utf8'))?.[1];
