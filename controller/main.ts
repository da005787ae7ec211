// The controller process: `node dist/controller/main.js --kubeconfig ... --workers 4 --health-addr :8080`.
import '../src/node-version.js';
import { hostname } from 'node:os';
import { kubeAccess } from '../src/kube/access.js';
import { installNamespace } from '../src/kube/namespace.js';
import { log } from '../src/telemetry/log.js';
import { profileOnSignal } from '../src/telemetry/profile.js';
import { opsFlags, serveOpsFlags } from '../src/telemetry/ops.js';
import { processFlags } from '../src/flags.js';
import { Manager } from './manager.js';

// Lease namespaces follow the namespace this controller is installed in.
const ns = installNamespace();
const flags = processFlags(
  'controller',
  'Runs WorkflowRuns (jobs as Runs, calls as child WorkflowRuns), Promises and their resources. One replica acts at a time (Lease leader election).',
  {
    kubeconfig: { type: 'string', help: 'kubeconfig file; in a Pod, its service account' },
    workers: { type: 'string', default: '16', help: 'WorkflowRuns reconciled at once' },
    ...opsFlags(':8080', ':8080'),
    'no-leader-elect': {
      type: 'boolean',
      default: false,
      help: 'act at once, without the Lease (one replica only)',
    },
    'lease-namespace': {
      type: 'string',
      default: ns,
      help: "namespace of the leader Lease (default: the install's)",
    },
    'lease-name': { type: 'string', default: 'kruntimes-controller', help: 'name of the leader Lease' },
    'lease-duration': {
      type: 'string',
      default: '15',
      help: 'seconds a leader holds the Lease without renewing it',
    },
    'retry-period': {
      type: 'string',
      default: '2',
      help: 'seconds between tries to take or renew the Lease',
    },
    identity: {
      type: 'string',
      default: `${hostname()}_${process.pid}`,
      help: 'holder name in the Lease (the Pod name in a cluster)',
    },
    'agent-namespace': {
      type: 'string',
      default: ns,
      help: 'where runtimed agents hold their Leases (runtimed --lease-namespace)',
    },
    'ttl-seconds-after-finished': {
      type: 'string',
      default: String(7 * 24 * 60 * 60),
      help: 'seconds a finished root WorkflowRun is kept unless its spec.ttlSecondsAfterFinished says',
    },
    'reconcile-interval': {
      type: 'string',
      default: '10h',
      help: "how often each resource's configure workflow runs again, unless its Promise says",
    },
  },
);
const leaseDuration = Number(flags['lease-duration']);

const manager = new Manager(kubeAccess(flags.kubeconfig ? { path: flags.kubeconfig as string } : {}), {
  workers: Number(flags.workers),
  ops: (o) => serveOpsFlags('controller', flags, o),
  agentNamespace: flags['agent-namespace'] as string,
  ttlSecondsAfterFinished: Number(flags['ttl-seconds-after-finished']),
  reconcileInterval: flags['reconcile-interval'] as string,
  installNamespace: ns,
  leader: flags['no-leader-elect']
    ? undefined
    : {
        namespace: flags['lease-namespace'] as string,
        name: flags['lease-name'] as string,
        identity: flags.identity as string,
        leaseDurationSeconds: leaseDuration,
        renewDeadlineMs: (leaseDuration * 2000) / 3,
        retryPeriodMs: Number(flags['retry-period']) * 1000,
      },
});
profileOnSignal('controller');
await manager.start();

const shutdown = () => {
  log.info('shutting down');
  setTimeout(() => process.exit(0), 5000).unref();
  void manager.stop().then(() => process.exit(0));
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
