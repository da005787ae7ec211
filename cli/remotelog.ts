// A step's full log through the API server (logs.kruntimes.io, served by runtimed through the
// aggregation layer), with the user's own kubeconfig credentials, whatever kind they are. Where the
// cluster does not serve that API, the caller falls back to the tail kept in the Run's status.
import https from 'node:https';
import type { Connection } from './connect.js';
import { UsageError } from './connect.js';

export type ApiLogResult = 'done' | 'no-api';

export async function apiLog(
  c: Connection,
  name: string,
  o: { follow: boolean; write: (chunk: Buffer) => void },
): Promise<ApiLogResult> {
  const kc = c.kc;
  const cluster = kc.getCurrentCluster();
  if (!cluster) return 'no-api';
  const path = `/apis/logs.kruntimes.io/v1alpha1/namespaces/${encodeURIComponent(c.namespace)}/runs/${encodeURIComponent(name)}/log${o.follow ? '?follow=true' : ''}`;
  const opts: https.RequestOptions = { method: 'GET', headers: { accept: 'text/plain, application/json' } };
  await kc.applyToHTTPSOptions(opts);
  return new Promise<ApiLogResult>((resolve, reject) => {
    const req = https.request(`${cluster.server}${path}`, opts, (res) => {
      const status = res.statusCode ?? 500;
      if (status === 200) {
        res.on('data', (chunk: Buffer) => o.write(chunk));
        res.on('end', () => resolve('done'));
        res.on('error', reject);
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8').trim();
        // The API server's own Status: the API is not served here (no runtimed with it).
        const apiStatus = (res.headers['content-type'] ?? '').includes('json');
        if (apiStatus && (status === 404 || status === 503)) return resolve('no-api');
        let message = body;
        if (apiStatus)
          try {
            message = (JSON.parse(body) as { message?: string }).message ?? body;
          } catch {
            // not JSON after all
          }
        reject(new UsageError(`the log of run "${name}": ${message || `HTTP ${status}`}`));
      });
    });
    req.on('error', reject);
    req.end();
  });
}
