// runtimed's HTTP(S) endpoint: health, metrics, and the full log of a Run for callers the API
// server authenticates and authorizes: directly with a bearer token (checked with a TokenReview),
// or through the API server's aggregation layer as logs.kruntimes.io (the user's own credentials,
// whatever kind; the API server vouches for the user with its front-proxy certificate). A log held
// by another agent is fetched from it.
import { opsMiddleware } from '../src/telemetry/ops.js';
import express from 'express';
import type { Run } from '../src/api/types.js';
import { runLogFile } from '../src/runtime/logpaths.js';
import { followFile } from '../src/runtime/follow.js';
import { isTerminal } from '../src/runtime/lifecycle.js';
import { statusCode, statusMessage } from '../src/kube/rest.js';
import { log } from '../src/telemetry/log.js';
import { Counter, type Registry } from 'prom-client';
import type { Decision } from './auth.js';
import type { RemoteUser } from './frontproxy.js';
import { PEER_AUDIENCE, peerLogPath, type PeerFetch } from './peers.js';

/** Why /readyz says no. */
export const NOT_READY = 'the Run cache has not synced';

export const LOGS_GROUP = 'logs.kruntimes.io';
export const LOGS_VERSION = 'v1alpha1';

export interface ServerDeps {
  dataDir: string;
  ready: () => boolean;
  registry: Registry;
  authorize: (
    authorization: string | undefined,
    namespace: string,
    name: string,
    audience?: string,
  ) => Promise<Decision>;
  getRun: (namespace: string, name: string) => Promise<Run | undefined>;
  /** This agent, to tell its Runs' logs from those another agent holds. */
  identity?: string;
  /** The aggregation layer: the user the API server vouches for; absent where it is not set up. */
  remoteUser?: (req: express.Request) => RemoteUser | { error: string };
  authorizeUser?: (user: RemoteUser, namespace: string, name: string) => Promise<Decision>;
  /** Streams a log another agent holds, as `res` (its peer path, the query as given). */
  fromPeer?: PeerFetch;
}

const text = (res: express.Response, status: number, message: string) =>
  void res.status(status).type('text/plain').send(`${message}\n`);

export function createApp(d: ServerDeps): express.Express {
  const served = new Counter({
    name: 'krt_runtimed_log_requests_total',
    help: 'Run logs served: via the API server (api), a bearer token (token) or to another agent (peer), from this agent or fetched from the agent that holds it (peer)',
    labelNames: ['via', 'from'] as const,
    registers: [d.registry],
  });
  const app = express();
  app.disable('x-powered-by');
  app.use(opsMiddleware({ registry: d.registry, ready: d.ready, notReady: NOT_READY }));
  app.get('/namespaces/:namespace/runs/:name/log', async (req, res) => {
    const { namespace, name } = req.params;
    try {
      const decision = await d.authorize(req.headers.authorization, namespace, name);
      if (!decision.allowed) return text(res, decision.status, decision.message);
      served.inc({ via: 'token', from: await serveLog(d, req, res, namespace, name, false) });
    } catch (e) {
      failed(res, e);
    }
  });
  // Another agent asking for a log this one holds: only a token for the peers' audience counts.
  app.get('/peer/namespaces/:namespace/runs/:name/log', async (req, res) => {
    const { namespace, name } = req.params;
    try {
      const decision = await d.authorize(req.headers.authorization, namespace, name, PEER_AUDIENCE);
      if (!decision.allowed) return text(res, decision.status, decision.message);
      served.inc({ via: 'peer', from: await serveLog(d, req, res, namespace, name, false) });
    } catch (e) {
      failed(res, e);
    }
  });
  aggregatedApi(app, d, (from) => served.inc({ via: 'api', from }));
  return app;
}

/** The discovery documents and the log route of logs.kruntimes.io. */
function aggregatedApi(app: express.Express, d: ServerDeps, count: (from: From) => void): void {
  const gv = `${LOGS_GROUP}/${LOGS_VERSION}`;
  const group = {
    name: LOGS_GROUP,
    versions: [{ groupVersion: gv, version: LOGS_VERSION }],
    preferredVersion: { groupVersion: gv, version: LOGS_VERSION },
  };
  app.get('/apis', (_req, res) => void res.json({ kind: 'APIGroupList', apiVersion: 'v1', groups: [group] }));
  app.get(
    `/apis/${LOGS_GROUP}`,
    (_req, res) => void res.json({ kind: 'APIGroup', apiVersion: 'v1', ...group }),
  );
  app.get(`/apis/${gv}`, (_req, res) =>
    res.json({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: gv,
      resources: [{ name: 'runs/log', singularName: '', namespaced: true, kind: 'RunLog', verbs: ['get'] }],
    }),
  );
  app.get(`/apis/${gv}/namespaces/:namespace/runs/:name/log`, async (req, res) => {
    const { namespace, name } = req.params;
    if (!d.remoteUser || !d.authorizeUser)
      return text(
        res,
        503,
        'this agent has no front-proxy settings (kube-system/extension-apiserver-authentication)',
      );
    const user = d.remoteUser(req);
    if ('error' in user) return text(res, 401, user.error);
    try {
      const decision = await d.authorizeUser(user, namespace, name);
      if (!decision.allowed) return text(res, decision.status, decision.message);
      count(await serveLog(d, req, res, namespace, name, true));
    } catch (e) {
      failed(res, e);
    }
  });
}

function failed(res: express.Response, e: unknown): void {
  log.warn({ err: statusMessage(e) }, 'log request failed');
  if (!res.headersSent)
    text(res, statusCode(e) === 404 ? 404 : 502, `cannot serve the log: ${statusMessage(e)}`);
  else res.end();
}

type From = 'here' | 'peer';

/** Serves a Run's log from here or from the agent that holds it; which, for the counter. */
async function serveLog(
  d: ServerDeps,
  req: express.Request,
  res: express.Response,
  namespace: string,
  name: string,
  mayForward: boolean,
): Promise<From> {
  const run = await d.getRun(namespace, name);
  if (!run) {
    text(res, 404, `run "${name}" not found in "${namespace}"`);
    return 'here';
  }
  const holder = run.status?.assignedTo;
  // Each agent keeps the logs of the steps it ran: another agent's are fetched from it (once: a
  // forwarded request is never forwarded again).
  if (mayForward && holder && d.identity && holder !== d.identity && d.fromPeer) {
    const query = new URLSearchParams(req.query as Record<string, string>).toString();
    await d.fromPeer(holder, `${peerLogPath(namespace, name)}${query ? `?${query}` : ''}`, res);
    return 'peer';
  }
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
  if (!found) text(res, 404, `no log of attempt ${attempt} of run "${name}" on this agent`);
  else res.end();
  return 'here';
}
