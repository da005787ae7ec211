// runtimed's HTTP(S) endpoint: health, metrics, and the full log of a Run for callers the API
// server authenticates and authorizes.
import { opsMiddleware } from '../src/telemetry/ops.js';
import express from 'express';
import type { Run } from '../src/api/types.js';
import { runLogFile } from '../src/runtime/logpaths.js';
import { followFile } from '../src/runtime/follow.js';
import { isTerminal } from '../src/runtime/lifecycle.js';
import { statusMessage } from '../src/kube/client.js';
import { log } from '../src/telemetry/log.js';
import type { Registry } from 'prom-client';
import type { Decision } from './auth.js';

/** Why /readyz says no. */
export const NOT_READY = 'the Run cache has not synced';

export interface ServerDeps {
  dataDir: string;
  ready: () => boolean;
  registry: Registry;
  authorize: (authorization: string | undefined, namespace: string, name: string) => Promise<Decision>;
  getRun: (namespace: string, name: string) => Promise<Run | undefined>;
}

export function createApp(d: ServerDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(opsMiddleware({ registry: d.registry, ready: d.ready, notReady: NOT_READY }));
  app.get('/namespaces/:namespace/runs/:name/log', async (req, res) => {
    const { namespace, name } = req.params;
    try {
      const decision = await d.authorize(req.headers.authorization, namespace, name);
      if (!decision.allowed)
        return void res.status(decision.status).type('text/plain').send(`${decision.message}\n`);
      const run = await d.getRun(namespace, name);
      if (!run)
        return void res.status(404).type('text/plain').send(`run "${name}" not found in "${namespace}"\n`);
      const attempt = Number(req.query.attempt ?? run.status?.attempts ?? 1);
      const file = runLogFile(d.dataDir, namespace, run.metadata.uid ?? '', attempt);
      let closed = false;
      req.on('close', () => (closed = true));
      res.type('text/plain');
      const found = await followFile(file, {
        follow: req.query.follow === 'true',
        ended: async () => {
          const now = await d.getRun(namespace, name);
          return !now || isTerminal(now) || (now.status?.attempts ?? 0) !== attempt;
        },
        aborted: () => closed,
        write: (chunk) => res.write(chunk),
      });
      if (!found)
        return void res.status(404).send(`no log of attempt ${attempt} of run "${name}" on this agent\n`);
      res.end();
    } catch (e) {
      log.warn({ err: statusMessage(e) }, 'log request failed');
      if (!res.headersSent)
        res
          .status(502)
          .type('text/plain')
          .send(`cannot serve the log: ${statusMessage(e)}\n`);
      else res.end();
    }
  });
  return app;
}
