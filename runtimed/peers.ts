// The log of a step another agent ran: that agent's Lease says where its log endpoint is
// (--advertise-url); the request goes there with this agent's own credentials, which the other
// agent checks with the API server as it checks anyone's (TokenReview, then `get runs/log`).
import https from 'node:https';
import type * as k8s from '@kubernetes/client-node';
import type express from 'express';
import { rawJson } from '../src/kube/raw.js';
import { agentFromLease, agentLeaseName, type LeaseLike } from '../src/runtime/agents.js';

export interface PeerOptions {
  /** Where agents hold their Leases. */
  leaseNamespace: string;
  /** The CA that signed the agents' serving certificates. */
  ca: Buffer;
}

export function peerLogs(kc: k8s.KubeConfig, o: PeerOptions) {
  return async (agent: string, path: string, res: express.Response): Promise<void> => {
    const lease = (await rawJson(
      kc,
      'GET',
      `/apis/coordination.k8s.io/v1/namespaces/${o.leaseNamespace}/leases/${agentLeaseName(agent)}`,
    ).catch(() => undefined)) as LeaseLike | undefined;
    const url = lease && agentFromLease(lease)?.logUrl;
    if (!url)
      return void res
        .status(404)
        .type('text/plain')
        .send(`the log is held by agent "${agent}", which is gone or advertises no log endpoint\n`);
    const opts: https.RequestOptions = { method: 'GET', headers: {} };
    await kc.applyToHTTPSOptions(opts);
    // Only the bearer token travels: the peer is reached by its Pod address, verified by the CA.
    const request = https.request(new URL(path, url), {
      headers: { authorization: (opts.headers as Record<string, string>)['Authorization'] ?? '' },
      ca: o.ca,
      checkServerIdentity: () => undefined,
    });
    await new Promise<void>((resolve, reject) => {
      request.on('response', (r) => {
        res.status(r.statusCode ?? 502).type('text/plain');
        r.on('data', (chunk: Buffer) => res.write(chunk));
        r.on('end', () => {
          res.end();
          resolve();
        });
        r.on('error', reject);
      });
      request.on('error', reject);
      res.on('close', () => request.destroy());
      request.end();
    });
  };
}
