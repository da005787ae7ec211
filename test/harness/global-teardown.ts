// Stops the local control plane if the global setup started it (KRT_KEEP_CONTROLPLANE=1 keeps it).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

export default async function globalTeardown(_global: unknown, project: { rootDir: string }): Promise<void> {
  if (!(globalThis as { krtStartedControlPlane?: boolean }).krtStartedControlPlane) return;
  if (process.env.KRT_KEEP_CONTROLPLANE) return;
  spawnSync('bash', [join(project.rootDir, 'test/controlplane/down.sh')], {
    cwd: project.rootDir,
    stdio: 'inherit',
  });
}
