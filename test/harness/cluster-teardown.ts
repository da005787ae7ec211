// Stops the one-node cluster if the setup started it (KRT_KEEP_CLUSTER=1 keeps it).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

export default async function clusterTeardown(_global: unknown, project: { rootDir: string }): Promise<void> {
  if (!(globalThis as { krtStartedCluster?: boolean }).krtStartedCluster) return;
  if (process.env.KRT_KEEP_CLUSTER) return;
  spawnSync('bash', [join(project.rootDir, 'test/cluster/down.sh')], {
    cwd: project.rootDir,
    stdio: 'inherit',
  });
}
