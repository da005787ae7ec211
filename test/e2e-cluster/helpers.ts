// Helpers of the one-node cluster suites: waiting on state, users with client certificates, krt as them.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { repoRoot } from '../harness/paths.js';
import { clusterKubeconfig, clusterState } from '../harness/node-cluster.js';

/** Asks `f` every half second until it gives a value, for at most `seconds`. */
export async function until<T>(
  what: string,
  seconds: number,
  f: () => T | undefined | false | Promise<T | undefined | false>,
) {
  const end = Date.now() + seconds * 1000;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`${what}: not within ${seconds} s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** A kubeconfig for a user with a client certificate signed by the cluster's CA (no token). */
export function userKubeconfig(user: string): string {
  const dir = mkdtempSync(join(tmpdir(), `krt-${user}-`));
  const pki = join(clusterState, 'pki');
  const run = (args: string[]) => {
    const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${r.stderr}`);
  };
  run(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'user.key']);
  run(['req', '-new', '-key', 'user.key', '-subj', `/CN=${user}`, '-out', 'user.csr']);
  run([
    'x509',
    '-req',
    '-in',
    'user.csr',
    '-CA',
    join(pki, 'ca.crt'),
    '-CAkey',
    join(pki, 'ca.key'),
    '-CAcreateserial',
    '-CAserial',
    join(dir, 'ca.srl'),
    '-days',
    '1',
    '-out',
    'user.crt',
  ]);
  const admin = parseYaml(readFileSync(clusterKubeconfig, 'utf8')) as {
    clusters: { cluster: { server: string } }[];
  };
  const file = join(dir, 'kubeconfig');
  writeFileSync(
    file,
    stringifyYaml({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'c',
          cluster: {
            server: admin.clusters[0]?.cluster.server,
            'certificate-authority': join(pki, 'ca.crt'),
          },
        },
      ],
      users: [
        {
          name: user,
          user: { 'client-certificate': join(dir, 'user.crt'), 'client-key': join(dir, 'user.key') },
        },
      ],
      contexts: [{ name: 'c', context: { cluster: 'c', user } }],
      'current-context': 'c',
    }),
  );
  return file;
}

export const krtAs = (kubeconfig: string, args: string[]) => {
  const r = spawnSync(join(repoRoot, 'bin', 'krt'), args, {
    encoding: 'utf8',
    env: { ...process.env, KUBECONFIG: kubeconfig },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};

export function krtBackgroundAs(kubeconfig: string, args: string[]) {
  let stdout = '';
  const p = spawn(join(repoRoot, 'bin', 'krt'), args, { env: { ...process.env, KUBECONFIG: kubeconfig } });
  p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  const done = new Promise<{ status: number | null; stdout: string }>((resolve) =>
    p.on('close', (status) => resolve({ status, stdout })),
  );
  return { output: () => stdout, done };
}
