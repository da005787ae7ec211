// The webhook as a server and as manifests: TLS 1.2 or newer only, health and metrics endpoints,
// kustomize bases that render with the cert-manager CA injection, and the local wiring of the
// self-signed CA.
import { readFileSync, writeFileSync } from 'node:fs';
import { get } from 'node:https';
import { connect } from 'node:tls';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { kubectl } from '../harness/kubectl.js';
import { repoRoot, stateDir } from '../harness/paths.js';
import { eventually } from '../harness/cluster.js';
import { processAlive, webhookEndpoint } from '../harness/webhook.js';

function fetchText(path: string): Promise<{ status: number; text: string }> {
  const { port, ca } = webhookEndpoint();
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path, ca }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    }).on('error', reject);
  });
}

describe('webhook server', () => {
  it('answers health, readiness and metrics', async () => {
    expect(await fetchText('/healthz')).toEqual({ status: 200, text: 'ok' });
    expect(await fetchText('/readyz')).toEqual({ status: 200, text: 'ok' });
    const metrics = await fetchText('/metrics');
    expect(metrics.text).toContain('# TYPE krt_webhook_requests_total counter');
    expect(metrics.text).toContain('# TYPE krt_webhook_request_duration_seconds histogram');
  });

  it('refuses TLS older than 1.2', async () => {
    const { port, ca } = webhookEndpoint();
    const outcome = await new Promise<string>((resolve) => {
      const s = connect({ host: '127.0.0.1', port, ca, maxVersion: 'TLSv1.1', minVersion: 'TLSv1' }, () =>
        resolve(`connected with ${s.getProtocol()}`),
      );
      s.on('error', (e) => resolve(`refused: ${e.message}`));
    });
    expect(outcome).toMatch(/^refused/);
    const modern = await new Promise<string>((resolve, reject) => {
      const s = connect({ host: '127.0.0.1', port, ca, minVersion: 'TLSv1.2' }, () => {
        resolve(String(s.getProtocol()));
        s.end();
      });
      s.on('error', reject);
    });
    expect(['TLSv1.2', 'TLSv1.3']).toContain(modern);
  });
});

// The few fields these checks read from rendered manifests.
interface Manifest {
  kind: string;
  metadata: { name: string; annotations: Record<string, string> };
  spec: { dnsNames: string[]; issuerRef?: { kind: string; name: string } };
  webhooks: { clientConfig: { service: object }; [k: string]: unknown }[];
}

describe('webhook manifests', () => {
  const render = (dir: string) => {
    const r = kubectl(['kustomize', join(repoRoot, dir)]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    return parseAllDocuments(r.stdout).map((d) => d.toJSON() as Manifest);
  };

  it('render with kustomize and carry the cert-manager CA injection', () => {
    const docs = render('config/webhook');
    const configs = docs.filter((d) => /WebhookConfiguration$/.test(d.kind));
    expect(configs.map((d) => d.kind).sort()).toEqual([
      'MutatingWebhookConfiguration',
      'ValidatingWebhookConfiguration',
    ]);
    expect(configs.flatMap((d) => d.webhooks.map((w) => String(w.name))).sort()).toEqual([
      'mutate.kruntimes.io',
      'validate-delete.kruntimes.io',
      'validate-run-status.kruntimes.io',
      'validate.kruntimes.io',
    ]);
    for (const d of configs) {
      // The install's CA, not the serving certificate: renewing that one leaves the caBundle as it is.
      expect(d.metadata.annotations['cert-manager.io/inject-ca-from']).toBe('kruntimes-system/kruntimes-ca');
      for (const w of d.webhooks) {
        // Fail closed for what is created or changed; a deletion (only ever warned about) is not
        // held up by a webhook that is down.
        const deletesOnly = (w.rules as { operations: string[] }[]).every(
          (r) => r.operations.join() === 'DELETE',
        );
        expect(w).toMatchObject({
          sideEffects: 'None',
          failurePolicy: deletesOnly ? 'Ignore' : 'Fail',
          matchPolicy: 'Equivalent',
          timeoutSeconds: 5,
        });
        expect(w.clientConfig.service).toMatchObject({
          name: 'kruntimes-webhook',
          namespace: 'kruntimes-system',
        });
      }
    }
    const certs = render('config/certmanager');
    expect(certs.map((d) => `${d.kind}/${d.metadata.name}`).sort()).toEqual([
      'Certificate/kruntimes-ca',
      'Certificate/kruntimes-runtimed',
      'Certificate/kruntimes-webhook',
      'Issuer/kruntimes-ca',
      'Issuer/kruntimes-selfsigned',
    ]);
    const serving = certs.filter((d) => d.kind === 'Certificate' && d.metadata.name !== 'kruntimes-ca');
    for (const c of serving) expect(c.spec.issuerRef).toEqual({ kind: 'Issuer', name: 'kruntimes-ca' });
    const dnsNames = serving.flatMap((d) => d.spec.dnsNames);
    expect(dnsNames).toContain('kruntimes-webhook.kruntimes-system.svc');
    expect(dnsNames).toContain('kruntimes-runtimed.kruntimes-system.svc');
    expect(render('.').length).toBeGreaterThan(10);
  });

  it('are registered locally with the self-signed CA and a loopback URL', () => {
    const { port } = webhookEndpoint();
    const ca = readFileSync(join(stateDir, 'pki', 'ca.crt')).toString('base64');
    const v = JSON.parse(
      kubectl(['get', 'validatingwebhookconfiguration', 'kruntimes-validating', '-o', 'json']).stdout,
    );
    expect(v.webhooks[0].clientConfig).toEqual({ url: `https://127.0.0.1:${port}/validate`, caBundle: ca });
    const m = JSON.parse(
      kubectl(['get', 'mutatingwebhookconfiguration', 'kruntimes-mutating', '-o', 'json']).stdout,
    );
    expect(m.webhooks[0].clientConfig).toEqual({ url: `https://127.0.0.1:${port}/mutate`, caBundle: ca });
    expect(m.webhooks[0].reinvocationPolicy).toBe('IfNeeded');
  });
});

describe('serving certificate rotation', () => {
  it('serves a rotated certificate without a restart, as cert-manager rotates the secret files', async () => {
    const { execFileSync } = await import('node:child_process');
    const { copyFileSync, mkdtempSync, renameSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { port, ca, pid } = webhookEndpoint();
    const pki = join(stateDir, 'pki');
    const served = () =>
      new Promise<string>((resolve, reject) => {
        const s = connect({ host: '127.0.0.1', port, ca, servername: 'localhost' }, () => {
          resolve(s.getPeerCertificate().serialNumber);
          s.end();
        });
        s.on('error', reject);
      });
    const before = await served();
    // A new key and certificate from the same CA, written over the files the webhook watches.
    const dir = mkdtempSync(join(tmpdir(), 'krt-rotate-'));
    const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
    writeFileSync(
      join(dir, 'ext'),
      'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n',
    );
    run('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'new.key');
    run('req', '-new', '-key', 'new.key', '-subj', '/CN=kruntimes-webhook', '-out', 'new.csr');
    run(
      'x509',
      '-req',
      '-in',
      'new.csr',
      '-CA',
      join(pki, 'ca.crt'),
      '-CAkey',
      join(pki, 'ca.key'),
      '-CAcreateserial',
      '-days',
      '30',
      '-sha256',
      '-extfile',
      'ext',
      '-out',
      'new.crt',
    );
    copyFileSync(join(dir, 'new.key'), join(dir, 'webhook.key.tmp'));
    copyFileSync(join(dir, 'new.crt'), join(dir, 'webhook.crt.tmp'));
    renameSync(join(dir, 'webhook.key.tmp'), join(pki, 'webhook.key'));
    renameSync(join(dir, 'webhook.crt.tmp'), join(pki, 'webhook.crt'));
    const expected = execFileSync('openssl', ['x509', '-in', join(pki, 'webhook.crt'), '-noout', '-serial'], {
      encoding: 'utf8',
    })
      .trim()
      .replace('serial=', '');
    await eventually(
      async () => (await served()) === expected,
      20000,
      'the webhook to serve the new certificate',
    );
    expect(expected).not.toBe(before);
    expect(processAlive(pid)).toBe(true);
  }, 30000);
});
