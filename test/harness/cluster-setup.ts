// Starts the one-node cluster (test/cluster/up.sh) before its suites when it is not running, and
// remembers whether it did so the teardown stops only what it started. Self-contained, as jest
// loads global setup modules without the suites' module mapping.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

export default async function clusterSetup(_global: unknown, project: { rootDir: string }): Promise<void> {
  // Another cluster, started by the caller (make kind-e2e).
  if (process.env.KRT_CLUSTER_KUBECONFIG) return;
  const up = spawnSync('bash', [join(project.rootDir, 'test/cluster/up.sh')], {
    cwd: project.rootDir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  process.stderr.write(up.stderr);
  if (up.status !== 0) throw new Error(`the one-node cluster did not start (exit ${up.status})`);
  (globalThis as { krtStartedCluster?: boolean }).krtStartedCluster = !up.stderr.includes('already running');
}
