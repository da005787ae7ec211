import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const stateDir = join(repoRoot, '.kruntimes');
export const adminKubeconfig = join(stateDir, 'kubeconfig');
export const userKubeconfig = join(stateDir, 'kubeconfig-user');
export const kubectlPath = join(stateDir, 'bin', 'kubectl');
/** How a test starts a component, as test/controlplane/lib.sh does: its bundle, V8 tuned for size. */
export const componentCommand = (component: 'controller' | 'webhook' | 'runtimed'): string[] => [
  ...(process.env.KRT_NODE_FLAGS ?? '--max-semi-space-size=1 --optimize-for-size')
    .split(/\s+/)
    .filter(Boolean),
  join(repoRoot, 'dist', 'bundle', component, 'main.js'),
];
