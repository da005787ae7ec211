// The controller process: `node dist/controller/main.js --kubeconfig ... --workers 4 --metrics-port 8080`.
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { loadKubeConfig } from '../src/kube/client.js';
import { log } from '../src/telemetry/log.js';
import { Manager } from './manager.js';

const { values: flags } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    workers: { type: 'string', default: '16' },
    'metrics-port': { type: 'string', default: '8080' },
    'no-leader-elect': { type: 'boolean', default: false },
    'lease-namespace': { type: 'string', default: 'kruntimes-system' },
    'lease-name': { type: 'string', default: 'kruntimes-controller' },
    'lease-duration': { type: 'string', default: '15' },
    'retry-period': { type: 'string', default: '2' },
    identity: { type: 'string', default: `${hostname()}_${process.pid}` },
    // Where runtimed agents hold their Leases (runtimed --lease-namespace).
    'agent-namespace': { type: 'string', default: 'kruntimes-system' },
    // How long a finished root WorkflowRun is kept unless its spec.ttlSecondsAfterFinished says.
    'ttl-seconds-after-finished': { type: 'string', default: String(7 * 24 * 60 * 60) },
    // How often each resource's configure workflow runs again, unless its Promise says.
    'reconcile-interval': { type: 'string', default: '10h' },
  },
});
const leaseDuration = Number(flags['lease-duration']);

const manager = new Manager(loadKubeConfig(flags.kubeconfig), {
  workers: Number(flags.workers),
  metricsPort: Number(flags['metrics-port']),
  agentNamespace: flags['agent-namespace'] as string,
  ttlSecondsAfterFinished: Number(flags['ttl-seconds-after-finished']),
  reconcileInterval: flags['reconcile-interval'] as string,
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
await manager.start();

const shutdown = () => {
  log.info('shutting down');
  setTimeout(() => process.exit(0), 5000).unref();
  void manager.stop().then(() => process.exit(0));
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
