// How a process reaches the API server: its address, and what one request needs (TLS options,
// credentials, impersonation headers). client-node's KubeConfig is one such access; `kubeAccess`
// is the project's own, read from the same kubeconfig files without loading client-node, whose
// generated API groups cost a process about 60 MiB (docs/benchmarks.md, "Memory"). A user
// authenticated by a plugin (`exec`, `auth-provider`) or a cluster behind a proxy is handed to
// client-node, loaded only then.
import { readFileSync } from 'node:fs';
import type https from 'node:https';
import { join } from 'node:path';
import { impersonate } from './impersonation.js';
import {
  kubeconfigFiles,
  readKubeconfig,
  type KubeconfigOptions,
  type UserEntry,
} from './kubeconfig-file.js';

/** What raw requests, watches and the thin client need; client-node's KubeConfig has it too. */
export interface KubeAccess {
  getCurrentCluster(): { server: string; proxyUrl?: string } | null;
  /** Sets the TLS options and headers of one request. */
  applyToHTTPSOptions(opts: https.RequestOptions): Promise<void>;
}

/** Where a Pod finds its service account (the kubelet mounts it). */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** A bound service account token rotates: it is read again this often. */
const TOKEN_REREAD_MS = 60_000;

type Tls = Pick<https.RequestOptions, 'ca' | 'cert' | 'key' | 'rejectUnauthorized' | 'servername'>;

class OwnAccess implements KubeAccess {
  private token: { value: string; at: number } | undefined;

  constructor(
    private readonly cluster: { server: string },
    private readonly tls: Tls,
    private readonly headers: Record<string, string | string[]>,
    private readonly tokenFile: string | undefined,
    private readonly clock: () => number = Date.now,
  ) {}

  getCurrentCluster(): { server: string } {
    return this.cluster;
  }

  async applyToHTTPSOptions(opts: https.RequestOptions): Promise<void> {
    Object.assign(opts, this.tls);
    const headers: Record<string, string | string[]> = { ...this.headers };
    const token = this.fileToken();
    if (token) headers.authorization = `Bearer ${token}`;
    opts.headers = { ...(opts.headers as Record<string, string>), ...headers };
  }

  private fileToken(): string | undefined {
    if (!this.tokenFile) return undefined;
    const now = this.clock();
    if (!this.token || now - this.token.at >= TOKEN_REREAD_MS)
      this.token = { value: readFileSync(this.tokenFile, 'utf8').trim(), at: now };
    return this.token.value;
  }
}

/** A plugin user or a proxied cluster: client-node's KubeConfig, loaded on the first request. */
class DelegatedAccess implements KubeAccess {
  private loaded: Promise<KubeAccess> | undefined;

  constructor(
    private readonly cluster: { server: string; proxyUrl?: string },
    private readonly opts: KubeconfigOptions,
  ) {}

  getCurrentCluster(): { server: string; proxyUrl?: string } {
    return this.cluster;
  }

  async applyToHTTPSOptions(opts: https.RequestOptions): Promise<void> {
    this.loaded ??= import('./kubeconfig.js').then((m) => m.loadKubeConfigAs(this.opts));
    await (await this.loaded).applyToHTTPSOptions(opts);
  }
}

const bytes = (data: string | undefined, file: string | undefined): Buffer | undefined =>
  data ? Buffer.from(data, 'base64') : file ? readFileSync(file) : undefined;

function impersonation(user: UserEntry): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  if (user.as) headers['Impersonate-User'] = user.as;
  if (user['as-groups']?.length) headers['Impersonate-Group'] = user['as-groups'];
  return headers;
}

/** In a Pod: the API server of its environment, its service account's token and CA. */
function inCluster(env: NodeJS.ProcessEnv, dir: string, clock?: () => number): KubeAccess {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port)
    throw new Error('no kubeconfig found, and not in a Pod (KUBERNETES_SERVICE_HOST is not set)');
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return new OwnAccess({ server }, { ca: readFileSync(join(dir, 'ca.crt')) }, {}, join(dir, 'token'), clock);
}

/**
 * The access of a kubeconfig, found and merged as kubectl does (src/kube/kubeconfig-file.ts), or
 * of the Pod's service account when there is none.
 */
export function kubeAccess(
  opts: KubeconfigOptions & { serviceAccountDir?: string; clock?: () => number } = {},
): KubeAccess {
  const files = kubeconfigFiles(opts);
  if (files.length === 0)
    return inCluster(opts.env ?? process.env, opts.serviceAccountDir ?? SERVICE_ACCOUNT_DIR, opts.clock);
  const { cluster, user, extra } = readKubeconfig(files, opts.context);
  if (user.exec || user['auth-provider'] || cluster['proxy-url'])
    return new DelegatedAccess({ server: cluster.server, proxyUrl: cluster['proxy-url'] }, opts);
  const tls: Tls = {
    ca: bytes(cluster['certificate-authority-data'], cluster['certificate-authority']),
    cert: bytes(user['client-certificate-data'], user['client-certificate']),
    key: bytes(user['client-key-data'], user['client-key']),
    rejectUnauthorized: !cluster['insecure-skip-tls-verify'],
    ...(cluster['tls-server-name'] ? { servername: cluster['tls-server-name'] } : {}),
  };
  const headers = impersonation(user);
  if (user.token) headers.authorization = `Bearer ${user.token}`;
  else if (user.username !== undefined) {
    const basic = Buffer.from(`${user.username}:${user.password ?? ''}`).toString('base64');
    headers.authorization = `Basic ${basic}`;
  }
  const access = new OwnAccess({ server: cluster.server }, tls, headers, user.tokenFile, opts.clock);
  impersonate(access, extra);
  return access;
}

/** An access that acts as another user: what it was, its own impersonation replaced. */
class ActingAs implements KubeAccess {
  constructor(
    private readonly base: KubeAccess,
    private readonly username: string,
  ) {}

  getCurrentCluster(): { server: string; proxyUrl?: string } | null {
    return this.base.getCurrentCluster();
  }

  async applyToHTTPSOptions(opts: https.RequestOptions): Promise<void> {
    await this.base.applyToHTTPSOptions(opts);
    const headers = Object.fromEntries(
      Object.entries((opts.headers ?? {}) as Record<string, string | string[]>).filter(
        ([k]) => !k.toLowerCase().startsWith('impersonate-'),
      ),
    );
    opts.headers = { ...headers, 'Impersonate-User': this.username };
  }
}

const acting = new WeakMap<KubeAccess, Map<string, KubeAccess>>();

/**
 * `kc` acting as `username` (Kubernetes impersonation: the caller needs the `impersonate` verb on
 * that user or service account). One access per user, so its connections are kept and reused.
 */
export function actingAs(kc: KubeAccess, username: string): KubeAccess {
  let users = acting.get(kc);
  if (!users) acting.set(kc, (users = new Map()));
  let access = users.get(username);
  if (!access) users.set(username, (access = new ActingAs(kc, username)));
  return access;
}
