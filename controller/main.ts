// The controller process: `node dist/controller/main.js --kubeconfig ... --workers 4 --metrics-port 8080`.
import { parseArgs } from 'node:util';
import { loadKubeConfig } from '../src/kube/client.js';
import { log } from '../src/telemetry/log.js';
import { Manager } from './manager.js';

const { values: flags } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    workers: { type: 'string', default: '4' },
    'metrics-port': { type: 'string', default: '8080' },
  },
});

const manager = new Manager(loadKubeConfig(flags.kubeconfig), {
  workers: Number(flags.workers),
  metricsPort: Number(flags['metrics-port']),
});
await manager.start();

const shutdown = () => {
  log.info('shutting down');
  manager.stop();
  setTimeout(() => process.exit(0), 200).unref();
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
