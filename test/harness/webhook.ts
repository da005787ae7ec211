// Direct access to the local webhook process, for the suites that test it as a server.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request, type Agent } from 'node:https';
import { join } from 'node:path';
import { repoRoot, stateDir } from './paths.js';
import { localPort } from './processes.js';

export function webhookEndpoint(): { port: number; ca: Buffer; pid: number } {
  const port = Number(localPort('WEBHOOK_PORT'));
  const pid = Number(readFileSync(join(stateDir, 'pids', 'webhook.pid'), 'utf8').trim());
  return { port, ca: readFileSync(join(stateDir, 'pki', 'ca.crt')), pid };
}

export function webhookControl(action: 'stop' | 'start'): void {
  const r = spawnSync('bash', [join(repoRoot, 'test/controlplane/webhook.sh'), action], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`webhook ${action} failed: ${r.stderr}`);
}

export { processAlive } from './processes.js';

/** POSTs an AdmissionReview body to the webhook's /validate over the given (keep-alive) agent. */
export function postReview(
  agent: Agent,
  port: number,
  body: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/validate',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
