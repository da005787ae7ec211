// Fetching a log from another agent: the peer must hold a certificate for the agents' own name, not
// just any the CA signed, and it is sent the peer-audience token of the file, nothing else.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { fetchFromPeer, peerLogPath } from './peers.js';

const NAME = 'kruntimes-runtimed.kruntimes-system.svc';
const dir = mkdtempSync(join(tmpdir(), 'krt-peers-'));
let peer: https.Server;
let front: http.Server;
const seen: (string | undefined)[] = [];

const listen = async (s: http.Server | https.Server) => {
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return (s.address() as AddressInfo).port;
};

let peerPort = 0;
let frontPort = 0;

beforeAll(async () => {
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
      ...['-days', '1', '-subj', `/CN=${NAME}`, '-addext', `subjectAltName=DNS:${NAME}`],
      ...['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
    ],
    { stdio: 'ignore' },
  );
  writeFileSync(join(dir, 'token'), 'peer-token\n');
  peer = https.createServer(
    { cert: readFileSync(join(dir, 'cert.pem')), key: readFileSync(join(dir, 'key.pem')) },
    (req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`log of ${req.url}\n`);
    },
  );
  peerPort = await listen(peer);
  // The asking agent's side: an express response to stream into, as the log route has.
  const app = express();
  app.get('/as/:serverName', (req, res) => {
    const url = new URL(peerLogPath('ns', 'r-1'), `https://127.0.0.1:${peerPort}`);
    const o = {
      ca: readFileSync(join(dir, 'cert.pem')),
      serverName: req.params.serverName,
      tokenFile: join(dir, 'token'),
    };
    fetchFromPeer(url, o, res).catch((e: NodeJS.ErrnoException) => res.status(502).send(e.code ?? String(e)));
  });
  front = http.createServer(app);
  frontPort = await listen(front);
});

afterAll(() => {
  peer?.close();
  front?.close();
  rmSync(dir, { recursive: true, force: true });
});

const ask = async (serverName: string) => {
  const r = await fetch(`http://127.0.0.1:${frontPort}/as/${serverName}`);
  return { status: r.status, body: await r.text() };
};

describe('fetchFromPeer', () => {
  it("streams the log from a peer holding the agents' certificate, with the peer token only", async () => {
    seen.length = 0;
    expect(await ask(NAME)).toEqual({ status: 200, body: 'log of /peer/namespaces/ns/runs/r-1/log\n' });
    expect(seen).toEqual(['Bearer peer-token']);
  });

  it('refuses a peer whose certificate is for another name, before sending anything', async () => {
    seen.length = 0;
    expect(await ask('kruntimes-webhook.kruntimes-system.svc')).toEqual({
      status: 502,
      body: 'ERR_TLS_CERT_ALTNAME_INVALID',
    });
    expect(seen).toEqual([]);
  });
});
