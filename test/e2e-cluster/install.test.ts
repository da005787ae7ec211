// The install path on a real one-node cluster (test/cluster/up.sh): config/default deployed as a
// user would (test/e2e-cluster/overlay only never pulls the image), then used and uninstalled.
// The API server calls the webhook through its Service, cert-manager issues and rotates its
// certificate, the bash agent runs the samples' steps in its Pod, the Pod executor runs container
// steps as Pods (./pod-runtime.ts), and `kubectl delete -k` leaves nothing.
import { jest } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';
import { join } from 'node:path';
import { LABEL_WORKFLOWRUN_UID } from '../../src/labels.js';
import { repoRoot } from '../harness/paths.js';
import { ck, ckAsync, ckJson, krt } from '../harness/node-cluster.js';
import {
  deploy,
  invalidRun,
  krtAs,
  krtBackgroundAs,
  startCluster,
  stopCluster,
  until,
  userKubeconfig,
} from './helpers.js';
import { podRuntimeTests } from './pod-runtime.js';
import { podChurnTests } from './pod-churn.js';

const overlay = join(repoRoot, 'test', 'e2e-cluster', 'overlay');
const ns = 'kruntimes-system';

jest.setTimeout(300_000);

interface Pod {
  metadata: { name: string; labels: Record<string, string> };
  status: {
    conditions?: { type: string; status: string }[];
    containerStatuses?: { ready: boolean; restartCount: number }[];
  };
  spec: { containers: { readinessProbe?: unknown; livenessProbe?: unknown }[] };
}
/** The controller replica holding the leader Lease. */
const leaseHolder = () =>
  ckJson<{ spec: { holderIdentity: string } }>(['get', 'lease', '-n', ns, 'kruntimes-controller']).spec
    .holderIdentity;
const pods = () => ckJson<{ items: Pod[] }>(['get', 'pods', '-n', ns]).items;

/** The certificate a TLS server presents (the webhook, through its Service's cluster IP). */
function servedCertificate(host: string, port: number): Promise<X509Certificate> {
  return new Promise((resolve, reject) => {
    const s = connect(
      { host, port, rejectUnauthorized: false, servername: 'kruntimes-webhook.kruntimes-system.svc' },
      () => {
        const raw = s.getPeerCertificate().raw;
        s.end();
        resolve(new X509Certificate(raw));
      },
    );
    s.on('error', reject);
  });
}
const secretCertificate = (name: string) =>
  new X509Certificate(
    Buffer.from(
      ckJson<{ data: Record<string, string> }>(['get', 'secret', '-n', ns, name]).data['tls.crt'] ?? '',
      'base64',
    ),
  );

const oneStep = (name: string, run: string) => ({
  apiVersion: 'kruntimes.io/v1alpha1',
  kind: 'WorkflowRun',
  metadata: { name, namespace: 'default' },
  spec: { jobs: { a: { 'runs-on': 'bash', steps: [{ name: 's', run }] } } },
});

/** The Runs of a WorkflowRun (by its uid label). */
function runsOf(workflowRun: string): { metadata: { name: string }; status?: { phase?: string } }[] {
  const uid = ckJson<{ metadata: { uid: string } }>(['get', '-n', 'default', 'workflowrun', workflowRun])
    .metadata.uid;
  return ckJson<{ items: { metadata: { name: string }; status?: { phase?: string } }[] }>([
    'get',
    '-n',
    'default',
    'runs',
    '-l',
    `${LABEL_WORKFLOWRUN_UID}=${uid}`,
  ]).items;
}

/** The Run of a one-step WorkflowRun: its name and phase ('' while there is none). */
function runOf(workflowRun: string): { name: string; phase: string } {
  const [run] = runsOf(workflowRun);
  return { name: run?.metadata.name ?? '', phase: run?.status?.phase ?? '' };
}

/** Applies the samples and runs the release Workflow to Succeeded; its WorkflowRun's name. */
function releaseSucceeds(): string {
  expect(ck(['apply', '-n', 'default', '-k', join(repoRoot, 'config', 'samples')]).status).toBe(0);
  expect(
    ck(['wait', '-n', 'default', '--for=condition=Ready', '--timeout=60s', 'workflow/release']).status,
  ).toBe(0);
  const trigger = krt(['-n', 'default', 'workflow', 'trigger', 'release']);
  expect(trigger.stderr).toBe('');
  const name = trigger.stdout.trim();
  // watch follows the tree on stderr and exits 0 once the run Succeeded.
  const watched = krt(['-n', 'default', 'workflowrun', 'watch', name]);
  expect([watched.status, watched.stderr.trim().split('\n').pop()]).toEqual([0, `${name}: Succeeded`]);
  return name;
}

/** Logs the runtimed Pods served through the API server, from `from` (their metrics). */
function logRequests(from: 'here' | 'peer'): number {
  return ckJson<{ items: { metadata: { name: string } }[] }>([
    'get',
    'pods',
    '-n',
    ns,
    '-l',
    'app.kubernetes.io/component=runtimed',
  ]).items.reduce((sum, p) => {
    const metrics = ck([
      'get',
      '--raw',
      `/api/v1/namespaces/${ns}/pods/${p.metadata.name}:8080/proxy/metrics`,
    ]).stdout;
    const line = metrics
      .split('\n')
      .find((l) => l.startsWith(`krt_runtimed_log_requests_total{via="api",from="${from}"}`));
    return sum + Number(line?.split(' ').pop() ?? 0);
  }, 0);
}

// The cluster runs only while this suite does (not from jest's global setup), so its node, its
// control plane and its Pods do not load the two cores while the other suites run.
let startedCluster = false;
beforeAll(() => {
  startedCluster = startCluster();
}, 1_800_000);
afterAll(() => {
  if (startedCluster && !process.env.KRT_KEEP_CLUSTER) stopCluster();
}, 120_000);

/** Uninstalls an overlay and checks that nothing of kruntimes is left. */
async function uninstall(path: string, namespace: string): Promise<void> {
  const r = ck(['delete', '-k', path, '--wait=true', '--timeout=180s']);
  expect(r.stderr).toBe('');
  await until('the namespace gone', 180, () => ck(['get', 'namespace', namespace]).status !== 0);
  const left = ck([
    'get',
    'crd,clusterrole,clusterrolebinding,validatingwebhookconfiguration,mutatingwebhookconfiguration,validatingadmissionpolicy,validatingadmissionpolicybinding,apiservice,rolebinding,role',
    '-A',
    '-o',
    'name',
  ])
    .stdout.split('\n')
    .filter((l) => /kruntimes/.test(l));
  expect(left).toEqual([]);
}

describe('install on a one-node cluster', () => {
  beforeAll(() => deploy(overlay, ns));

  it('runs every Pod Ready with its probes on, and none restarted', () => {
    const all = pods();
    const byComponent = (c: string) =>
      all.filter((p) => p.metadata.labels['app.kubernetes.io/component'] === c);
    // runtimed twice: the Pod executor and the bash agent, two replicas each.
    for (const c of ['webhook', 'controller']) expect(byComponent(c)).toHaveLength(2);
    expect(byComponent('runtimed')).toHaveLength(4);
    for (const p of all) {
      expect([p.metadata.name, p.status.conditions?.find((c) => c.type === 'Ready')?.status]).toEqual([
        p.metadata.name,
        'True',
      ]);
      for (const c of p.spec.containers) {
        expect(c.readinessProbe).toBeDefined();
        expect(c.livenessProbe).toBeDefined();
      }
      expect([p.metadata.name, p.status.containerStatuses?.map((s) => s.restartCount)]).toEqual([
        p.metadata.name,
        [0],
      ]);
    }
  });

  it("puts a NetworkPolicy in front of the webhook's Pods, naming ports their container has", () => {
    const policy = ckJson<{
      spec: {
        podSelector: { matchLabels: Record<string, string> };
        ingress: { ports: { port: string }[] }[];
      };
    }>(['get', 'networkpolicy', '-n', ns, 'kruntimes-webhook']);
    const selector = Object.entries(policy.spec.podSelector.matchLabels)
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    const selected = ckJson<{ items: { spec: { containers: { ports?: { name?: string }[] }[] } }[] }>([
      'get',
      'pods',
      '-n',
      ns,
      '-l',
      selector,
    ]).items;
    expect(selected).toHaveLength(2);
    const named = new Set(
      selected.flatMap((p) => p.spec.containers.flatMap((c) => (c.ports ?? []).map((x) => x.name))),
    );
    expect(
      policy.spec.ingress.flatMap((r) => r.ports.map((x) => x.port)).every((port) => named.has(port)),
    ).toBe(true);
  });

  it('has the API server call the webhook through its Service, with the CA cert-manager injected, and deny an invalid WorkflowRun', () => {
    const cfg = ckJson<{
      webhooks: {
        clientConfig: { service?: { name: string; namespace: string }; caBundle?: string; url?: string };
      }[];
    }>(['get', 'validatingwebhookconfiguration', 'kruntimes-validating']);
    for (const w of cfg.webhooks) {
      expect(w.clientConfig.service).toMatchObject({ name: 'kruntimes-webhook', namespace: ns });
      expect(w.clientConfig.url).toBeUndefined();
      const ca = new X509Certificate(Buffer.from(w.clientConfig.caBundle ?? '', 'base64'));
      expect(ca.subject).toContain('CN=kruntimes-ca');
    }
    const r = ck(['create', '-f', '-'], JSON.stringify(invalidRun));
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('admission webhook "validate.kruntimes.io" denied the request');
    expect(r.stderr).toContain('spec.jobs.deploy.needs');
  });

  it('runs the samples to Succeeded with the bash agent in a Pod', async () => {
    const name = releaseSucceeds();
    const run = ckJson<{ status: { phase: string; outputs?: Record<string, string> } }>([
      'get',
      '-n',
      'default',
      'workflowrun',
      name,
    ]);
    expect(run.status.phase).toBe('Succeeded');
    expect(run.status.outputs?.endpoint).toBe('https://staging.example.com');
    // The steps ran in the bash agent's Pods.
    // (Container steps of other tests may share the namespace: the bash ones are the samples'.)
    const runs = ckJson<{ items: { spec: { runtime: string }; status?: { assignedTo?: string } }[] }>([
      'get',
      '-n',
      'default',
      'runs',
    ]).items.filter((r) => r.spec.runtime === 'bash');
    expect(runs.length).toBeGreaterThan(0);
    for (const r of runs) expect(r.status?.assignedTo).toMatch(/^kruntimes-bash-agent-/);
  });

  it("runs no more bash steps at once than their scratch areas fit in the agent's memory", () => {
    const cpus = Number(
      ckJson<{ items: { status: { capacity: { cpu: string } } }[] }>(['get', 'nodes']).items[0]?.status
        .capacity.cpu,
    );
    // 4 GiB less the agent's 256 MiB, over two 256 MiB tmpfs a step: 7; or 4 a CPU if fewer.
    const expected = Math.min(4 * cpus, 7);
    const agents = ckJson<{ items: { metadata: { name: string } }[] }>([
      'get',
      'pods',
      '-n',
      ns,
      '-l',
      'kruntimes.io/executor=process',
    ]).items;
    expect(agents.length).toBeGreaterThan(0);
    for (const p of agents) {
      const metrics = ck([
        'get',
        '--raw',
        `/api/v1/namespaces/${ns}/pods/${p.metadata.name}:8080/proxy/metrics`,
      ]).stdout;
      expect(metrics.split('\n').find((l) => l.startsWith('krt_runtimed_concurrency '))).toBe(
        `krt_runtimed_concurrency ${expected}`,
      );
    }
  });

  it('keeps admission answering while cert-manager renews the serving certificate', async () => {
    const svc = ckJson<{ spec: { clusterIP: string } }>(['get', 'service', '-n', ns, 'kruntimes-webhook'])
      .spec.clusterIP;
    const before = secretCertificate('kruntimes-webhook-cert');
    const caBefore = ckJson<{ webhooks: { clientConfig: { caBundle: string } }[] }>([
      'get',
      'validatingwebhookconfiguration',
      'kruntimes-validating',
    ]).webhooks[0]?.clientConfig.caBundle;
    // Admission asked over and over (a server-side dry run: the webhook answers, nothing is stored).
    const probe = JSON.stringify({
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'Workflow',
      metadata: { name: 'probe', namespace: 'default' },
      spec: { jobs: { a: { 'runs-on': 'bash', steps: [{ name: 's', run: 'true' }] } } },
    });
    let stop = false;
    const answers: { status: number | null; stderr: string }[] = [];
    const asking = (async () => {
      while (!stop) answers.push(await ckAsync(['create', '--dry-run=server', '-f', '-'], probe));
    })();
    // What `cmctl renew` does: the Issuing condition.
    const patch = ck([
      'patch',
      'certificate',
      '-n',
      ns,
      'kruntimes-webhook',
      '--subresource=status',
      '--type=json',
      '-p',
      JSON.stringify([
        {
          op: 'add',
          path: '/status/conditions/-',
          value: { type: 'Issuing', status: 'True', reason: 'ManuallyTriggered', message: 'e2e' },
        },
      ]),
    ]);
    expect(patch.stderr).toBe('');
    const after = await until('a new certificate in the Secret', 120, () => {
      const c = secretCertificate('kruntimes-webhook-cert');
      return c.serialNumber !== before.serialNumber && c;
    });
    // The kubelet updates the mounted Secret, and the webhook reloads it.
    await until('the webhook serving the new certificate', 240, async () => {
      const served = await servedCertificate(svc, 443).catch(() => undefined);
      return served?.serialNumber === after.serialNumber;
    });
    stop = true;
    await asking;
    expect(answers.length).toBeGreaterThan(10);
    expect(answers.filter((a) => a.status !== 0)).toEqual([]);
    // Signed by the same CA: the caBundle did not have to change.
    expect(after.checkIssued(new X509Certificate(Buffer.from(caBefore ?? '', 'base64')))).toBe(true);
    expect(
      ckJson<{ webhooks: { clientConfig: { caBundle: string } }[] }>([
        'get',
        'validatingwebhookconfiguration',
        'kruntimes-validating',
      ]).webhooks[0]?.clientConfig.caBundle,
    ).toBe(caBefore);
  });

  it('completes a run whose leading controller Pod is deleted in the middle of it', async () => {
    const wf = {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'Workflow',
      metadata: { name: 'two-steps', namespace: 'default' },
      spec: {
        jobs: {
          a: {
            'runs-on': 'bash',
            steps: [{ name: 's', run: 'sleep 8; echo "v=1" >> "$KRT_OUTPUT"' }],
            outputs: { v: '${{ steps.s.outputs.v }}' },
          },
          b: { needs: ['a'], 'runs-on': 'bash', steps: [{ name: 's', run: 'echo done' }] },
        },
      },
    };
    expect(ck(['apply', '-f', '-'], JSON.stringify(wf)).status).toBe(0);
    expect(
      ck(['wait', '-n', 'default', '--for=condition=Ready', '--timeout=60s', 'workflow/two-steps']).status,
    ).toBe(0);
    const name = krt(['-n', 'default', 'workflow', 'trigger', 'two-steps']).stdout.trim();
    expect(name).not.toBe('');
    await until('job a running', 60, () => runsOf(name).some((r) => r.status?.phase === 'Running'));
    const leader = leaseHolder();
    expect(leader).toMatch(/^kruntimes-controller-/);
    expect(ck(['delete', 'pod', '-n', ns, leader, '--wait=false']).status).toBe(0);
    const watched = krt(['-n', 'default', 'workflowrun', 'watch', name]);
    expect([watched.status, watched.stderr.trim().split('\n').pop()]).toEqual([0, `${name}: Succeeded`]);
    const newLeader = leaseHolder();
    expect(newLeader).not.toBe(leader);
  });

  it('serves step logs through the API server to a user with a client certificate, and to no one else', async () => {
    const reader = userKubeconfig('log-reader');
    const stranger = userKubeconfig('stranger');
    ck([
      'create',
      'rolebinding',
      'log-reader',
      '-n',
      'default',
      '--clusterrole=kruntimes-log-reader',
      '--user=log-reader',
    ]);
    await until('the logs API available', 120, () =>
      ckJson<{ status?: { conditions?: { type: string; status: string }[] } }>([
        'get',
        'apiservice',
        'v1alpha1.logs.kruntimes.io',
      ]).status?.conditions?.some((x) => x.type === 'Available' && x.status === 'True'),
    );
    // Four runs, each log more than the 4 KiB tail, spread over both agents.
    const names = [0, 1, 2, 3].map((i) => `logs-${i}-${Date.now().toString(36)}`);
    for (const name of names)
      expect(
        ck(['create', '-n', 'default', '-f', '-'], JSON.stringify(oneStep(name, 'seq 1 3000'))).stderr,
      ).toBe('');
    const expected = Array.from({ length: 3000 }, (_, i) => `${i + 1}\n`).join('');
    const fetchFull = (run: string) => {
      const r = krtAs(reader, ['-n', 'default', 'run', 'logs', run]);
      expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
      expect(r.stdout).toBe(expected);
    };
    for (const name of names) {
      expect(krt(['-n', 'default', 'workflowrun', 'watch', name]).status).toBe(0);
      fetchFull(runOf(name).name);
    }
    // The API server sends each request to either agent: one that did not run the step fetches
    // the log from the one that did. Asked until that has happened once (each time in full).
    let tries = 0;
    await until('a log fetched from the agent that holds it', 120, () => {
      fetchFull(runOf(names[tries++ % names.length] as string).name);
      return logRequests('peer') > 0;
    });
    // Followed while it runs: the first line arrives before the step ends, then the rest.
    const slow = `logs-slow-${Date.now().toString(36)}`;
    ck(
      ['create', '-n', 'default', '-f', '-'],
      JSON.stringify(oneStep(slow, 'echo first; sleep 8; echo second')),
    );
    const follow = krtBackgroundAs(reader, [
      '-n',
      'default',
      'run',
      'logs',
      '-f',
      (
        await until('the slow run', 60, () => {
          const r = runOf(slow);
          return r.name ? r : undefined;
        })
      ).name,
    ]);
    await until(
      'the first line while the step runs',
      60,
      () => follow.output().includes('first\n') && runOf(slow).phase === 'Running',
    );
    const done = await follow.done;
    expect({ status: done.status, stdout: done.stdout }).toEqual({ status: 0, stdout: 'first\nsecond\n' });
    // Someone who may read Runs but not their logs is refused the log.
    ck([
      'create',
      'role',
      'run-reader',
      '-n',
      'default',
      '--verb=get,list,watch',
      '--resource=runs.kruntimes.io',
    ]);
    ck(['create', 'rolebinding', 'stranger-runs', '-n', 'default', '--role=run-reader', '--user=stranger']);
    const refused = krtAs(stranger, ['-n', 'default', 'run', 'logs', runOf(names[0] as string).name]);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(
      /stranger.* cannot get (resource "runs\/log"|runs\/log in namespace "default")/,
    );
  });

  podRuntimeTests();
  podChurnTests();

  it('uninstalls with kubectl delete -k and leaves nothing behind', async () => {
    ck(['delete', '-n', 'default', 'workflowruns', '--all', '--wait=true', '--timeout=120s']);
    ck(['delete', '-n', 'default', '-k', join(repoRoot, 'config', 'samples'), '--ignore-not-found']);
    ck(['delete', '-n', 'default', 'workflow', 'two-steps', '--ignore-not-found']);
    await uninstall(overlay, ns);
  });
});

describe('install in another namespace (an overlay), used and uninstalled', () => {
  const elsewhere = join(repoRoot, 'test', 'e2e-cluster', 'overlay-elsewhere');
  const other = 'krt-elsewhere';
  beforeAll(() => deploy(elsewhere, other));
  afterAll(() => {
    ck(['delete', '-n', 'default', 'appconfig', '--all', '--ignore-not-found', '--timeout=120s']);
    ck([
      'delete',
      '-k',
      join(repoRoot, 'config', 'samples', 'promise'),
      '--ignore-not-found',
      '--timeout=120s',
    ]);
    ck(['delete', '-n', 'default', 'workflowruns', '--all', '--wait=true', '--timeout=120s']);
    ck(['delete', '-n', 'default', '-k', join(repoRoot, 'config', 'samples'), '--ignore-not-found']);
  });

  it("runs a workflow: its Runs are created by this install's controller and run by its runtimed", async () => {
    releaseSucceeds();
    // (Container steps of other tests may share the namespace: the bash ones are the samples'.)
    const runs = ckJson<{ items: { spec: { runtime: string }; status?: { assignedTo?: string } }[] }>([
      'get',
      '-n',
      'default',
      'runs',
    ]).items.filter((r) => r.spec.runtime === 'bash');
    expect(runs.length).toBeGreaterThan(0);
    for (const r of runs) expect(r.status?.assignedTo).toMatch(/^kruntimes-bash-agent-/);
    // The agent's presence Lease and the leader Lease live in the install's namespace.
    expect(ck(['get', 'lease', '-n', other, 'kruntimes-controller']).status).toBe(0);
  });

  it('runs a Promise: its API served, a resource configured by its pipelines', async () => {
    expect(ck(['apply', '-k', join(repoRoot, 'config', 'samples', 'promise')]).status).toBe(0);
    // The sample grants its Works' account in kruntimes-system; this install's accounts are in its
    // own namespace, as an operator who moved the install grants them (docs/install.md).
    const grant = [
      'create',
      'clusterrolebinding',
      'kruntimes-promise-app-config-works-elsewhere',
      '--clusterrole=kruntimes-promise-app-config-works',
      `--serviceaccount=${other}:kruntimes-promise-app-config`,
    ];
    expect(ck(grant).status).toBe(0);
    const available = ck(['wait', '--for=condition=Available', '--timeout=90s', 'promise/app-config']);
    expect(available.stderr).toBe('');
    const hello = join(repoRoot, 'config', 'samples', 'promise', 'appconfig.yaml');
    expect(ck(['apply', '-n', 'default', '-f', hello]).status).toBe(0);
    await until('appconfig/hello configured', 180, () => {
      const a = ckJson<{ status?: { kruntimes?: { workflows?: { phase?: string } } } }>([
        'get',
        '-n',
        'default',
        'appconfig',
        'hello',
      ]);
      return a.status?.kruntimes?.workflows?.phase === 'Succeeded';
    });
    expect(ck(['get', '-n', 'default', 'configmap', 'hello-config']).status).toBe(0);
  });

  it('uninstalls and leaves nothing behind', async () => {
    ck(['delete', '-n', 'default', 'appconfig', '--all', '--timeout=120s']);
    ck(['delete', '-k', join(repoRoot, 'config', 'samples', 'promise'), '--timeout=120s']);
    ck([
      'delete',
      'clusterrolebinding',
      'kruntimes-promise-app-config-works-elsewhere',
      '--ignore-not-found',
    ]);
    await uninstall(elsewhere, other);
  });
});
