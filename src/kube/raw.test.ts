// Every call ends, resolved or rejected, whatever the server does after its headers: a local HTTPS
// server (a certificate made by openssl) that cuts the body off, stalls, or answers 200 with no JSON.
// And KubeClient over it: the requests each of its calls sends, and the writes it counts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeAccess } from './access.js';
import { HttpError, rawJson } from './raw.js';
import { KubeClient } from './rest.js';

const dir = mkdtempSync(join(tmpdir(), 'krt-raw-'));
let server: https.Server;
const seen = new WeakMap<object, number>();
let socketsSeen = 0;
const sockets = (s: object) => seen.get(s) ?? (seen.set(s, ++socketsSeen), socketsSeen);
let kc: KubeAccess;
/** What the server was sent under /api and /apis: method, path, content type, body. */
const sent: string[] = [];

beforeAll(async () => {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  server = https.createServer(
    { cert: readFileSync(join(dir, 'cert.pem')), key: readFileSync(join(dir, 'key.pem')) },
    (req, res) => {
      if (req.url?.startsWith('/api')) {
        let body = '';
        req.setEncoding('utf8');
        req.on('data', (c: string) => (body += c));
        req.on('end', () => {
          sent.push(`${req.method} ${req.url} ${req.headers['content-type'] ?? '-'} ${body || '-'}`);
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{}');
        });
        return;
      }
      switch (req.url) {
        case '/cut':
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
          res.write('{"items": [');
          setImmediate(() => res.socket?.destroy());
          return;
        case '/stall':
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{');
          return; // never ends
        case '/html':
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end('<html>proxy error</html>');
          return;
        case '/echo': {
          // What the server read of the request: its method, its body, and the connection it came on.
          let body = '';
          req.setEncoding('utf8');
          req.on('data', (c: string) => (body += c));
          req.on('end', () => {
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ method: req.method, body, socket: sockets(req.socket) }));
          });
          return;
        }
        case '/gone':
          res.writeHead(404);
          res.end('{"kind":"Status","code":404}');
          return;
        default:
          res.writeHead(200);
          res.end('{"ok":true}');
      }
    },
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  kc = {
    getCurrentCluster: () => ({ server: `https://127.0.0.1:${port}` }),
    applyToHTTPSOptions: async (o) => void Object.assign(o, { rejectUnauthorized: false }),
  };
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('rawJson', () => {
  it('reads a JSON reply', async () => {
    await expect(rawJson(kc, 'GET', '/ok')).resolves.toEqual({ ok: true });
  });
  it('rejects a reply cut off after its headers', async () => {
    await expect(rawJson(kc, 'GET', '/cut')).rejects.toThrow(
      'GET /cut: the reply was cut off before its end',
    );
  });
  it('rejects a reply that stalls, at its deadline', async () => {
    await expect(rawJson(kc, 'GET', '/stall', { timeoutMs: 300 })).rejects.toThrow(
      /GET \/stall: (no complete reply within 300 ms|timed out)/,
    );
  });
  it('rejects a 2xx reply that is not JSON, without throwing out of the process', async () => {
    await expect(rawJson(kc, 'GET', '/html')).rejects.toThrow(
      'GET /html: the reply is not JSON: <html>proxy error</html>',
    );
  });
  it("sends a DELETE's body whole, so the next request on the same connection is read as sent", async () => {
    const options = { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid: 'u-1' } };
    const first = (await rawJson(kc, 'DELETE', '/echo', { body: options })) as {
      body: string;
      socket: number;
    };
    expect(JSON.parse(first.body)).toEqual(options);
    const next = (await rawJson(kc, 'GET', '/echo')) as { method: string; body: string; socket: number };
    expect(next).toEqual({ method: 'GET', body: '', socket: first.socket });
  });
  it('rejects an error status with its code', async () => {
    await expect(rawJson(kc, 'GET', '/gone')).rejects.toBeInstanceOf(HttpError);
  });
});

describe('KubeClient', () => {
  it('counts each write it sends, by verb and resource, reads not, and acting as another counts alike', async () => {
    const counted: string[] = [];
    const kube = new KubeClient(kc, { inc: (l) => counted.push(`${l.verb} ${l.resource}`) });
    const cm = { group: '', version: 'v1', plural: 'configmaps', namespace: 'ns' };
    const crds = { group: 'apiextensions.k8s.io', version: 'v1', plural: 'customresourcedefinitions' };
    sent.length = 0;
    await kube.get({ ...cm, name: 'a' });
    await kube.create(cm, { n: 1 });
    await kube.create(crds, { n: 2 }, 'kruntimes');
    await kube.replaceStatus({ ...cm, name: 'a' }, { n: 3 });
    await kube.patch({ ...cm, name: 'a' }, { n: 4 });
    await kube.apply({ ...crds, name: 'x.y' }, { n: 5 });
    await kube.as(kc).delete({ ...cm, name: 'a' }, { propagationPolicy: 'Background', uid: 'u-1' });
    expect(counted).toEqual([
      'create configmaps',
      'create customresourcedefinitions',
      'update configmaps/status',
      'patch configmaps',
      'apply customresourcedefinitions',
      'delete configmaps',
    ]);
    expect(sent).toEqual([
      'GET /api/v1/namespaces/ns/configmaps/a - -',
      'POST /api/v1/namespaces/ns/configmaps application/json {"n":1}',
      'POST /apis/apiextensions.k8s.io/v1/customresourcedefinitions?fieldManager=kruntimes application/json {"n":2}',
      'PUT /api/v1/namespaces/ns/configmaps/a/status application/json {"n":3}',
      'PATCH /api/v1/namespaces/ns/configmaps/a application/merge-patch+json {"n":4}',
      'PATCH /apis/apiextensions.k8s.io/v1/customresourcedefinitions/x.y?fieldManager=kruntimes&force=true application/apply-patch+yaml {"n":5}',
      'DELETE /api/v1/namespaces/ns/configmaps/a?propagationPolicy=Background application/json {"apiVersion":"v1","kind":"DeleteOptions","preconditions":{"uid":"u-1"}}',
    ]);
  });
});
