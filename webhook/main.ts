// The admission webhook process: HTTPS on --host:--port with the certificate in --cert/--key
// (reloaded when the files change, as cert-manager rotates them), a Workflow informer for graph
// checks, health and metrics endpoints.
import '../src/node-version.js';
import { readFileSync, watchFile } from 'node:fs';
import { createServer } from 'node:https';
import type { Workflow } from '../src/api/types.js';
import { ResilientInformer, type KubeObject } from '../src/kube/informer.js';
import { informerMetrics } from '../src/kube/informer-metrics.js';
import { LABEL_AGENT } from '../src/labels.js';
import { servedUntilByLeases, type LeaseLike } from '../src/runtime/agents.js';
import { installNamespace } from '../src/kube/namespace.js';
import { loadKubeConfig } from '../src/kube/client.js';
import { crdSummary, type CrdMeta } from '../src/promise/ownership.js';
import { log } from '../src/telemetry/log.js';
import { runCreatorsIn } from '../src/validate/run.js';
import { runtimedUsersIn } from '../src/validate/run-status.js';
import { DEFAULT_RUN_STALE_MS } from '../src/runtime/lifecycle.js';
import { opsFlags, serveOpsFlags } from '../src/telemetry/ops.js';
import { processFlags } from '../src/flags.js';
import { registry } from './metrics.js';
import { createApp, NOT_READY } from './server.js';

// Every default identity follows the namespace this webhook is installed in.
const ns = installNamespace();
const flags = processFlags(
  'webhook',
  'The validating and mutating admission webhook of kruntimes.io over HTTPS, with a Workflow cache for graph checks.',
  {
    host: {
      type: 'string',
      default: '127.0.0.1',
      help: 'address the HTTPS server listens on (0.0.0.0 in a Pod)',
    },
    port: {
      type: 'string',
      default: '9443',
      help: 'HTTPS port (admission, and /healthz, /readyz, /metrics)',
    },
    cert: { type: 'string', help: 'serving certificate file (PEM; reloaded when it changes). Required' },
    key: { type: 'string', help: 'its private key file (PEM). Required' },
    kubeconfig: { type: 'string', help: 'kubeconfig file; in a Pod, its service account' },
    'run-creator-users': {
      type: 'string',
      help: `users who may create Runs, comma-separated (default ${runCreatorsIn(ns).users.join(',')}: the controller of this install's namespace)`,
    },
    'run-creator-groups': {
      type: 'string',
      help: `groups who may create Runs, comma-separated (default ${runCreatorsIn(ns).groups.join(',')})`,
    },
    'runtimed-users': {
      type: 'string',
      help: `runtimed's service accounts, comma-separated: the only writers of a Run's status (default ${runtimedUsersIn(ns).join(',')})`,
    },
    'run-stale-seconds': {
      type: 'string',
      default: String(DEFAULT_RUN_STALE_MS / 1000),
      help: "the shortest runtimed --stale-seconds: an agent may re-queue another's Run only once it is this stale",
    },
    'agent-namespace': {
      type: 'string',
      default: ns,
      help: 'where runtimed agents hold their Leases (runtimed --lease-namespace)',
    },
    ...opsFlags('0', '0'),
  },
);
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
// Only for a warning too: which CRDs exist and who owns them (crdSummary: not their schemas).
const crds = new ResilientInformer<KubeObject & CrdMeta>(kc, {
  path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
  transform: crdSummary,
});
informerMetrics(registry, () => [workflows, agents, crds]);
const list = (v: string | undefined, fallback: string[]) =>
  v === undefined ? fallback : v.split(',').filter(Boolean);

const ready = () => workflows.healthy();
const opsServers = serveOpsFlags('webhook', flags, {
  registry,
  ready,
  notReady: NOT_READY,
});
const app = createApp({
  ready,
  workflows: {
    get: (ns, name) => workflows.get(ns, name),
    inNamespace: (ns) => workflows.namespaceMap(ns),
  },
  crds: (name) => crds.get('', name),
  serves: (runtime, namespace) =>
    !agents.hasSynced() || servedUntilByLeases(agents.list(), runtime, namespace, Date.now()) !== undefined,
  runCreators: {
    users: list(flags['run-creator-users'], runCreatorsIn(ns).users),
    groups: list(flags['run-creator-groups'], runCreatorsIn(ns).groups),
  },
  runStatusWriters: {
    runtimedUsers: list(flags['runtimed-users'], runtimedUsersIn(ns)),
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
void crds.start();
await workflows.start();
server.listen(Number(flags.port), flags.host, () => {
  log.info({ host: flags.host, port: Number(flags.port) }, 'webhook listening');
});

const shutdown = () => {
  log.info('shutting down');
  workflows.stop();
  agents.stop();
  for (const s of opsServers) s.close();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 5000).unref();
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
