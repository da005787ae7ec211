// runtimed: `node dist/runtimed/main.js --kubeconfig ... --identity node-1 --data-dir /var/lib/runtimed`.
import '../src/node-version.js';
import { existsSync, readFileSync, watchFile } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { availableParallelism, homedir, hostname } from 'node:os';
import { dirname, join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import type { Run } from '../src/api/types.js';
import { apiClient, loadKubeConfig } from '../src/kube/client.js';
import { crd, statusCode } from '../src/kube/rest.js';
import { log } from '../src/telemetry/log.js';
import { installNamespace } from '../src/kube/namespace.js';
import { Agent } from './agent.js';
import { loadFrontProxy, remoteUser } from './frontproxy.js';
import { peerLogs } from './peers.js';
import { Presence } from './presence.js';
import { LogAuthorizer } from './auth.js';
import { stepCapacity } from '../src/runtime/capacity.js';
import { LogStore } from './logstore.js';
import { parseRuntimes } from './runtime.js';
import { DEFAULT_RUN_STALE_MS } from '../src/runtime/lifecycle.js';
import { prepareSandbox, sandboxOptions, sandboxProblem, withSeccomp } from './sandbox-setup.js';
import { DEFAULT_STEP_LIMITS, type SandboxOptions } from '../src/runtime/sandbox-command.js';

const MB = 1024 * 1024;
import { createApp, NOT_READY } from './server.js';
import { opsFlags, serveOpsFlags } from '../src/telemetry/ops.js';
import { processFlags } from '../src/flags.js';

const f = processFlags(
  'runtimed',
  'The runtime agent: claims pending Runs of the namespaces it serves and runs their steps in a sandbox.',
  {
    kubeconfig: { type: 'string', help: 'kubeconfig file; in a Pod, its service account' },
    identity: {
      type: 'string',
      default: hostname(),
      help: "this agent's name (the Pod name in a cluster): Runs it holds name it",
    },
    namespaces: {
      type: 'string',
      default: '',
      help: 'namespaces whose Runs it takes, comma-separated; empty: all',
    },
    runtimes: {
      type: 'string',
      default: 'bash',
      help: 'runtimes it offers (runs-on), comma-separated; name=impl serves a name with a built-in (bash, pod): kubernetes=pod runs container steps as Pods',
    },
    'helper-image': {
      type: 'string',
      help: "the image of a step Pod's prepare and report containers (default: this agent's own image, read from its Pod)",
    },
    'pod-stuck-seconds': {
      type: 'string',
      default: '300',
      help: 'seconds a step Pod may wait for its image, a Secret or a node before its Run fails',
    },
    concurrency: { type: 'string', default: String(availableParallelism() * 4), help: 'steps run at once' },
    'memory-mb': {
      type: 'string',
      help: "this agent's memory limit, MiB (its container's): bash steps run at once are as many as can fill their scratch areas within it",
    },
    'data-dir': {
      type: 'string',
      default: join(homedir(), '.local', 'state', 'kruntimes', 'runtimed'),
      help: 'logs, kept results and step folders',
    },
    'heartbeat-seconds': { type: 'string', default: '5', help: "seconds between a running Run's heartbeats" },
    'stale-seconds': {
      type: 'string',
      default: String(DEFAULT_RUN_STALE_MS / 1000),
      help: 'a Run whose heartbeat is this old is re-queued (webhook --run-stale-seconds must not exceed it)',
    },
    'grace-seconds': {
      type: 'string',
      default: '5',
      help: 'seconds between SIGTERM and SIGKILL of a stopped step',
    },
    'shutdown-seconds': {
      type: 'string',
      default: '30',
      help: 'on SIGTERM, seconds running steps get to finish before they are handed back',
    },
    'log-retention-hours': { type: 'string', default: '168', help: "hours a finished Run's log is kept" },
    'max-log-bytes': { type: 'string', default: String(16 * 1024 * 1024), help: 'largest log kept per Run' },
    'log-store-bytes': {
      type: 'string',
      default: String(1024 ** 3),
      help: 'bytes all logs kept here may take together (the oldest go first); keep it inside the data volume',
    },
    'lease-namespace': {
      type: 'string',
      default: installNamespace(),
      help: "where this agent's Lease lives ($POD_NAMESPACE when set)",
    },
    'lease-seconds': { type: 'string', default: '15', help: 'seconds the Lease counts when not renewed' },
    bwrap: { type: 'string', default: 'bwrap', help: 'the step sandbox program (bubblewrap)' },
    'work-dir': {
      type: 'string',
      help: "step folders (default <data-dir>/work); every folder above it must be open to a root agent's step uids",
    },
    'insecure-no-sandbox': {
      type: 'boolean',
      default: false,
      help: 'run steps as this agent, without the sandbox (they can reach all it can)',
    },
    'step-network': {
      type: 'string',
      default: 'none',
      help: "none: each step a network namespace of its own, loopback only; host: steps share the agent's network",
    },
    'step-uid-base': {
      type: 'string',
      default: '200000',
      help: 'a root agent runs each step as its own uid from here',
    },
    'step-max-processes': {
      type: 'string',
      default: String(DEFAULT_STEP_LIMITS.processes),
      help: 'processes a step may have',
    },
    'step-max-memory-mb': {
      type: 'string',
      default: String(DEFAULT_STEP_LIMITS.memoryBytes / MB),
      help: 'address space of each step process, MiB',
    },
    'step-max-file-mb': {
      type: 'string',
      default: String(DEFAULT_STEP_LIMITS.fileBytes / MB),
      help: 'largest file a step writes, MiB',
    },
    'step-max-open-files': {
      type: 'string',
      default: String(DEFAULT_STEP_LIMITS.openFiles),
      help: 'open files per process',
    },
    'step-max-workspace-mb': {
      type: 'string',
      default: String(DEFAULT_STEP_LIMITS.workspaceBytes / MB),
      help: "size of a step's workspace and /tmp, MiB",
    },
    host: { type: 'string', default: '0.0.0.0', help: 'address of the log endpoint (and health, metrics)' },
    port: { type: 'string', default: '8443', help: 'its port; HTTPS with --cert and --key' },
    cert: { type: 'string', help: 'serving certificate file of the log endpoint (PEM)' },
    key: { type: 'string', help: 'its private key file (PEM)' },
    'advertise-url': {
      type: 'string',
      help: "the log endpoint's URL as other agents reach it (https://<Pod IP>:<port>), in its Lease; other agents fetch the logs this one holds from there",
    },
    'peer-ca': {
      type: 'string',
      help: "the CA of the agents' serving certificates, to fetch another agent's logs (default: ca.crt beside --cert)",
    },
    ...opsFlags('0', '0'),
  },
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
  authorize: (h, ns, name) => authorizer.check(h, ns, name),
  ...(frontProxy
    ? {
        remoteUser: (req) => remoteUser(req, frontProxy),
        authorizeUser: (user, ns, name) => authorizer.checkUser(user, ns, name),
      }
    : {}),
  ...(peerCa && existsSync(peerCa)
    ? { fromPeer: peerLogs(kc, { leaseNamespace: f['lease-namespace'] as string, ca: readFileSync(peerCa) }) }
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
