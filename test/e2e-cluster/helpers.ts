// Helpers of the one-node cluster suites: waiting on state, users with client certificates, krt as them.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { repoRoot } from '../harness/paths.js';
import { ck, ckAsync, clusterEnv, clusterKubeconfig, clusterState } from '../harness/node-cluster.js';

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

/**
 * Starts the one-node cluster of test/cluster (up.sh) unless another one is given
 * (KRT_CLUSTER_KUBECONFIG, make kind-e2e). True when this call started it (so it stops it too).
 */
export function startCluster(): boolean {
  if (process.env.KRT_CLUSTER_KUBECONFIG) return false;
  const up = spawnSync('bash', [join(repoRoot, 'test', 'cluster', 'up.sh')], { encoding: 'utf8' });
  process.stderr.write(up.stderr);
  // The reason, in the failure itself: a CI log keeps the failures and may cut the output before them.
  const why = up.stderr.trim().split('\n').slice(-5).join('\n');
  if (up.status !== 0) throw new Error(`the one-node cluster did not start (exit ${up.status}):\n${why}`);
  return !up.stderr.includes('already running');
}

export function stopCluster(): void {
  spawnSync('bash', [join(repoRoot, 'test', 'cluster', 'down.sh')], { stdio: 'inherit' });
}

/** A run only the webhook refuses: admission answers through the install once it is refused. */
export const invalidRun = {
  apiVersion: 'kruntimes.io/v1alpha1',
  kind: 'WorkflowRun',
  metadata: { name: 'invalid', namespace: 'default' },
  // Well-formed to the CRD schema; only the webhook knows that the job it needs does not exist.
  spec: {
    jobs: { deploy: { needs: ['build'], 'runs-on': 'bash', steps: [{ name: 's', run: 'true' }] } },
  },
};

/** Deploys an overlay as a user does (make deploy) and waits until admission answers through it. */
export async function deploy(path: string, namespace: string): Promise<void> {
  const r = spawnSync(join(repoRoot, 'tools', 'deploy.sh'), [path], {
    encoding: 'utf8',
    env: { ...process.env, KUBECTL: join(clusterState, 'bin', 'kubectl'), KUBECONFIG: clusterKubeconfig },
  });
  if (r.status !== 0) throw new Error(`tools/deploy.sh: ${r.stderr}`);
  const w = ck([
    'wait',
    '-n',
    namespace,
    '--for=condition=Available',
    'deployment',
    '--all',
    '--timeout=240s',
  ]);
  if (w.status !== 0)
    throw new Error(
      `the Deployments are not Available: ${w.stderr}\n${ck(['get', 'pods', '-n', namespace, '-o', 'wide']).stdout}`,
    );
  // Ready Pods reach the Service only once their EndpointSlice is made and kube-proxy has
  // programmed it; until then the API server's calls are refused.
  let last = '';
  await until('admission through the webhook Service', 120, () => {
    last = ck(['create', '--dry-run=server', '-f', '-'], JSON.stringify(invalidRun)).stderr;
    return last.includes('denied the request');
  }).catch((e: unknown) => {
    throw new Error(`${String(e)} (last: ${last})`);
  });
}

/** Where the cluster suites' container steps run. */
export const NS = 'default';
/** `kubectl get` of the Pod executor's own Pods. */
export const EXECUTOR_PODS = ['get', 'pods', '-n', 'kruntimes-system', '-l', 'kruntimes.io/executor=pod'];
export const step = () => clusterEnv('STEP_IMAGE') ?? '';

export const workflowRun = (name: string, jobs: Record<string, unknown>) => ({
  apiVersion: 'kruntimes.io/v1alpha1',
  kind: 'WorkflowRun',
  metadata: { name, namespace: NS },
  spec: { jobs },
});
export const podJob = (steps: object[], extra: object = {}) => ({ 'runs-on': 'kubernetes', steps, ...extra });

/** The uids of the Pods the Events of `pod` (a step Pod's name) speak of: one step, one Pod. */
export async function podUids(pod: string): Promise<Set<string>> {
  const r = await ckAsync([
    'get',
    'events',
    '-n',
    NS,
    '--field-selector',
    `involvedObject.name=${pod}`,
    '-o',
    'json',
  ]);
  if (r.status !== 0) throw new Error(`kubectl get events: ${r.stderr}`);
  const events = JSON.parse(r.stdout) as { items: { involvedObject: { kind: string; uid?: string } }[] };
  return new Set(
    events.items.filter((e) => e.involvedObject.kind === 'Pod').map((e) => e.involvedObject.uid ?? ''),
  );
}
