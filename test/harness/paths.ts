import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const stateDir = join(repoRoot, '.kruntimes');
export const adminKubeconfig = join(stateDir, 'kubeconfig');
export const userKubeconfig = join(stateDir, 'kubeconfig-user');
export const kubectlPath = join(stateDir, 'bin', 'kubectl');
