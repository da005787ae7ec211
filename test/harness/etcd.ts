// The local etcd, reached through its HTTP gateway (the control plane's etcd listens on loopback
// without TLS), for suites that need what only etcd can do: compact its history.
import { localPort } from './processes.js';

const etcdUrl = () => `http://127.0.0.1:${localPort('ETCD_PORT')}`;

async function etcd<T>(path: string, body: unknown): Promise<T> {
  const res = await fetch(`${etcdUrl()}${path}`, { method: 'POST', body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`etcd ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** etcd's current revision (every write anywhere moves it). */
export async function etcdRevision(): Promise<number> {
  const r = await etcd<{ header: { revision: string } }>('/v3/kv/range', { key: 'AA==' });
  return Number(r.header.revision);
}

/** Compacts etcd's history up to its current revision, as kube-apiserver does every 5 minutes. */
export async function compactEtcd(): Promise<number> {
  const revision = await etcdRevision();
  await etcd('/v3/kv/compaction', { revision: String(revision), physical: true });
  return revision;
}
