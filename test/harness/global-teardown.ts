import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './paths.js';

export default async function globalTeardown(): Promise<void> {
  if (!(globalThis as { krtStartedControlPlane?: boolean }).krtStartedControlPlane) return;
  if (process.env.KRT_KEEP_CONTROLPLANE) return;
  spawnSync('bash', [join(repoRoot, 'test/controlplane/down.sh')], { cwd: repoRoot, stdio: 'inherit' });
}
