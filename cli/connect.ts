// The cluster connection of a krt command: KUBECONFIG (or --kubeconfig) and the namespace.
import type { KubeConfig } from '@kubernetes/client-node';
import { loadKubeConfig } from '../src/kube/client.js';
import { KubeClient } from '../src/kube/rest.js';
import { kubeconfigFiles } from '../src/kube/kubeconfig.js';

/** An error that is the user's to fix: printed as one line, exit code 2. */
export class UsageError extends Error {}

export interface Connection {
  /** The kubeconfig as loaded (watches and the log stream use it). */
  kc: KubeConfig;
  /** Every read and write of the commands. */
  kube: KubeClient;
  namespace: string;
}

export function connect(opts: { namespace?: string; kubeconfig?: string; context?: string }): Connection {
  const path = opts.kubeconfig || undefined;
  let kc;
  try {
    // client-node falls back to http://localhost:8080 when it finds nothing, which reads as a TLS
    // error; say what is missing instead. The files are found as loading finds them.
    if (kubeconfigFiles({ ...(path ? { path } : {}) }).length === 0 && !process.env.KUBERNETES_SERVICE_HOST)
      throw new UsageError('no kubeconfig: set KUBECONFIG or pass --kubeconfig');
    // As kubectl: --kubeconfig is one file; KUBECONFIG may list several, merged.
    kc = loadKubeConfig(path, opts.context);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`cannot load a kubeconfig: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!kc.getCurrentCluster()) throw new UsageError('no kubeconfig: set KUBECONFIG or pass --kubeconfig');
  const namespace = opts.namespace ?? kc.getContextObject(kc.getCurrentContext())?.namespace ?? 'default';
  return { kc, kube: new KubeClient(kc), namespace };
}
