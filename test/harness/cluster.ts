// What an integration suite needs: clients for the admin and the unprivileged identity, and a
// namespace of its own that is deleted after the suite.
import { randomBytes } from 'node:crypto';
import { loadKubeConfig, makeClients, type Clients } from '../../src/kube/client.js';
import { statusCode, statusMessage } from '../../src/kube/rest.js';
import { componentsWatching } from './components.js';
import { eventually } from './eventually.js';
import { adminKubeconfig, userKubeconfig } from './paths.js';

export { eventually };

export interface TestCluster {
  admin: Clients;
  user: Clients;
  namespace: string;
  cleanup(): Promise<void>;
}

export async function testCluster(suite: string, labels: Record<string, string> = {}): Promise<TestCluster> {
  await componentsWatching();
  const admin = makeClients(loadKubeConfig(adminKubeconfig));
  const user = makeClients(loadKubeConfig(userKubeconfig));
  const namespace = `krt-${suite}-${randomBytes(3).toString('hex')}`;
  await admin.core.createNamespace({
    body: { metadata: { name: namespace, labels: { 'kruntimes.io/test': suite, ...labels } } },
  });
  return {
    admin,
    user,
    namespace,
    async cleanup() {
      await admin.core.deleteNamespace({ name: namespace }).catch(() => undefined);
    },
  };
}

/** Awaits a call that must fail, and returns its HTTP status and message. */
export async function rejection(
  call: Promise<unknown>,
): Promise<{ code: number | undefined; message: string }> {
  try {
    await call;
  } catch (e) {
    return { code: statusCode(e), message: statusMessage(e) };
  }
  throw new Error('expected the API server to reject the request, but it was accepted');
}

/**
 * How long a suite waits for kube-controller-manager (its garbage collector, its namespace
 * controller). Suites that restart the API server leave its reflectors backing off: their first
 * requests to a starting API server are refused (403 before its RBAC cache syncs), and client-go
 * backs off up to 30 s with as much again of jitter, per resource. A later suite's owned objects
 * or namespaces can then wait that long to be collected, although nothing is wrong.
 */
export const KCM_WAIT_MS = 120_000;
