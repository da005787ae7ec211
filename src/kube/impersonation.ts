// Impersonated user extras from a kubeconfig (`as-user-extra`), which client-node does not read.
import { parse as parseYaml } from 'yaml';

const impersonation = new WeakMap<object, Record<string, string>>();

export function impersonate(kc: object, headers: Record<string, string> | undefined): void {
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

/** Headers every request of this access (a KubeConfig or src/kube/access.ts's) carries beyond what it sets itself. */
export function extraHeaders(kc: object): Record<string, string> {
  return impersonation.get(kc) ?? {};
}
