// Ensures the local control plane runs before the integration suites, and remembers whether this
// run started it so the teardown stops only what it started.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './paths.js';

export default async function globalSetup(): Promise<void> {
  const up = spawnSync('bash', [join(repoRoot, 'test/controlplane/up.sh')], {
    cwd: repoRoot,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  process.stderr.write(up.stderr);
  if (up.status !== 0) throw new Error(`the local control plane did not start (exit ${up.status})`);
  (globalThis as { krtStartedControlPlane?: boolean }).krtStartedControlPlane =
    !up.stderr.includes('already running');
}
