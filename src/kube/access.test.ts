// The project's own access to the API server: the same kubeconfig files and merge as kubectl, the
// credentials of each kind on a request, a service account's token read again as it rotates, and
// plugin users handed to client-node.
import { afterAll, describe, expect, it } from '@jest/globals';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { kubeAccess, type KubeAccess } from './access.js';
import { extraHeaders } from './impersonation.js';

const dir = mkdtempSync(join(tmpdir(), 'krt-access-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, doc: object): string {
  const p = join(dir, name);
  writeFileSync(p, stringify({ apiVersion: 'v1', kind: 'Config', ...doc }));
  return p;
}

function config(name: string, clusterFields: object, userFields: object): string {
  return file(name, {
    'current-context': 'here',
    clusters: [{ name: 'c', cluster: { server: 'https://api.example:6443', ...clusterFields } }],
    users: [{ name: 'u', user: userFields }],
    contexts: [{ name: 'here', context: { cluster: 'c', user: 'u' } }],
  });
}

async function applied(
  access: KubeAccess,
): Promise<https.RequestOptions & { headers: Record<string, unknown> }> {
  const opts: https.RequestOptions = { headers: { accept: 'application/json' } };
  await access.applyToHTTPSOptions(opts);
  return opts as https.RequestOptions & { headers: Record<string, unknown> };
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('kubeAccess from a kubeconfig', () => {
  it('puts the CA, client certificate and key on each request, and impersonates the user it names', async () => {
    const path = config(
      'certs',
      { 'certificate-authority-data': b64('the CA') },
      {
        'client-certificate-data': b64('the cert'),
        'client-key-data': b64('the key'),
        as: 'system:serviceaccount:ns:sa',
        'as-groups': ['team'],
        'as-user-extra': { 'authentication.kubernetes.io/pod-name': ['pod-1'] },
      },
    );
    const access = kubeAccess({ path });
    expect(access.getCurrentCluster()?.server).toBe('https://api.example:6443');
    const opts = await applied(access);
    expect(String(opts.ca)).toBe('the CA');
    expect(String(opts.cert)).toBe('the cert');
    expect(String(opts.key)).toBe('the key');
    expect(opts.rejectUnauthorized).toBe(true);
    expect(opts.headers).toEqual({
      accept: 'application/json',
      'Impersonate-User': 'system:serviceaccount:ns:sa',
      'Impersonate-Group': ['team'],
    });
    expect(extraHeaders(access)).toEqual({
      'Impersonate-Extra-authentication.kubernetes.io%2Fpod-name': 'pod-1',
    });
  });

  it('reads certificate files relative to the kubeconfig, and skips verification only when told', async () => {
    mkdirSync(join(dir, 'pki'), { recursive: true });
    writeFileSync(join(dir, 'pki', 'ca.crt'), 'file CA');
    writeFileSync(join(dir, 'pki', 'me.crt'), 'file cert');
    writeFileSync(join(dir, 'pki', 'me.key'), 'file key');
    const path = config(
      'files',
      { 'certificate-authority': 'pki/ca.crt', 'insecure-skip-tls-verify': true, 'tls-server-name': 'api' },
      { 'client-certificate': 'pki/me.crt', 'client-key': join(dir, 'pki', 'me.key') },
    );
    const opts = await applied(kubeAccess({ path }));
    expect([String(opts.ca), String(opts.cert), String(opts.key)]).toEqual([
      'file CA',
      'file cert',
      'file key',
    ]);
    expect(opts.rejectUnauthorized).toBe(false);
    expect(opts.servername).toBe('api');
  });

  it('sends a token, or basic credentials', async () => {
    const token = await applied(kubeAccess({ path: config('token', {}, { token: 'abc' }) }));
    expect(token.headers.authorization).toBe('Bearer abc');
    const basic = await applied(
      kubeAccess({ path: config('basic', {}, { username: 'me', password: 'pw' }) }),
    );
    expect(basic.headers.authorization).toBe(`Basic ${b64('me:pw')}`);
  });

  it('reads a token file again once a minute, as a rotating token needs', async () => {
    const tokenFile = join(dir, 'rotating');
    writeFileSync(tokenFile, 'first\n');
    let now = 0;
    const access = kubeAccess({ path: config('tokenfile', {}, { tokenFile }), clock: () => now });
    expect((await applied(access)).headers.authorization).toBe('Bearer first');
    writeFileSync(tokenFile, 'second\n');
    now = 59_999;
    expect((await applied(access)).headers.authorization).toBe('Bearer first');
    now = 60_000;
    expect((await applied(access)).headers.authorization).toBe('Bearer second');
  });

  it('merges the files of KUBECONFIG as kubectl does, and takes the context given', () => {
    const first = file('first', {
      'current-context': 'one',
      clusters: [{ name: 'shared', cluster: { server: 'https://first.example' } }],
      users: [{ name: 'u', user: { token: 't' } }],
      contexts: [{ name: 'one', context: { cluster: 'shared', user: 'u' } }],
    });
    const second = file('second', {
      'current-context': 'two',
      clusters: [
        { name: 'shared', cluster: { server: 'https://second.example' } },
        { name: 'other', cluster: { server: 'https://other.example' } },
      ],
      contexts: [{ name: 'two', context: { cluster: 'other', user: 'u' } }],
    });
    const env = { KUBECONFIG: `${first}:${second}` };
    expect(kubeAccess({ env }).getCurrentCluster()?.server).toBe('https://first.example');
    expect(kubeAccess({ env, context: 'two' }).getCurrentCluster()?.server).toBe('https://other.example');
    expect(() => kubeAccess({ env, context: 'three' })).toThrow('context "three" is not in the kubeconfig');
  });

  it('hands a user authenticated by a plugin to client-node, which runs it', async () => {
    const plugin = join(dir, 'credential-plugin');
    writeFileSync(
      plugin,
      `#!/bin/sh\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"from-plugin"}}'\n`,
    );
    chmodSync(plugin, 0o755);
    const path = config(
      'exec',
      {},
      { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin, interactiveMode: 'Never' } },
    );
    const access = kubeAccess({ path });
    expect(access.getCurrentCluster()?.server).toBe('https://api.example:6443');
    // client-node names the header with a capital.
    expect((await applied(access)).headers.Authorization).toBe('Bearer from-plugin');
  });
});

describe('kubeAccess in a Pod', () => {
  it("uses the service's address and the mounted service account's CA and token", async () => {
    const sa = join(dir, 'sa');
    mkdirSync(sa, { recursive: true });
    writeFileSync(join(sa, 'ca.crt'), 'cluster CA');
    writeFileSync(join(sa, 'token'), 'sa-token');
    const env = { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' };
    const access = kubeAccess({ env, home: join(dir, 'nohome'), serviceAccountDir: sa });
    expect(access.getCurrentCluster()?.server).toBe('https://[fd00::1]:443');
    const opts = await applied(access);
    expect(String(opts.ca)).toBe('cluster CA');
    expect(opts.headers.authorization).toBe('Bearer sa-token');
  });

  it('says so when there is neither a kubeconfig nor a Pod', () => {
    expect(() => kubeAccess({ env: {}, home: join(dir, 'nohome') })).toThrow(
      'no kubeconfig found, and not in a Pod (KUBERNETES_SERVICE_HOST is not set)',
    );
  });
});
