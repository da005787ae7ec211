// Client construction: from a kubeconfig file (KUBECONFIG, or the local environment's), or from
// the in-cluster service account; API clients that share keep-alive connections. The only folder
// of src/ that talks to the API server.
import * as k8s from '@kubernetes/client-node';
import { extraHeaders } from './impersonation.js';
import { loadKubeConfigAs } from './kubeconfig.js';

/** A component's kubeconfig: its --kubeconfig file, else as kubectl finds one (src/kube/kubeconfig.ts). */
export function loadKubeConfig(path?: string, context?: string): k8s.KubeConfig {
  return loadKubeConfigAs({ ...(path ? { path } : {}), ...(context ? { context } : {}) });
}

/**
 * client-node 2 gives every request of a generated client a new undici dispatcher, so every call
 * pays a TCP and TLS handshake. This authentication method does what the KubeConfig does (headers,
 * TLS options) and then hands each request the first dispatcher that KubeConfig made, so all the
 * clients of one KubeConfig share one keep-alive connection pool. Public API only: the
 * SecurityAuthentication interface and RequestContext.setDispatcher.
 */
function sharedConnections(kc: k8s.KubeConfig): k8s.SecurityAuthentication {
  let shared: ReturnType<k8s.RequestContext['getDispatcher']>;
  return {
    getName: () => 'kubeconfig authentication, shared connections',
    async applySecurityAuthentication(context: k8s.RequestContext) {
      await kc.applySecurityAuthentication(context);
      for (const [k, v] of Object.entries(extraHeaders(kc))) context.setHeaderParam(k, v);
      const own = context.getDispatcher();
      if (!own) return;
      shared ??= own;
      if (own !== shared) void own.close();
      context.setDispatcher(shared);
    },
  };
}

const auth = new WeakMap<k8s.KubeConfig, k8s.SecurityAuthentication>();

/** A generated API client (CoreV1Api, CustomObjectsApi, ...) on the KubeConfig's shared connections. */
export function apiClient<T>(kc: k8s.KubeConfig, type: new (config: k8s.Configuration) => T): T {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('kubeconfig has no current cluster');
  let method = auth.get(kc);
  if (!method) auth.set(kc, (method = sharedConnections(kc)));
  return new type(
    k8s.createConfiguration({
      baseServer: new k8s.ServerConfiguration(cluster.server, {}),
      authMethods: { default: method },
    }),
  );
}

export interface Clients {
  kc: k8s.KubeConfig;
  core: k8s.CoreV1Api;
  custom: k8s.CustomObjectsApi;
}

export function makeClients(kc: k8s.KubeConfig): Clients {
  return {
    kc,
    core: apiClient(kc, k8s.CoreV1Api),
    custom: apiClient(kc, k8s.CustomObjectsApi),
  };
}
