// The admission webhook process: HTTPS on --host:--port with the certificate in --cert/--key
// (reloaded when the files change, as cert-manager rotates them), a Workflow informer for graph
// checks, health and metrics endpoints.
import { readFileSync, watchFile } from 'node:fs';
import { createServer } from 'node:https';
import { parseArgs } from 'node:util';
import type { Workflow } from '../src/api/types.js';
import { ResilientInformer, type KubeObject } from '../src/kube/informer.js';
import { LABEL_AGENT } from '../src/labels.js';
import { AGENT_LEASE_NAMESPACE, servedUntilByLeases, type LeaseLike } from '../src/runtime/agents.js';
import { loadKubeConfig } from '../src/kube/client.js';
import { log } from '../src/telemetry/log.js';
import { DEFAULT_RUN_CREATORS } from '../src/validate/index.js';
import { DEFAULT_RUNTIMED_USERS } from '../src/validate/run-status.js';
import { DEFAULT_RUN_STALE_MS } from '../src/runtime/lifecycle.js';
import { createApp } from './server.js';

const { values: flags } = parseArgs({
  options: {
    host: { type: 'string', default: '127.0.0.1' },
    port: { type: 'string', default: '9443' },
    cert: { type: 'string' },
    key: { type: 'string' },
    kubeconfig: { type: 'string' },
    'run-creator-users': { type: 'string' },
    'run-creator-groups': { type: 'string' },
    // The service accounts of runtimed, and the shortest stale period its agents use: an agent
    // writes the status of the Runs it holds, and re-queues another's only once it is stale.
    'runtimed-users': { type: 'string' },
    'run-stale-seconds': { type: 'string', default: String(DEFAULT_RUN_STALE_MS / 1000) },
    // Where runtimed agents hold their Leases (runtimed --lease-namespace).
    'agent-namespace': { type: 'string', default: AGENT_LEASE_NAMESPACE },
  },
});
if (!flags.cert || !flags.key) {
  console.error('webhook: --cert and --key are required');
  process.exit(2);
}
const staleSeconds = Number(flags['run-stale-seconds']);
if (!(staleSeconds > 0)) {
  console.error(`webhook: --run-stale-seconds must be a positive number, not ${flags['run-stale-seconds']}`);
  process.exit(2);
}
const certFile = flags.cert;
const keyFile = flags.key;
const tls = () => ({ cert: readFileSync(certFile), key: readFileSync(keyFile) });

const kc = loadKubeConfig(flags.kubeconfig);
const workflows = new ResilientInformer<Workflow>(kc, { path: '/apis/kruntimes.io/v1alpha1/workflows' });
// Only for a warning: readiness does not wait for it, and without it no warning is given.
const agents = new ResilientInformer<KubeObject & LeaseLike>(kc, {
  path: `/apis/coordination.k8s.io/v1/namespaces/${flags['agent-namespace']}/leases`,
  labelSelector: LABEL_AGENT,
});
const list = (v: string | undefined, fallback: string[]) =>
  v === undefined ? fallback : v.split(',').filter(Boolean);

const app = createApp({
  ready: () => workflows.healthy(),
  workflows: {
    get: (ns, name) => workflows.get(ns, name),
    inNamespace: (ns) => workflows.namespaceMap(ns),
  },
  serves: (runtime, namespace) =>
    !agents.hasSynced() || servedUntilByLeases(agents.list(), runtime, namespace, Date.now()) !== undefined,
  runCreators: {
    users: list(flags['run-creator-users'], DEFAULT_RUN_CREATORS.users),
    groups: list(flags['run-creator-groups'], DEFAULT_RUN_CREATORS.groups),
  },
  runStatusWriters: {
    runtimedUsers: list(flags['runtimed-users'], DEFAULT_RUNTIMED_USERS),
    staleMs: staleSeconds * 1000,
  },
});

const server = createServer({ ...tls(), minVersion: 'TLSv1.2' }, app);
// The API server's webhook client keeps idle connections for 90 s (Go's default transport) and does
// not retry a POST: a server that closes an idle connection first makes it fail a request with
// "broken pipe". So keep idle connections longer than the client does.
server.keepAliveTimeout = 120_000;
server.headersTimeout = 125_000;
for (const f of [certFile, keyFile]) {
  watchFile(f, { interval: 5000 }, () => {
    try {
      server.setSecureContext({ ...tls(), minVersion: 'TLSv1.2' });
      log.info({ file: f }, 'serving certificate reloaded');
    } catch (e) {
      log.error({ err: e }, 'could not reload the serving certificate; keeping the old one');
    }
  });
}

void agents.start();
await workflows.start();
server.listen(Number(flags.port), flags.host, () => {
  log.info({ host: flags.host, port: Number(flags.port) }, 'webhook listening');
});

const shutdown = () => {
  log.info('shutting down');
  workflows.stop();
  agents.stop();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 5000).unref();
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
