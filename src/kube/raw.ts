// A plain JSON request to the API server with the kubeconfig's credentials: the request layer of
// the thin client (src/kube/rest.ts), the informers' lists and watches, and the calls where the
// generated client's serializers get in the way (Lease MicroTime fields).
import https from 'node:https';
import type { KubeAccess } from './access.js';
import { extraHeaders } from './impersonation.js';

export class HttpError extends Error {
  constructor(
    readonly code: number,
    readonly body: string,
  ) {
    super(`HTTP ${code}: ${body.slice(0, 300)}`);
  }
}

const agents = new WeakMap<KubeAccess, https.Agent>();

/** One keep-alive agent per KubeConfig, with its TLS options (client-node's own agent closes each connection). */
function keepAlive(kc: KubeAccess, tls: https.RequestOptions): https.Agent {
  let agent = agents.get(kc);
  if (!agent) {
    const { ca, cert, key, pfx, passphrase, rejectUnauthorized, servername } = tls;
    agent = new https.Agent({
      ca,
      cert,
      key,
      pfx,
      passphrase,
      rejectUnauthorized,
      servername,
      keepAlive: true,
    });
    agents.set(kc, agent);
  }
  return agent;
}

/**
 * The URL and options of one request: the access's TLS options and credentials, the impersonation
 * extras, and the keep-alive connections of this access (unless a proxy carries them).
 */
export async function requestOptions(
  kc: KubeAccess,
  path: string,
  opts: https.RequestOptions,
): Promise<{ url: string; opts: https.RequestOptions }> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('kubeconfig has no current cluster');
  await kc.applyToHTTPSOptions(opts);
  opts.headers = { ...opts.headers, ...extraHeaders(kc) };
  if (!cluster.proxyUrl) opts.agent = keepAlive(kc, opts);
  return { url: `${cluster.server}${path}`, opts };
}

/** One request's options: its body (sent as JSON), its deadline over the whole call, its content type. */
export interface RequestOptions {
  body?: unknown;
  /** Default 30 s. */
  timeoutMs?: number;
  /** Default application/json; a patch names its kind. */
  contentType?: string;
}

export async function rawJson(
  kc: KubeAccess,
  method: string,
  path: string,
  { body, timeoutMs = 30_000, contentType = 'application/json' }: RequestOptions = {},
): Promise<unknown> {
  const { url, opts } = await requestOptions(kc, path, {
    method,
    timeout: timeoutMs,
    headers: { accept: 'application/json' },
  });
  const payload = body === undefined ? undefined : JSON.stringify(body);
  // Content-Length always: Node sends a DELETE's body neither chunked nor with a length, so the API
  // server never read DeleteOptions (preconditions, propagation) and took the body's bytes for the
  // start of the connection's next request, which it answered with a bare 400.
  if (payload)
    opts.headers = {
      ...opts.headers,
      'content-type': contentType,
      'content-length': Buffer.byteLength(payload),
    };
  const what = `${method} ${path}`;
  return new Promise((resolve, reject) => {
    // One bound over the whole call: a server that answers the headers and then stalls or cuts the
    // body off must not leave the call pending (an informer's relist would freeze with it).
    const deadline = setTimeout(
      () => req.destroy(new Error(`${what}: no complete reply within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const fail = (e: Error) => {
      clearTimeout(deadline);
      reject(e);
    };
    const req = https.request(url, opts, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      const cut = (why: string) => fail(new Error(`${what}: the reply was cut off before its end (${why})`));
      res.on('error', (e) => cut(e.message));
      res.on('close', () => {
        if (!res.complete) cut('connection closed');
      });
      res.on('end', () => {
        clearTimeout(deadline);
        const text = Buffer.concat(chunks).toString('utf8');
        if ((res.statusCode ?? 500) >= 300) return reject(new HttpError(res.statusCode ?? 500, text));
        try {
          resolve(text ? JSON.parse(text) : undefined);
        } catch {
          reject(new Error(`${what}: the reply is not JSON: ${text.slice(0, 120)}`));
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${what}: timed out`)));
    req.on('error', fail);
    req.end(payload);
  });
}

/**
 * Server-side apply of one object at `path` (its own URL) as `fieldManager`, taking over fields
 * another manager holds (force), as controllers that own what they apply do.
 */
export function serverSideApply(
  kc: KubeAccess,
  path: string,
  body: unknown,
  fieldManager = 'kruntimes',
): Promise<unknown> {
  const q = `?fieldManager=${encodeURIComponent(fieldManager)}&force=true`;
  return rawJson(kc, 'PATCH', path + q, { body, contentType: 'application/apply-patch+yaml' });
}

/**
 * A GET whose body is read as it comes (pods/log?follow=true): resolves with the response once the
 * API server answers 2xx; the caller reads and ends it. `signal` aborts it.
 */
export async function rawStream(
  kc: KubeAccess,
  path: string,
  signal?: AbortSignal,
): Promise<import('node:http').IncomingMessage> {
  const { url, opts } = await requestOptions(kc, path, {
    method: 'GET',
    headers: { accept: '*/*' },
    ...(signal ? { signal } : {}),
  });
  return new Promise((resolve, reject) => {
    const req = https.request(url, opts, (res) => {
      if ((res.statusCode ?? 500) < 300) return resolve(res);
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        reject(new HttpError(res.statusCode ?? 500, Buffer.concat(chunks).toString('utf8'))),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** A GET of a text body (pods/log), whole. */
export async function rawText(kc: KubeAccess, path: string): Promise<string> {
  const res = await rawStream(kc, path, AbortSignal.timeout(30_000));
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
