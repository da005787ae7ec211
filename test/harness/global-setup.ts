// Ensures the local control plane runs before the integration suites, and remembers whether this
// run started it so the teardown stops only what it started. Self-contained: jest loads global
// setup modules without the module mapping that the suites get.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

export default async function globalSetup(_global: unknown, project: { rootDir: string }): Promise<void> {
  const up = spawnSync('bash', [join(project.rootDir, 'test/controlplane/up.sh')], {
    cwd: project.rootDir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  process.stderr.write(up.stderr);
  if (up.status !== 0) throw new Error(`the local control plane did not start (exit ${up.status})`);
  (globalThis as { krtStartedControlPlane?: boolean }).krtStartedControlPlane =
    !up.stderr.includes('already running');
}
