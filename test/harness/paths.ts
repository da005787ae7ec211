import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const stateDir = join(repoRoot, '.kruntimes');
export const adminKubeconfig = join(stateDir, 'kubeconfig');
export const userKubeconfig = join(stateDir, 'kubeconfig-user');
export const kubectlPath = join(stateDir, 'bin', 'kubectl');
/**
 * How a test starts a component, as test/controlplane/lib.sh does: its bundle, with the Node.js
 * flags the image's entrypoint gives it (tools/image/kruntimes holds them, once).
 */
export const componentCommand = (component: 'controller' | 'webhook' | 'runtimed'): string[] => [
  ...execFileSync(join(repoRoot, 'tools', 'image', 'kruntimes'), ['node-flags', component], {
    encoding: 'utf8',
  })
    .split(/\s+/)
    .filter(Boolean),
  join(repoRoot, 'dist', 'bundle', component, 'main.js'),
];
