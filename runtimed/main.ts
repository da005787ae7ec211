// runtimed: `node dist/runtimed/main.js --kubeconfig ... --identity node-1 --data-dir /var/lib/runtimed`.
// Wiring only: the flags are checked (settings.ts), the sandbox set up and tried (sandbox-setup.ts),
// then the agent, its log server (log-server.ts), its ops endpoints and its Lease start.
import '../src/node-version.js';
import type * as k8s from '@kubernetes/client-node';
import { loadKubeConfig } from '../src/kube/client.js';
import { core, KubeClient } from '../src/kube/rest.js';
import { log } from '../src/telemetry/log.js';
import { serveOpsFlags } from '../src/telemetry/ops.js';
import { processFlags } from '../src/flags.js';
import { Agent } from './agent.js';
import { RUNTIMED_FLAGS } from './flags.js';
import { LogStore } from './logstore.js';
import { serveLogs } from './log-server.js';
import { Presence } from './presence.js';
import { stepSandbox } from './sandbox-setup.js';
import { NOT_READY } from './server.js';
import { agentSettings, concurrency, FlagError, positive, type FlagValues } from './settings.js';

const f = processFlags(
  'runtimed',
  'The runtime agent: claims pending Runs of the namespaces it serves and runs their steps in a sandbox.',
  RUNTIMED_FLAGS,
) as FlagValues;

/** The flags' meaning, or an exit naming the flag at fault. */
function checked<T>(read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (!(e instanceof FlagError)) throw e;
    console.error(`runtimed: ${e.message}`);
    process.exit(e.exitCode);
  }
}

const s = checked(() => agentSettings(f, process.getuid?.() === 0));
const sandbox = checked(() => stepSandbox(String(f.bwrap), s, Boolean(f['insecure-no-sandbox'])));
const steps = checked(() => concurrency(f, sandbox ? s : undefined));
if (steps.lowered) log.info({ concurrency: steps.value }, 'concurrency lowered to what memory holds');
const n = (name: string) => checked(() => positive(f, name));

const kc = loadKubeConfig(typeof f.kubeconfig === 'string' ? f.kubeconfig : undefined);
const helperImage = s.pods
  ? typeof f['helper-image'] === 'string'
    ? f['helper-image']
    : await ownImage(kc)
  : undefined;
if (s.pods && !helperImage) {
  console.error(
    "runtimed: the pod runtime needs --helper-image (the kruntimes image); outside a Pod it cannot be read from this agent's own",
  );
  process.exit(2);
}
const logs: LogStore = new LogStore(String(f['data-dir']), {
  retentionMs: n('log-retention-hours') * 3600_000,
  maxTotalBytes: n('log-store-bytes'),
  inUse: (namespace: string, uid: string): boolean => agent.holdsLog(namespace, uid),
});
const agent = new Agent(
  kc,
  {
    identity: String(f.identity),
    namespaces: s.namespaces,
    runtimes: s.runtimes,
    concurrency: steps.value,
    maxAttempts: Math.floor(n('max-attempts')),
    heartbeatMs: n('heartbeat-seconds') * 1000,
    staleMs: n('stale-seconds') * 1000,
    graceMs: n('grace-seconds') * 1000,
    maxLogBytes: n('max-log-bytes'),
    workDir: s.workDir,
    ...(sandbox
      ? { sandbox: { ...sandbox, ...(s.uidBase !== undefined ? { uidBase: s.uidBase } : {}) } }
      : {}),
    ...(helperImage ? { pods: { helperImage, stuckMs: n('pod-stuck-seconds') * 1000 } } : {}),
  },
  logs,
);

const opsServers = serveOpsFlags('runtimed', f as Parameters<typeof serveOpsFlags>[1], {
  registry: agent.registry,
  ready: () => agent.healthy(),
  notReady: NOT_READY,
});
const server = await serveLogs(kc, agent, f);
logs.startSweeping();
await agent.start();
const presence = new Presence(new KubeClient(kc), {
  namespace: String(f['lease-namespace']),
  identity: String(f.identity),
  runtimes: [...s.runtimes.keys()],
  namespaces: s.namespaces,
  durationSeconds: Math.ceil(n('lease-seconds')),
  ...(typeof f['advertise-url'] === 'string' ? { logUrl: f['advertise-url'] } : {}),
});
await presence.start();
log.info(
  {
    identity: f.identity,
    runtimes: [...s.runtimes.keys()],
    namespaces: f.namespaces || 'all',
    // The bound port, so --port 0 (any free port) can be found from the log.
    port: (server.address() as { port?: number } | null)?.port ?? f.port,
    dataDir: f['data-dir'],
  },
  'runtimed running',
);

let stopping = false;
const shutdown = (signal: string) => {
  if (stopping) return;
  stopping = true;
  log.info({ signal, running: agent.running }, 'shutting down: no new claims, waiting for running steps');
  const deadline = n('shutdown-seconds') * 1000;
  setTimeout(() => process.exit(1), deadline + 10_000).unref();
  void agent.shutdown(deadline).then(async () => {
    await presence.stop();
    logs.stop();
    server.close();
    for (const o of opsServers) o.close();
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
    const pod = await new KubeClient(config).get<{
      spec?: { containers?: { name: string; image?: string }[] };
    }>({ ...core('pods', namespace), name });
    const containers = pod.spec?.containers ?? [];
    return (containers.find((c) => c.name === 'runtimed') ?? containers[0])?.image;
  } catch (e) {
    log.warn({ err: String(e) }, 'cannot read the image of this agent from its Pod');
    return undefined;
  }
}
