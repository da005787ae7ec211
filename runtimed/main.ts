// runtimed: `node dist/runtimed/main.js --kubeconfig ... --identity node-1 --data-dir /var/lib/runtimed`.
import '../src/node-version.js';
import { existsSync, readFileSync, watchFile } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { dirname, join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import type { Run } from '../src/api/types.js';
import { apiClient, loadKubeConfig } from '../src/kube/client.js';
import { crd, statusCode } from '../src/kube/rest.js';
import { log } from '../src/telemetry/log.js';
import { Agent } from './agent.js';
import { loadFrontProxy, remoteUser } from './frontproxy.js';
import { peerLogs } from './peers.js';
import { RUNTIMED_FLAGS } from './flags.js';
import { Presence } from './presence.js';
import { LogAuthorizer } from './auth.js';
import { stepCapacity } from '../src/runtime/capacity.js';
import { LogStore } from './logstore.js';
import { parseRuntimes } from './runtime.js';
import { prepareSandbox, sandboxOptions, sandboxProblem, withSeccomp } from './sandbox-setup.js';
import { type SandboxOptions } from '../src/runtime/sandbox-command.js';

const MB = 1024 * 1024;
import { createApp, NOT_READY } from './server.js';
import { serveOpsFlags } from '../src/telemetry/ops.js';
import { processFlags } from '../src/flags.js';

const f = processFlags(
  'runtimed',
  'The runtime agent: claims pending Runs of the namespaces it serves and runs their steps in a sandbox.',
  RUNTIMED_FLAGS,
);

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

/** The concurrency asked for, lowered so that the scratch areas of the bash steps fit in memory. */
function concurrency(): number {
  const requested = Math.floor(positive('concurrency'));
  if (!sandbox || f['memory-mb'] === undefined) return requested;
  const c = stepCapacity({
    requested,
    memoryBytes: positive('memory-mb') * MB,
    workspaceBytes: sandbox.limits.workspaceBytes,
  });
  if ('error' in c) {
    console.error(`runtimed: ${c.error}`);
    process.exit(2);
  }
  if (c.limitedBy)
    log.info({ requested, concurrency: c.concurrency }, 'concurrency lowered to what memory holds');
  return c.concurrency;
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
const processes = [...runtimes.values()].some((r) => r.executor === 'process');
const pods = [...runtimes.values()].some((r) => r.executor === 'pod');
if (!processes) {
  // Only Pods: nothing runs in this agent's own container, so there is no sandbox to set up.
} else if (f['insecure-no-sandbox']) {
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
  sandbox = withSeccomp(sandbox, workDir);
  if (!sandbox.seccomp) log.warn({ arch: process.arch }, 'no seccomp filter for steps on this architecture');
  const problem = sandboxProblem(sandbox, uidBase, workDir);
  if (problem) {
    console.error(
      `runtimed: the step sandbox does not work here: ${problem}. Fix it, or start with --insecure-no-sandbox to run steps without one.`,
    );
    process.exit(1);
  }
}
const kc = loadKubeConfig(f.kubeconfig);
const helperImage = pods ? ((f['helper-image'] as string | undefined) ?? (await ownImage(kc))) : undefined;
if (pods && !helperImage) {
  console.error(
    "runtimed: the pod runtime needs --helper-image (the kruntimes image); outside a Pod it cannot be read from this agent's own",
  );
  process.exit(2);
}
const dataDir = f['data-dir'] as string;
const logs: LogStore = new LogStore(dataDir, {
  retentionMs: positive('log-retention-hours') * 3600_000,
  maxTotalBytes: positive('log-store-bytes'),
  inUse: (namespace: string, uid: string): boolean => agent.holdsLog(namespace, uid),
});
const agent = new Agent(
  kc,
  {
    identity: f.identity as string,
    namespaces: (f.namespaces as string).split(',').filter(Boolean),
    runtimes,
    concurrency: concurrency(),
    maxAttempts: Math.floor(positive('max-attempts')),
    heartbeatMs: positive('heartbeat-seconds') * 1000,
    staleMs: positive('stale-seconds') * 1000,
    graceMs: positive('grace-seconds') * 1000,
    maxLogBytes: positive('max-log-bytes'),
    workDir,
    ...(sandbox ? { sandbox: { ...sandbox, ...(uidBase !== undefined ? { uidBase } : {}) } } : {}),
    ...(helperImage ? { pods: { helperImage, stuckMs: positive('pod-stuck-seconds') * 1000 } } : {}),
  },
  logs,
);

const api = apiClient(kc, k8s.CustomObjectsApi);
const authorizer = new LogAuthorizer(kc);
const opsServers = serveOpsFlags('runtimed', f, {
  registry: agent.registry,
  ready: () => agent.healthy(),
  notReady: NOT_READY,
});
// Logs through the API server (logs.kruntimes.io) where the cluster has an aggregation layer.
const frontProxy = f.cert ? await loadFrontProxy(kc) : undefined;
const peerCa = f['peer-ca'] ?? (f.cert ? join(dirname(f.cert), 'ca.crt') : undefined);
const app = createApp({
  dataDir,
  ready: () => agent.healthy(),
  registry: agent.registry,
  identity: f.identity as string,
  authorize: (h, ns, name, audience) => authorizer.check(h, ns, name, audience),
  ...(frontProxy
    ? {
        remoteUser: (req) => remoteUser(req, frontProxy),
        authorizeUser: (user, ns, name) => authorizer.checkUser(user, ns, name),
      }
    : {}),
  ...(peerCa && existsSync(peerCa) && existsSync(f['peer-token-file'] as string)
    ? {
        fromPeer: peerLogs(kc, {
          leaseNamespace: f['lease-namespace'] as string,
          ca: readFileSync(peerCa),
          serverName:
            (f['peer-server-name'] as string | undefined) ??
            `kruntimes-runtimed.${f['lease-namespace'] as string}.svc`,
          tokenFile: f['peer-token-file'] as string,
        }),
      }
    : {}),
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
const tls = (cert: string, key: string) => ({
  cert: readFileSync(cert),
  key: readFileSync(key),
  minVersion: 'TLSv1.2' as const,
  // The API server presents its front-proxy certificate; other callers present none.
  ...(frontProxy ? { ca: frontProxy.ca, requestCert: true, rejectUnauthorized: false } : {}),
});
const server = f.cert && f.key ? https.createServer(tls(f.cert, f.key), app) : http.createServer(app);
if (f.cert && f.key && server instanceof https.Server) reloadOnChange(server, f.cert, f.key, tls);
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
  ...(f['advertise-url'] ? { logUrl: f['advertise-url'] } : {}),
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
    for (const s of opsServers) s.close();
    process.exit(0);
  });
};
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));

/** The image of this agent's own container, read from its Pod ($POD_NAME, $POD_NAMESPACE). */
async function ownImage(config: k8s.KubeConfig): Promise<string | undefined> {
  const name = process.env.POD_NAME;
  const namespace = process.env.POD_NAMESPACE;
  if (!name || !namespace) return undefined;
  try {
    const pod = await apiClient(config, k8s.CoreV1Api).readNamespacedPod({ name, namespace });
    const containers = pod.spec?.containers ?? [];
    return (containers.find((c) => c.name === 'runtimed') ?? containers[0])?.image;
  } catch (e) {
    log.warn({ err: String(e) }, 'cannot read the image of this agent from its Pod');
    return undefined;
  }
}

/** The serving certificate read again when its files change, as cert-manager rotates them. */
function reloadOnChange(
  server: https.Server,
  cert: string,
  key: string,
  tls: (cert: string, key: string) => https.ServerOptions,
): void {
  for (const file of [cert, key])
    watchFile(file, { interval: 5000 }, () => {
      try {
        server.setSecureContext(tls(cert, key));
        log.info({ file }, 'serving certificate reloaded');
      } catch (e) {
        log.error({ err: e }, 'could not reload the serving certificate; keeping the old one');
      }
    }).unref();
}
