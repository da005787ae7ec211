// Extra runtimed processes for suites that kill, restart or pair agents. Each serves its own
// runtime name (a pool of the built-in bash runtime), so the shared local agent leaves its Runs alone.
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { loadKubeConfig, makeClients, type Clients } from '../../src/kube/client.js';
import { parse, stringify } from 'yaml';
import { AGENT_EXTRA } from '../../src/validate/run-status.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { componentCommand, stateDir } from './paths.js';
import { join } from 'node:path';

export interface AgentProcess {
  proc: ChildProcess;
  pid: number;
  /** Its health, metrics and log endpoint (plain HTTP on loopback). */
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

export interface AgentFlags {
  identity: string;
  runtime: string;
  dataDir: string;
  namespace: string;
  concurrency?: number;
  staleSeconds?: number;
  heartbeatSeconds?: number;
  shutdownSeconds?: number;
  /** How long its presence Lease counts when not renewed. */
  leaseSeconds?: number;
  /** Steps in the bubblewrap sandbox (default), or on the host (--insecure-no-sandbox). */
  sandbox?: boolean;
  /** The API server as this agent reaches it (a relay a test can cut); default the local one. */
  apiServer?: string;
}

/**
 * As the runtimed service account, so the suites exercise config/rbac, with the Pod name admission
 * tells agents apart by (as a Pod-bound token carries it): the local agent's kubeconfig, renamed.
 * Without an identity: the service account with no Pod name at all.
 */
export function agentKubeconfig(identity: string | undefined, dir: string, server?: string): string {
  const doc = parse(readFileSync(join(stateDir, 'kubeconfig-runtimed'), 'utf8')) as {
    users: { user: Record<string, unknown> }[];
    clusters: { cluster: Record<string, unknown> }[];
  };
  if (server) for (const c of doc.clusters) c.cluster.server = server;
  for (const u of doc.users)
    if (identity) u.user['as-user-extra'] = { [AGENT_EXTRA]: [identity] };
    else delete u.user['as-user-extra'];
  const file = join(dir, 'kubeconfig');
  writeFileSync(file, stringify(doc), { mode: 0o600 });
  return file;
}

/** API clients acting as a runtimed agent (see agentKubeconfig), for tests that write as one. */
export function agentClients(identity: string | undefined): Clients {
  return makeClients(loadKubeConfig(agentKubeconfig(identity, mkdtempSync(join(tmpdir(), 'krt-agent-')))));
}

export async function startAgent(f: AgentFlags): Promise<AgentProcess> {
  // The step uids of a sandboxed agent reach their files through its data folder.
  chmodSync(f.dataDir, 0o755);
  const proc = spawn(
    process.execPath,
    [
      ...componentCommand('runtimed'),
      '--kubeconfig',
      agentKubeconfig(f.identity, f.dataDir, f.apiServer),
      '--identity',
      f.identity,
      '--runtimes',
      `${f.runtime}=bash`,
      '--namespaces',
      f.namespace,
      '--data-dir',
      f.dataDir,
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--concurrency',
      String(f.concurrency ?? 8),
      '--heartbeat-seconds',
      String(f.heartbeatSeconds ?? 1),
      '--stale-seconds',
      String(f.staleSeconds ?? 5),
      '--grace-seconds',
      '1',
      '--shutdown-seconds',
      String(f.shutdownSeconds ?? 5),
      '--lease-seconds',
      String(f.leaseSeconds ?? 15),
      ...(f.sandbox === false
        ? ['--insecure-no-sandbox']
        : [
            '--bwrap',
            process.env.KRT_BWRAP ?? 'bwrap',
            // The suites' steps report to channels on loopback.
            '--step-network',
            'host',
            // Agents on one machine give their steps different uids.
            '--step-uid-base',
            String(
              300000 +
                (parseInt(createHash('sha256').update(f.identity).digest('hex').slice(0, 6), 16) % 1000) *
                  1000,
            ),
          ]),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, KRT_COMPONENT: `runtimed-${f.identity}` } },
  );
  let out = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  // Ready once it logged that it runs (after its informer synced).
  const deadline = Date.now() + 20_000;
  while (!out.includes('runtimed running')) {
    if (proc.exitCode !== null || Date.now() > deadline) {
      // Never left behind: a second start under the same identity would make two agents of one.
      proc.kill('SIGKILL');
      throw new Error(`runtimed ${f.identity} did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const port = /"port":(\d+)/.exec(out.slice(out.indexOf('runtimed running') - 400))?.[1];
  return { proc, pid: proc.pid ?? 0, url: `http://127.0.0.1:${port}`, output: () => out, exited };
}
