// krt as a child process, as a user runs it: ./bin/krt with a kubeconfig, in the suite's namespace.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { TestCluster } from './cluster.js';
import { adminKubeconfig, repoRoot } from './paths.js';

type KrtResult = { status: number | null; stdout: string; stderr: string };

export function krt(c: TestCluster, ...args: string[]): Promise<KrtResult> {
  return krtAs(c, { kubeconfig: adminKubeconfig }, ...args);
}

/** krt with another kubeconfig or extra environment. */
export function krtAs(
  c: TestCluster,
  o: { kubeconfig: string; env?: Record<string, string> },
  ...args: string[]
): Promise<KrtResult> {
  return new Promise((resolve) => {
    const p = spawn(join(repoRoot, 'bin/krt'), ['--kubeconfig', o.kubeconfig, '-n', c.namespace, ...args], {
      env: { ...process.env, ...o.env },
    });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** krt running in the background: its output so far, and its end. */
export function krtBackground(
  c: TestCluster,
  ...args: string[]
): { output: () => string; done: Promise<KrtResult> } {
  let stdout = '';
  let stderr = '';
  const p = spawn(join(repoRoot, 'bin/krt'), ['--kubeconfig', adminKubeconfig, '-n', c.namespace, ...args]);
  p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<KrtResult>((resolve) =>
    p.on('close', (status) => resolve({ status, stdout, stderr })),
  );
  return { output: () => stdout + stderr, done };
}
