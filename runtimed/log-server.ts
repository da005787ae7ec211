// runtimed's HTTP(S) server: the step logs (through the API server's aggregation layer when it has
// a serving certificate, from peer agents when it has their CA), its health, its metrics. The
// serving certificate is read again when its files change, as cert-manager rotates them.
import { existsSync, readFileSync, watchFile } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { dirname, join } from 'node:path';
import type * as k8s from '@kubernetes/client-node';
import type { Run } from '../src/api/types.js';
import { crd, KubeClient, statusCode } from '../src/kube/rest.js';
import { log } from '../src/telemetry/log.js';
import type { Agent } from './agent.js';
import { LogAuthorizer } from './auth.js';
import { loadFrontProxy, remoteUser } from './frontproxy.js';
import { peerLogs } from './peers.js';
import { createApp } from './server.js';
import type { FlagValues } from './settings.js';

export async function serveLogs(kc: k8s.KubeConfig, agent: Agent, f: FlagValues): Promise<http.Server> {
  const kube = new KubeClient(kc);
  const authorizer = new LogAuthorizer(kube);
  const cert = typeof f.cert === 'string' ? f.cert : undefined;
  const key = typeof f.key === 'string' ? f.key : undefined;
  // Logs through the API server (logs.kruntimes.io) where the cluster has an aggregation layer.
  const frontProxy = cert ? await loadFrontProxy(kube) : undefined;
  const fromPeer = peerSource(kube, f, cert);
  const app = createApp({
    dataDir: String(f['data-dir']),
    ready: () => agent.healthy(),
    registry: agent.registry,
    identity: String(f.identity),
    authorize: (h, ns, name, audience) => authorizer.check(h, ns, name, audience),
    ...(frontProxy
      ? {
          remoteUser: (req) => remoteUser(req, frontProxy),
          authorizeUser: (user, ns, name) => authorizer.checkUser(user, ns, name),
        }
      : {}),
    ...(fromPeer ? { fromPeer } : {}),
    // The cache first: a following reader asks every 200 ms. Runs of namespaces this agent does not
    // serve are read from the API server.
    getRun: async (namespace, name) => {
      const cached = agent.cachedRun(namespace, name);
      if (cached) return cached;
      try {
        return await kube.get<Run>({ ...crd('runs', namespace), name });
      } catch (e) {
        if (statusCode(e) === 404) return undefined;
        throw e;
      }
    },
  });
  const tls = (certFile: string, keyFile: string) => ({
    cert: readFileSync(certFile),
    key: readFileSync(keyFile),
    minVersion: 'TLSv1.2' as const,
    // The API server presents its front-proxy certificate; other callers present none.
    ...(frontProxy ? { ca: frontProxy.ca, requestCert: true, rejectUnauthorized: false } : {}),
  });
  const server = cert && key ? https.createServer(tls(cert, key), app) : http.createServer(app);
  if (cert && key && server instanceof https.Server) reloadOnChange(server, cert, key, tls);
  server.on('error', (e) => {
    console.error(`runtimed: cannot serve on ${String(f.host)}:${String(f.port)}: ${e.message}`);
    process.exit(1);
  });
  server.listen(Number(f.port), typeof f.host === 'string' ? f.host : undefined);
  return server;
}

/** Logs of steps other agents ran, fetched from them when this agent has their CA and a token. */
function peerSource(kube: KubeClient, f: FlagValues, cert: string | undefined) {
  const leaseNamespace = String(f['lease-namespace']);
  const ca =
    typeof f['peer-ca'] === 'string' ? f['peer-ca'] : cert ? join(dirname(cert), 'ca.crt') : undefined;
  const tokenFile = String(f['peer-token-file']);
  if (!ca || !existsSync(ca) || !existsSync(tokenFile)) return undefined;
  return peerLogs(kube, {
    leaseNamespace,
    ca: readFileSync(ca),
    serverName:
      typeof f['peer-server-name'] === 'string'
        ? f['peer-server-name']
        : `kruntimes-runtimed.${leaseNamespace}.svc`,
    tokenFile,
  });
}

function reloadOnChange(
  server: https.Server,
  cert: string,
  key: string,
  tls: (cert: string, key: string) => https.ServerOptions,
): void {
  for (const file of [cert, key])
    watchFile(file, { interval: 5000 }, () => {
      try {
        server.setSecureContext(tls(cert, key));
        log.info({ file }, 'serving certificate reloaded');
      } catch (e) {
        log.error({ err: e }, 'could not reload the serving certificate; keeping the old one');
      }
    }).unref();
}
