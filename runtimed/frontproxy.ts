// Who a request that came through the API server is (the aggregation layer, "logs.kruntimes.io"):
// the API server authenticates the user with whatever credentials the user has (OIDC, client
// certificates, tokens), then calls us with its front-proxy client certificate and the user in
// X-Remote-* headers. We trust those headers only on a connection whose client certificate the
// cluster's requestheader CA signed, for one of its allowed names, as every extension API server
// does. The CA and names come from kube-system/extension-apiserver-authentication.
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { core, type KubeClient } from '../src/kube/rest.js';

export interface FrontProxy {
  ca: string;
  allowedNames: string[];
  usernameHeaders: string[];
  groupHeaders: string[];
  extraPrefixes: string[];
}

export interface RemoteUser {
  username: string;
  groups: string[];
  extra: Record<string, string[]>;
}

const CONFIG_MAP = { ...core('configmaps', 'kube-system'), name: 'extension-apiserver-authentication' };

const jsonList = (v: string | undefined, fallback: string[]): string[] => {
  try {
    const parsed = v ? (JSON.parse(v) as unknown) : undefined;
    return Array.isArray(parsed) ? parsed.map(String) : fallback;
  } catch {
    return fallback;
  }
};

/** The cluster's front-proxy settings, or undefined where it has none (no aggregation layer). */
export async function loadFrontProxy(kube: KubeClient): Promise<FrontProxy | undefined> {
  const cm = await kube.get<{ data?: Record<string, string> }>(CONFIG_MAP).catch(() => undefined);
  const d = cm?.data ?? {};
  const ca = d['requestheader-client-ca-file'];
  if (!ca) return undefined;
  return {
    ca,
    allowedNames: jsonList(d['requestheader-allowed-names'], []),
    usernameHeaders: jsonList(d['requestheader-username-headers'], ['X-Remote-User']),
    groupHeaders: jsonList(d['requestheader-group-headers'], ['X-Remote-Group']),
    extraPrefixes: jsonList(d['requestheader-extra-headers-prefix'], ['X-Remote-Extra-']),
  };
}

/** The user the API server vouches for, or why the request is not from the API server. */
export function remoteUser(req: IncomingMessage, fp: FrontProxy): RemoteUser | { error: string } {
  const socket = req.socket as TLSSocket;
  if (!socket.authorized)
    return { error: 'not called by the API server (no valid front-proxy client certificate)' };
  const cn = socket.getPeerCertificate()?.subject?.CN;
  const name = Array.isArray(cn) ? cn[0] : cn;
  if (fp.allowedNames.length > 0 && !fp.allowedNames.includes(name ?? ''))
    return { error: `client certificate "${name ?? ''}" is not an allowed front proxy` };
  // Each value of a repeated header on its own (Node joins them with ", " in req.headers).
  const headers = req.headersDistinct;
  const header = (h: string) => headers[h.toLowerCase()] ?? [];
  const username = fp.usernameHeaders.flatMap(header)[0];
  if (!username) return { error: 'the API server named no user' };
  const groups = fp.groupHeaders.flatMap(header);
  const extra: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(headers))
    for (const prefix of fp.extraPrefixes)
      if (k.startsWith(prefix.toLowerCase()) && v !== undefined)
        extra[decodeURIComponent(k.slice(prefix.length))] = v;
  return { username, groups, extra };
}
