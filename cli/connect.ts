// The cluster connection of a krt command: KUBECONFIG (or --kubeconfig) and the namespace.
import { loadKubeConfig, makeClients, type Clients } from '../src/kube/client.js';

/** An error that is the user's to fix: printed as one line, exit code 2. */
export class UsageError extends Error {}

export interface Connection {
  clients: Clients;
  namespace: string;
}

export function connect(opts: { namespace?: string; kubeconfig?: string }): Connection {
  let kc;
  try {
    kc = loadKubeConfig(opts.kubeconfig);
  } catch (e) {
    throw new UsageError(`cannot load a kubeconfig: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!kc.getCurrentCluster()) throw new UsageError('no kubeconfig: set KUBECONFIG or pass --kubeconfig');
  const namespace = opts.namespace ?? kc.getContextObject(kc.getCurrentContext())?.namespace ?? 'default';
  return { clients: makeClients(kc), namespace };
}
