// Loading as kubectl does: several KUBECONFIG files merged (first entry wins), --context, relative
// paths against each file's own folder.
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { kubeconfigFiles, loadKubeConfigAs } from './kubeconfig.js';

const dir = mkdtempSync(join(tmpdir(), 'krt-kc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, doc: object): string {
  const p = join(dir, name);
  writeFileSync(p, stringify({ apiVersion: 'v1', kind: 'Config', ...doc }));
  return p;
}
const cluster = (name: string, server: string) => ({
  name,
  cluster: { server, 'certificate-authority': 'ca.crt' },
});
const user = (name: string, token: string) => ({ name, user: { token } });
const context = (name: string, c: string, u: string, namespace?: string) => ({
  name,
  context: { cluster: c, user: u, ...(namespace ? { namespace } : {}) },
});

const a = file('a', {
  'current-context': 'dev',
  clusters: [cluster('dev', 'https://dev.example:6443'), cluster('shared', 'https://first.example')],
  users: [user('me', 'token-a')],
  contexts: [context('dev', 'dev', 'me', 'team-a')],
});
const b = file('b', {
  'current-context': 'prod',
  clusters: [cluster('prod', 'https://prod.example:6443'), cluster('shared', 'https://second.example')],
  users: [user('me', 'token-b'), user('ops', 'token-ops')],
  contexts: [context('prod', 'prod', 'ops', 'team-p'), context('dev', 'prod', 'ops')],
});

describe('loadKubeConfigAs', () => {
  it('merges the files of KUBECONFIG, the first entry of each name and the first current-context winning', () => {
    const kc = loadKubeConfigAs({ env: { KUBECONFIG: `${a}:${b}` } });
    expect(kc.getCurrentContext()).toBe('dev');
    expect(kc.getCurrentCluster()?.server).toBe('https://dev.example:6443');
    expect(kc.getCurrentUser()?.token).toBe('token-a');
    expect(kc.getCluster('shared')?.server).toBe('https://first.example');
    expect(kc.getContexts().map((c) => c.name)).toEqual(['dev', 'prod']);
    // Relative paths resolve against the file that names them.
    expect(kc.getCluster('prod')?.caFile).toBe(join(dir, 'ca.crt'));
  });

  it('switches to the context given, with its user and namespace', () => {
    const kc = loadKubeConfigAs({ env: { KUBECONFIG: `${a}:${b}` }, context: 'prod' });
    expect(kc.getCurrentCluster()?.server).toBe('https://prod.example:6443');
    expect(kc.getCurrentUser()?.token).toBe('token-ops');
    expect(kc.getContextObject(kc.getCurrentContext())?.namespace).toBe('team-p');
  });

  it('refuses a context the kubeconfig does not have, naming it', () => {
    expect(() => loadKubeConfigAs({ env: { KUBECONFIG: a }, context: 'nope' })).toThrow(
      'context "nope" is not in the kubeconfig',
    );
  });

  it('reads only the file of --kubeconfig, whatever KUBECONFIG says', () => {
    expect(kubeconfigFiles({ path: b, env: { KUBECONFIG: a } })).toEqual([b]);
    expect(loadKubeConfigAs({ path: b, env: { KUBECONFIG: a } }).getCurrentContext()).toBe('prod');
  });

  it('skips listed files that do not exist, as kubectl does, and says so when none does', () => {
    expect(kubeconfigFiles({ env: { KUBECONFIG: `${join(dir, 'missing')}:${b}` } })).toEqual([b]);
    expect(() => kubeconfigFiles({ env: { KUBECONFIG: join(dir, 'missing') } })).toThrow(
      'none of the files in KUBECONFIG exists',
    );
  });

  it('falls back to ~/.kube/config', () => {
    expect(kubeconfigFiles({ env: {}, home: join(dir, 'nohome') })).toEqual([]);
  });
});
