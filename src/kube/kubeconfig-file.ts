// Finding and merging kubeconfig files as kubectl does: `--kubeconfig` names one file; else
// KUBECONFIG may list several (`a:b`), merged with the first file's entry winning for each named
// cluster, user and context and the first current-context that is set winning; else
// ~/.kube/config; else none (in a Pod, its service account). `--context` picks another context.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { impersonatedExtra } from './impersonation.js';

export interface KubeconfigOptions {
  /** One file (kubectl's --kubeconfig); no merging. */
  path?: string;
  /** A context of the kubeconfig other than its current one (kubectl's --context). */
  context?: string;
  env?: NodeJS.ProcessEnv;
  home?: string;
}

/** The files a kubeconfig is read from, in kubectl's order; empty means in-cluster. */
export function kubeconfigFiles(opts: KubeconfigOptions = {}): string[] {
  if (opts.path) return [opts.path];
  const env = opts.env ?? process.env;
  // kubectl skips the files of KUBECONFIG that do not exist.
  const listed = (env.KUBECONFIG ?? '').split(delimiter).filter(Boolean);
  if (listed.length > 0) {
    const present = listed.filter((f) => existsSync(f));
    if (present.length === 0)
      throw new Error(`none of the files in KUBECONFIG exists: ${listed.join(delimiter)}`);
    return present;
  }
  const home = join(opts.home ?? homedir(), '.kube', 'config');
  return existsSync(home) ? [home] : [];
}

/** The entries of several files, one per name: the first file that names it wins. */
export const byName = <T extends { name: string }>(lists: T[][]): T[] => {
  const seen = new Map<string, T>();
  for (const list of lists) for (const x of list) if (!seen.has(x.name)) seen.set(x.name, x);
  return [...seen.values()];
};

export interface ClusterEntry {
  server: string;
  'certificate-authority'?: string;
  'certificate-authority-data'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'tls-server-name'?: string;
  'proxy-url'?: string;
}

export interface UserEntry {
  'client-certificate'?: string;
  'client-certificate-data'?: string;
  'client-key'?: string;
  'client-key-data'?: string;
  token?: string;
  tokenFile?: string;
  username?: string;
  password?: string;
  as?: string;
  'as-groups'?: string[];
  exec?: unknown;
  'auth-provider'?: unknown;
}

/** A kubeconfig document, as kubectl writes it (the fields this project reads are typed). */
export interface KubeconfigDoc {
  apiVersion?: string;
  kind?: string;
  clusters?: { name: string; cluster?: ClusterEntry }[];
  users?: { name: string; user?: UserEntry }[];
  contexts?: { name: string; context?: { cluster?: string; user?: string } }[];
  'current-context'?: string;
}

const FILE_FIELDS = ['certificate-authority', 'client-certificate', 'client-key', 'tokenFile'] as const;

/** File paths of a kubeconfig are relative to the file that names them, as kubectl reads them. */
function absolute<T extends object>(entry: T | undefined, dir: string): T {
  const out: Record<string, unknown> = { ...entry };
  for (const f of FILE_FIELDS) {
    const v = out[f];
    if (typeof v === 'string' && v && !isAbsolute(v)) out[f] = join(dir, v);
  }
  return out as T;
}

function readDoc(file: string): KubeconfigDoc {
  const doc = (parseYaml(readFileSync(file, 'utf8')) ?? {}) as KubeconfigDoc;
  const dir = dirname(file);
  return {
    ...doc,
    clusters: (doc.clusters ?? []).map((c) => ({ ...c, cluster: absolute(c.cluster, dir) })),
    users: (doc.users ?? []).map((u) => ({ ...u, user: absolute(u.user, dir) })),
  };
}

/**
 * The files merged into one document: each named cluster, user and context from the first file
 * that has it, the first current-context that is set (or `context`), file paths made absolute.
 */
export function mergedKubeconfig(files: string[], context?: string): KubeconfigDoc {
  const docs = files.map(readDoc);
  const current = context ?? docs.map((d) => d['current-context']).find(Boolean);
  const contexts = byName(docs.map((d) => d.contexts ?? []));
  if (current && !contexts.some((c) => c.name === current))
    throw new Error(`context "${current}" is not in the kubeconfig (${files.join(delimiter)})`);
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: byName(docs.map((d) => d.clusters ?? [])),
    users: byName(docs.map((d) => d.users ?? [])),
    contexts,
    ...(current ? { 'current-context': current } : {}),
  };
}

/** The impersonation extras (`as-user-extra`) of a user, from the first file that defines them. */
export function userExtra(files: string[], user: string | undefined): Record<string, string> | undefined {
  for (const f of files) {
    const extra = impersonatedExtra(readFileSync(f, 'utf8'), user);
    if (extra) return extra;
  }
  return undefined;
}

/** The current (or named) context's cluster and user of the merged files, and the user's impersonation extras. */
export function readKubeconfig(
  files: string[],
  context?: string,
): { cluster: ClusterEntry; user: UserEntry; extra: Record<string, string> | undefined } {
  const doc = mergedKubeconfig(files, context);
  const where = files.join(delimiter);
  const name = doc['current-context'];
  if (!name) throw new Error(`kubeconfig has no current context (${where})`);
  const ctx = doc.contexts?.find((c) => c.name === name);
  const cluster = doc.clusters?.find((c) => c.name === ctx?.context?.cluster);
  if (!cluster?.cluster?.server)
    throw new Error(`kubeconfig has no cluster for context "${name}" (${where})`);
  const userName = ctx?.context?.user;
  const user = doc.users?.find((u) => u.name === userName)?.user ?? {};
  return { cluster: cluster.cluster, user, extra: userExtra(files, userName) };
}
