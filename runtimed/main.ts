// runtimed: `node dist/runtimed/main.js --kubeconfig ... --identity node-1 --data-dir /var/lib/runtimed`.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { availableParallelism, homedir, hostname } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import type { Run } from '../src/api/types.js';
import { apiClient, crd, loadKubeConfig, statusCode } from '../src/kube/client.js';
import { log } from '../src/telemetry/log.js';
import { AGENT_LEASE_NAMESPACE } from '../src/runtime/agents.js';
import { Agent } from './agent.js';
import { Presence } from './presence.js';
import { LogAuthorizer } from './auth.js';
import { LogStore } from './logstore.js';
import { parseRuntimes } from './runtime.js';
import { DEFAULT_RUN_STALE_MS } from '../src/runtime/lifecycle.js';
import { prepareSandbox, sandboxOptions, sandboxProblem } from './sandbox.js';
import { DEFAULT_STEP_LIMITS, type SandboxOptions } from '../src/runtime/sandbox.js';

const MB = 1024 * 1024;
import { createApp } from './server.js';

const { values: f } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    identity: { type: 'string', default: hostname() },
    namespaces: { type: 'string', default: '' },
    runtimes: { type: 'string', default: 'bash' },
    concurrency: { type: 'string', default: String(availableParallelism() * 4) },
    'data-dir': { type: 'string', default: join(homedir(), '.local', 'state', 'kruntimes', 'runtimed') },
    'heartbeat-seconds': { type: 'string', default: '5' },
    'stale-seconds': { type: 'string', default: String(DEFAULT_RUN_STALE_MS / 1000) },
    'grace-seconds': { type: 'string', default: '5' },
    'shutdown-seconds': { type: 'string', default: '30' },
    'log-retention-hours': { type: 'string', default: '168' },
    'max-log-bytes': { type: 'string', default: String(16 * 1024 * 1024) },
    // Where this agent's Lease lives (the install's namespace), and how long it counts when not renewed.
    'lease-namespace': { type: 'string', default: process.env.POD_NAMESPACE || AGENT_LEASE_NAMESPACE },
    'lease-seconds': { type: 'string', default: '15' },
    // The step sandbox (bubblewrap); without it steps run as the agent, on its machine.
    bwrap: { type: 'string', default: 'bwrap' },
    // Executions' folders (default <data-dir>/work); every folder above it must be open to the
    // step uids of a root agent, which bwrap runs as.
    'work-dir': { type: 'string' },
    'insecure-no-sandbox': { type: 'boolean', default: false },
    // host: steps share the agent's network; none: a network namespace of their own.
    'step-network': { type: 'string', default: 'host' },
    // A root agent runs each step as its own uid from here (one per concurrent step).
    'step-uid-base': { type: 'string', default: '200000' },
    'step-max-processes': { type: 'string', default: String(DEFAULT_STEP_LIMITS.processes) },
    'step-max-memory-mb': { type: 'string', default: String(DEFAULT_STEP_LIMITS.memoryBytes / MB) },
    'step-max-file-mb': { type: 'string', default: String(DEFAULT_STEP_LIMITS.fileBytes / MB) },
    'step-max-open-files': { type: 'string', default: String(DEFAULT_STEP_LIMITS.openFiles) },
    'step-max-workspace-mb': { type: 'string', default: String(DEFAULT_STEP_LIMITS.workspaceBytes / MB) },
    host: { type: 'string', default: '0.0.0.0' },
    port: { type: 'string', default: '8443' },
    cert: { type: 'string' },
    key: { type: 'string' },
  },
});

function positive(name: string): number {
  const v = Number(f[name as keyof typeof f]);
  if (!Number.isFinite(v) || v <= 0) {
    console.error(
      `runtimed: --${name} must be a positive number, got "${String(f[name as keyof typeof f])}"`,
    );
    process.exit(2);
  }
  return v;
}

const runtimes = parseRuntimes(f.runtimes as string);
if ('error' in runtimes) {
  console.error(`runtimed: ${runtimes.error}`);
  process.exit(2);
}
if (!['host', 'none'].includes(f['step-network'] as string)) {
  console.error('runtimed: --step-network is host or none');
  process.exit(2);
}
let sandbox: SandboxOptions | undefined;
const workDir = (f['work-dir'] as string | undefined) ?? join(f['data-dir'] as string, 'work');
const uidBase = process.getuid?.() === 0 ? Math.floor(positive('step-uid-base')) : undefined;
if (f['insecure-no-sandbox']) {
  log.warn('--insecure-no-sandbox: steps run as this agent, and can reach everything it can');
} else {
  sandbox = sandboxOptions(
    f.bwrap as string,
    {
      processes: Math.floor(positive('step-max-processes')),
      memoryBytes: positive('step-max-memory-mb') * MB,
      fileBytes: positive('step-max-file-mb') * MB,
      openFiles: Math.floor(positive('step-max-open-files')),
      workspaceBytes: positive('step-max-workspace-mb') * MB,
    },
    f['step-network'] === 'host',
  );
  if (uidBase !== undefined) sandbox = prepareSandbox(sandbox, workDir);
  const problem = sandboxProblem(sandbox, uidBase, workDir);
  if (problem) {
    console.error(
      `runtimed: the step sandbox does not work here: ${problem}. Fix it, or start with --insecure-no-sandbox to run steps without one.`,
    );
    process.exit(1);
  }
}
const kc = loadKubeConfig(f.kubeconfig);
const dataDir = f['data-dir'] as string;
const logs = new LogStore(dataDir, positive('log-retention-hours') * 3600_000);
const agent = new Agent(
  kc,
  {
    identity: f.identity as string,
    namespaces: (f.namespaces as string).split(',').filter(Boolean),
    runtimes,
    concurrency: Math.floor(positive('concurrency')),
    heartbeatMs: positive('heartbeat-seconds') * 1000,
    staleMs: positive('stale-seconds') * 1000,
    graceMs: positive('grace-seconds') * 1000,
    maxLogBytes: positive('max-log-bytes'),
    workDir,
    ...(sandbox ? { sandbox: { ...sandbox, ...(uidBase !== undefined ? { uidBase } : {}) } } : {}),
  },
  logs,
);

const api = apiClient(kc, k8s.CustomObjectsApi);
const authorizer = new LogAuthorizer(kc);
const app = createApp({
  dataDir,
  ready: () => agent.healthy(),
  registry: agent.registry,
  authorize: (h, ns, name) => authorizer.check(h, ns, name),
  // The cache first: a following reader asks every 200 ms. Runs of namespaces this agent does not
  // serve are read from the API server.
  getRun: async (namespace, name) => {
    const cached = agent.cachedRun(namespace, name);
    if (cached) return cached;
    try {
      return (await api.getNamespacedCustomObject({ ...crd('runs', namespace), name })) as Run;
    } catch (e) {
      if (statusCode(e) === 404) return undefined;
      throw e;
    }
  },
});
const server =
  f.cert && f.key
    ? https.createServer({ cert: readFileSync(f.cert), key: readFileSync(f.key), minVersion: 'TLSv1.2' }, app)
    : http.createServer(app);
server.on('error', (e) => {
  console.error(`runtimed: cannot serve on ${f.host}:${f.port}: ${e.message}`);
  process.exit(1);
});
server.listen(Number(f.port), f.host);

logs.startSweeping();
await agent.start();
const presence = new Presence(kc, {
  namespace: f['lease-namespace'] as string,
  identity: f.identity as string,
  runtimes: [...runtimes.keys()],
  namespaces: (f.namespaces as string).split(',').filter(Boolean),
  durationSeconds: Math.ceil(positive('lease-seconds')),
});
await presence.start();
log.info(
  {
    identity: f.identity,
    runtimes: [...runtimes.keys()],
    namespaces: f.namespaces || 'all',
    // The bound port, so --port 0 (any free port) can be found from the log.
    port: (server.address() as { port?: number } | null)?.port ?? f.port,
    dataDir,
  },
  'runtimed running',
);

let stopping = false;
const shutdown = (signal: string) => {
  if (stopping) return;
  stopping = true;
  log.info({ signal, running: agent.running }, 'shutting down: no new claims, waiting for running steps');
  const deadline = positive('shutdown-seconds') * 1000;
  setTimeout(() => process.exit(1), deadline + 10_000).unref();
  void agent.shutdown(deadline).then(async () => {
    await presence.stop();
    logs.stop();
    server.close();
    process.exit(0);
  });
};
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
