// Impersonated user extras from a kubeconfig (`as-user-extra`), which client-node does not read.
import type * as k8s from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';

const impersonation = new WeakMap<k8s.KubeConfig, Record<string, string>>();

export function impersonate(kc: k8s.KubeConfig, headers: Record<string, string> | undefined): void {
  if (headers) impersonation.set(kc, headers);
}

/**
 * The `as-user-extra` of the kubeconfig's user (client-node reads only `as`), as the headers
 * kubectl sends: the local environment acts as a runtimed agent's Pod-bound token would.
 */
export function impersonatedExtra(
  kubeconfig: string,
  user: string | undefined,
): Record<string, string> | undefined {
  const doc = parseYaml(kubeconfig) as { users?: { name?: string; user?: Record<string, unknown> }[] } | null;
  const extra = doc?.users?.find((u) => u.name === user)?.user?.['as-user-extra'];
  if (!extra || typeof extra !== 'object') return undefined;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(extra)) {
    const values = Array.isArray(v) ? v : [v];
    if (values.length !== 1 || typeof values[0] !== 'string')
      throw new Error(`kubeconfig: as-user-extra ${k} must have exactly one value`);
    headers[`Impersonate-Extra-${encodeURIComponent(k)}`] = values[0];
  }
  return headers;
}

/** Headers every request of this KubeConfig carries beyond what client-node sets. */
export function extraHeaders(kc: k8s.KubeConfig): Record<string, string> {
  return impersonation.get(kc) ?? {};
}
