// The operations endpoints every component serves, said once: /healthz (the process answers),
// /readyz (its caches are synced: 503 with the reason otherwise) and /metrics (Prometheus text).
import http from 'node:http';
import type { Registry } from 'prom-client';

export interface OpsOptions {
  registry: Registry;
  ready: () => boolean;
  /** Why /readyz says no, e.g. "the Run cache has not synced". */
  notReady: string;
}

/** Answers the three paths; false for any other, so a caller can serve its own. */
export function handleOps(o: OpsOptions, req: http.IncomingMessage, res: http.ServerResponse): boolean {
  const path = (req.url ?? '').split('?')[0];
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  if (path === '/healthz') {
    res.setHeader('Content-Type', 'text/plain');
    res.end('ok');
  } else if (path === '/readyz') {
    const ok = o.ready();
    res.statusCode = ok ? 200 : 503;
    res.setHeader('Content-Type', 'text/plain');
    res.end(ok ? 'ok' : `not ready: ${o.notReady}`);
  } else if (path === '/metrics') {
    void o.registry.metrics().then(
      (text) => {
        res.setHeader('Content-Type', o.registry.contentType);
        res.end(text);
      },
      (e: unknown) => {
        res.statusCode = 500;
        res.end(String(e));
      },
    );
  } else return false;
  return true;
}

/** As express middleware, mounted before a component's own routes. */
export function opsMiddleware(o: OpsOptions) {
  return (req: http.IncomingMessage, res: http.ServerResponse, next: () => void) => {
    if (!handleOps(o, req, res)) next();
  };
}

/** A plain HTTP server of the three paths alone (the controller's). */
export function opsServer(o: OpsOptions): http.Server {
  return http.createServer((req, res) => {
    if (handleOps(o, req, res)) return;
    res.statusCode = 404;
    res.end();
  });
}
