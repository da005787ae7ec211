// The log of a step another agent ran: that agent's Lease says where its log endpoint is
// (--advertise-url). The request goes there only if the peer proves, with a certificate of the
// agents' CA for the agents' own service name, that it is an agent; and it carries no credential
// the API server would take: a token of this agent's service account bound to the peers' audience
// (a projected token the kubelet renews), which the peer reviews for that audience only.
import { readFile } from 'node:fs/promises';
import https from 'node:https';
import type express from 'express';
import { leases, type KubeClient } from '../src/kube/rest.js';
import { agentFromLease, agentLeaseName, type LeaseLike } from '../src/runtime/agents.js';

/** The audience of the tokens agents show each other, and nothing else accepts. */
export const PEER_AUDIENCE = 'logs.kruntimes.io/peers';

/** Where a peer serves the logs it holds to other agents. */
export const peerLogPath = (namespace: string, name: string) =>
  `/peer/namespaces/${encodeURIComponent(namespace)}/runs/${encodeURIComponent(name)}/log`;

export interface PeerOptions {
  /** Where agents hold their Leases. */
  leaseNamespace: string;
  /** The CA that signed the agents' serving certificates. */
  ca: Buffer;
  /** The name the agents' serving certificate is for (their Service's). */
  serverName: string;
  /** This agent's token for the peer audience (read anew for each request: the kubelet renews it). */
  tokenFile: string;
}

export type PeerFetch = (agent: string, pathAndQuery: string, res: express.Response) => Promise<void>;

export function peerLogs(kube: KubeClient, o: PeerOptions): PeerFetch {
  return async (agent, pathAndQuery, res) => {
    const lease = await kube
      .get<LeaseLike>({ ...leases(o.leaseNamespace), name: agentLeaseName(agent) })
      .catch(() => undefined);
    const url = lease && agentFromLease(lease)?.logUrl;
    if (!url)
      return void res
        .status(404)
        .type('text/plain')
        .send(`the log is held by agent "${agent}", which is gone or advertises no log endpoint\n`);
    await fetchFromPeer(new URL(pathAndQuery, url), o, res);
  };
}

/** Streams one peer answer into `res`; rejects when the peer cannot be reached or proven. */
export async function fetchFromPeer(
  url: URL,
  o: Pick<PeerOptions, 'ca' | 'serverName' | 'tokenFile'>,
  res: express.Response,
): Promise<void> {
  const token = (await readFile(o.tokenFile, 'utf8')).trim();
  // The peer is reached at its Pod address; its certificate must still name the agents' Service
  // (the default identity check, against servername), not merely come from the same CA.
  const request = https.request(url, {
    headers: { authorization: `Bearer ${token}` },
    ca: o.ca,
    servername: o.serverName,
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
}
