// The operations endpoints every component serves, said once: /healthz (the process answers),
// /readyz (its caches are synced: 503 with the reason otherwise) and /metrics (Prometheus text),
// on the addresses of --health-addr and --metrics-addr (one server when they are the same).
import type * as Http from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
// Named apart from the `createRequire` the bundles' banner declares (tools/bundle.mjs).
import { createRequire as requireFrom } from 'node:module';
import type { Registry } from 'prom-client';

// Required, not imported: an ES import of node:http reads each of its exports, and three of them
// (WebSocket, CloseEvent, MessageEvent) load Node's fetch implementation, about 2 MiB of heap that
// no component uses (docs/benchmarks.md, "Memory"). tools/controller-load.test.ts checks it.
const http = requireFrom(import.meta.url)('node:http') as typeof Http;

export interface OpsOptions {
  registry: Registry;
  ready: () => boolean;
  /** Why /readyz says no, e.g. "the Run cache has not synced". */
  notReady: string;
}

export type OpsPath = '/healthz' | '/readyz' | '/metrics';
const ALL: readonly OpsPath[] = ['/healthz', '/readyz', '/metrics'];

/** Answers the three paths (or those given); false for any other, so a caller can serve its own. */
export function handleOps(
  o: OpsOptions,
  req: IncomingMessage,
  res: ServerResponse,
  paths: readonly OpsPath[] = ALL,
): boolean {
  const path = (req.url ?? '').split('?')[0] as OpsPath;
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  if (!paths.includes(path)) return false;
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
  return (req: IncomingMessage, res: ServerResponse, next: () => void) => {
    if (!handleOps(o, req, res)) next();
  };
}

export interface ListenAddr {
  /** Undefined: every interface (":8080"). */
  host: string | undefined;
  port: number;
}

/**
 * A listen address as the flags take it: "host:port", "[v6]:port" or ":port" (every interface);
 * "0" or "" turns the endpoint off (null).
 */
export function parseListenAddr(flag: string, value: string): ListenAddr | null | { error: string } {
  if (value === '' || value === '0') return null;
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]*)):(\d{1,5})$/.exec(value);
  const port = Number(m?.[3]);
  if (!m || !(port >= 0 && port <= 65535))
    return { error: `--${flag} must be host:port or :port (or 0 to turn it off), not "${value}"` };
  const host = m[1] ?? m[2];
  return { host: host === '' ? undefined : host, port };
}

/**
 * Plain HTTP servers for health (/healthz, /readyz) and metrics on their addresses: one when both
 * are the same, none for an address that is off. Returned listening-to-be; the caller closes them.
 */
export function opsServers(
  o: OpsOptions,
  addrs: { health: ListenAddr | null; metrics: ListenAddr | null },
  onError: (addr: ListenAddr, e: Error) => void,
): Server[] {
  const byAddr = new Map<string, { addr: ListenAddr; paths: OpsPath[] }>();
  const add = (addr: ListenAddr | null, paths: OpsPath[]) => {
    if (!addr) return;
    const key = `${addr.host ?? ''}:${addr.port}`;
    const entry = byAddr.get(key) ?? { addr, paths: [] };
    entry.paths.push(...paths);
    byAddr.set(key, entry);
  };
  add(addrs.health, ['/healthz', '/readyz']);
  add(addrs.metrics, ['/metrics']);
  return [...byAddr.values()].map(({ addr, paths }) => {
    const server = http.createServer((req, res) => {
      if (handleOps(o, req, res, paths)) return;
      res.statusCode = 404;
      res.end();
    });
    server.on('error', (e) => onError(addr, e));
    server.listen(addr.port, addr.host);
    return server;
  });
}

/** The flags of every component's operations endpoints, with the component's defaults. */
export const opsFlags = (health: string, metrics: string) => ({
  'health-addr': {
    type: 'string' as const,
    default: health,
    help: 'Plain HTTP address of /healthz and /readyz: host:port, :port (every interface) or 0 (off)',
  },
  'metrics-addr': {
    type: 'string' as const,
    default: metrics,
    help: 'Plain HTTP address of /metrics (Prometheus): host:port, :port or 0 (off); may equal --health-addr',
  },
});

/**
 * Starts the operations servers a component's --health-addr and --metrics-addr ask for; a malformed
 * flag or an address in use ends the process with the reason, as any other bad flag does.
 */
export function serveOpsFlags(
  component: string,
  flags: { 'health-addr'?: string; 'metrics-addr'?: string },
  o: OpsOptions,
): Server[] {
  const health = parseListenAddr('health-addr', flags['health-addr'] ?? '0');
  const metrics = parseListenAddr('metrics-addr', flags['metrics-addr'] ?? '0');
  for (const a of [health, metrics])
    if (a && 'error' in a) {
      console.error(`${component}: ${a.error}`);
      process.exit(2);
    }
  return opsServers(
    o,
    { health: health as ListenAddr | null, metrics: metrics as ListenAddr | null },
    (a, e) => {
      console.error(`${component}: cannot serve on ${a.host ?? ''}:${a.port}: ${e.message}`);
      process.exit(1);
    },
  );
}
