// The namespace a component is installed in, which every default identity and Lease namespace
// follows: POD_NAMESPACE (the downward API, as config/manager sets it), else the namespace of the
// Pod's service account, else kruntimes-system (the local environment, a laptop).
import { readFileSync } from 'node:fs';

export const DEFAULT_INSTALL_NAMESPACE = 'kruntimes-system';
const SERVICE_ACCOUNT_NAMESPACE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

export function installNamespace(
  env: NodeJS.ProcessEnv = process.env,
  read: (path: string) => string = (p) => readFileSync(p, 'utf8'),
): string {
  if (env.POD_NAMESPACE) return env.POD_NAMESPACE;
  try {
    const ns = read(SERVICE_ACCOUNT_NAMESPACE).trim();
    if (ns) return ns;
  } catch {
    // Not in a Pod.
  }
  return DEFAULT_INSTALL_NAMESPACE;
}
