import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { opsServers, parseListenAddr } from './ops.js';

describe('parseListenAddr', () => {
  it.each([
    [':8080', { host: undefined, port: 8080 }],
    ['0.0.0.0:9090', { host: '0.0.0.0', port: 9090 }],
    ['127.0.0.1:0', { host: '127.0.0.1', port: 0 }],
    ['localhost:80', { host: 'localhost', port: 80 }],
    ['[::1]:8080', { host: '::1', port: 8080 }],
    ['[::]:8080', { host: '::', port: 8080 }],
  ])('reads %s', (v, want) => expect(parseListenAddr('health-addr', v)).toEqual(want));

  it.each(['0', ''])('turns the endpoint off with "%s"', (v) =>
    expect(parseListenAddr('health-addr', v)).toBeNull(),
  );

  it.each(['8080', 'host', ':', ':99999', '::1:8080', 'a:b', '[::1]', ':80:80', ' :80'])(
    'refuses %j with the flag and the forms it takes',
    (v) =>
      expect(parseListenAddr('metrics-addr', v)).toEqual({
        error: `--metrics-addr must be host:port or :port (or 0 to turn it off), not "${v}"`,
      }),
  );
});

describe('opsServers', () => {
  const registry = new Registry();
  let servers: http.Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    servers = [];
  });
  const port = (s: http.Server) => (s.address() as AddressInfo).port;
  const listening = (s: http.Server) =>
    new Promise<void>((r) => (s.listening ? r() : s.once('listening', r)));
  const get = async (p: number, path: string) => (await fetch(`http://127.0.0.1:${p}${path}`)).status;
  const failed = (): never => {
    throw new Error('no error expected');
  };

  it('serves health and metrics on one server when the addresses are the same', async () => {
    const a = { host: '127.0.0.1', port: 0 };
    servers = opsServers(
      { registry, ready: () => false, notReady: 'cold' },
      { health: a, metrics: a },
      failed,
    );
    expect(servers).toHaveLength(1);
    await listening(servers[0] as http.Server);
    const p = port(servers[0] as http.Server);
    expect([await get(p, '/healthz'), await get(p, '/readyz'), await get(p, '/metrics')]).toEqual([
      200, 503, 200,
    ]);
    expect(await (await fetch(`http://127.0.0.1:${p}/readyz`)).text()).toBe('not ready: cold');
  });

  it('keeps health and metrics apart on two addresses, and serves nothing for an address that is off', async () => {
    const o = { registry, ready: () => true, notReady: '' };
    servers = opsServers(
      o,
      { health: { host: '127.0.0.1', port: 0 }, metrics: { host: '127.0.0.2', port: 0 } },
      failed,
    );
    expect(servers).toHaveLength(2);
    await Promise.all(servers.map(listening));
    const [health, metrics] = servers.map(port) as [number, number];
    const at = (host: string, p: number, path: string) =>
      fetch(`http://${host}:${p}${path}`).then((r) => r.status);
    expect(
      await Promise.all(['/healthz', '/readyz', '/metrics'].map((x) => at('127.0.0.1', health, x))),
    ).toEqual([200, 200, 404]);
    expect(
      await Promise.all(['/healthz', '/readyz', '/metrics'].map((x) => at('127.0.0.2', metrics, x))),
    ).toEqual([404, 404, 200]);
    expect(opsServers(o, { health: null, metrics: null }, failed)).toEqual([]);
  });

  it('reports an address it cannot listen on', async () => {
    const taken = http.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const a = { host: '127.0.0.1', port: port(taken) };
    const err = await new Promise<Error>((resolve) => {
      servers = opsServers(
        { registry, ready: () => true, notReady: '' },
        { health: a, metrics: null },
        (_, e) => resolve(e),
      );
    });
    expect(err.message).toMatch(/EADDRINUSE/);
    await new Promise((r) => taken.close(r));
  });
});
