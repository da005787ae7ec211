// krt end to end: the samples through the real API server, webhook, controller and runtimed, and
// runtimed's log endpoint behind the API server's authentication and authorization.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { eventually, testCluster, type TestCluster } from '../harness/cluster.js';
import { kubectl } from '../harness/kubectl.js';
import { repoRoot, stateDir } from '../harness/paths.js';
import { krt, krtAs, krtBackground } from '../harness/krt.js';
import { runName } from '../../src/names.js';

/** One GET over HTTPS trusting the local CA. */
function get(url: string, token?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      url,
      {
        ca: readFileSync(join(stateDir, 'pki', 'ca.crt')),
        headers: token ? { authorization: `Bearer ${token}` } : {},
      },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
  });
}

/** A loopback port that was free a moment ago: nothing listens there. */
function closedPort(): Promise<number> {
  return new Promise<number>((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

let c: TestCluster;
let release = '';
beforeAll(async () => {
  c = await testCluster('e2e-krt');
  kubectl(['apply', '-n', c.namespace, '-k', join(repoRoot, 'config/samples')]);
  const t = await krt(c, 'workflow', 'trigger', 'release', '--wait');
  expect(t.status).toBe(0);
  release = t.stdout.split('\n')[0] ?? '';
});
afterAll(async () => {
  await c?.cleanup();
});

describe('the samples', () => {
  it('trigger --wait prints the run name and its outputs and shows progress per job', async () => {
    expect(release).toMatch(/^release-[a-z0-9]{5}$/);
    // Re-run to see the progress lines, which go to stderr.
    const t = await krt(c, 'wf', 'trigger', 'release', '--wait');
    expect(t.status).toBe(0);
    expect(t.stdout.split('\n').slice(1)).toEqual(['endpoint=https://staging.example.com', '']);
    expect(t.stderr).toMatch(/deploy\/verify\/smoke: Succeeded/);
    expect(t.stderr).toMatch(/: Succeeded\n$/);
  });

  it('workflowrun get draws the nested tree with phases and outputs', async () => {
    const g = await krt(c, 'wfr', 'get', release);
    expect(g.status).toBe(0);
    const lines = g.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      new RegExp(`^${release}  Succeeded  \\d+s  endpoint=https://staging.example.com$`),
    );
    const shape = lines.map((l) => l.replace(/ {2}\d+s/g, '').replace(new RegExp(release, 'g'), 'R'));
    expect(shape).toEqual([
      'R  Succeeded  endpoint=https://staging.example.com',
      '├─ build  Succeeded  environment=staging',
      '│  └─ step package  Succeeded',
      '├─ deploy  Succeeded  endpoint=https://staging.example.com',
      '│  └─ R-call-deploy  Succeeded  endpoint=https://staging.example.com',
      '│     ├─ apply  Succeeded  endpoint=https://staging.example.com',
      '│     │  └─ step deploy  Succeeded',
      '│     └─ verify  Succeeded  endpoint=https://staging.example.com',
      '│        └─ R-call-deploy-call-verify  Succeeded  endpoint=https://staging.example.com',
      '│           └─ smoke  Succeeded  endpoint=https://staging.example.com',
      '│              └─ step check  Succeeded',
      '└─ notify  Succeeded',
      '   └─ step send  Succeeded',
    ]);
  });

  it('-o json and -o yaml print the objects', async () => {
    const j = await krt(c, 'wfr', 'get', release, '-o', 'json');
    expect(JSON.parse(j.stdout)).toMatchObject({
      kind: 'WorkflowRun',
      metadata: { name: release },
      status: { phase: 'Succeeded' },
    });
    const y = await krt(c, 'run', 'list', '--workflowrun', release, '-o', 'yaml');
    expect(y.stdout).toContain('kind: List');
    expect(y.stdout).toContain(`name: ${release}-notify-send`);
    const bad = await krt(c, 'wfr', 'list', '-o', 'xml');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("argument 'xml' is invalid. Allowed choices are table, yaml, json.");
  });

  it('workflowrun list shows root runs; --all adds the child runs', async () => {
    const l = await krt(c, 'wfr', 'list');
    expect(l.stdout.split('\n')[0]).toMatch(
      /^NAME\s+WORKFLOW\s+PHASE\s+PROGRESS\s+DURATION\s+AGE\s+MESSAGE$/,
    );
    expect(l.stdout).toMatch(new RegExp(`^${release}\\s+release\\s+Succeeded\\s+3/3`, 'm'));
    expect(l.stdout).not.toContain(`${release}-call-deploy`);
    expect((await krt(c, 'wfr', 'list', '--all')).stdout).toContain(`${release}-call-deploy-call-verify`);
  });

  it('workflowrun logs prints every step in order across the tree, prefixed with job and step', async () => {
    const l = await krt(c, 'wfr', 'logs', release);
    expect(l.status).toBe(0);
    expect(l.stdout).toBe(
      [
        'build:package | packaging',
        'deploy/apply:deploy | deploying to staging',
        'deploy/verify/smoke:check | smoke-testing https://staging.example.com',
        'notify:send | released to https://staging.example.com',
        '',
      ].join('\n'),
    );
  });

  it('run list, get and logs', async () => {
    const l = await krt(c, 'run', 'list', '--workflowrun', release);
    expect(
      l.stdout
        .trimEnd()
        .split('\n')
        .map((x) => x.split(/\s+/).slice(0, 6)),
    ).toEqual([
      ['NAME', 'JOB', 'STEP', 'PHASE', 'EXIT', 'AGENT'],
      [`${release}-build-package`, 'build', 'package', 'Succeeded', '0', 'local-runtimed'],
      [`${release}-notify-send`, 'notify', 'send', 'Succeeded', '0', 'local-runtimed'],
    ]);
    const g = await krt(c, 'run', 'get', `${release}-notify-send`);
    expect(g.stdout).toMatch(/^Phase:\s+Succeeded$/m);
    expect(g.stdout).toMatch(/^Exit code:\s+0$/m);
    expect(g.stdout).toContain('Log tail:\n  released to https://staging.example.com');
    expect((await krt(c, 'run', 'logs', `${release}-notify-send`)).stdout).toBe(
      'released to https://staging.example.com\n',
    );
  });

  it('workflow get and list', async () => {
    const g = await krt(c, 'wf', 'get', 'deploy-workflow');
    expect(g.stdout).toContain('  environment (required)');
    expect(g.stdout).toContain('  verify needs apply -> calls verify-workflow');
    expect((await krt(c, 'wf', 'list')).stdout).toMatch(/^release\s+True\s+3\s+-\s+endpoint\s/m);
  });
});

describe('following and cancelling', () => {
  const apply = (name: string, script: string, runsOn = 'bash') =>
    kubectl(
      ['apply', '-n', c.namespace, '-f', '-'],
      JSON.stringify({
        apiVersion: 'kruntimes.io/v1alpha1',
        kind: 'Workflow',
        metadata: { name },
        spec: { jobs: { work: { 'runs-on': runsOn, steps: [{ name: 'main', run: script }] } } },
      }),
    );

  it('logs -f prints lines while the step runs and returns when the run ends', async () => {
    apply('ticker', 'for i in 1 2 3; do echo "tick $i"; sleep 0.5; done');
    const name = (await krt(c, 'wf', 'trigger', 'ticker')).stdout.trim();
    const f = await krt(c, 'wfr', 'logs', name, '-f');
    expect(f.status).toBe(0);
    expect(f.stdout).toBe('work:main | tick 1\nwork:main | tick 2\nwork:main | tick 3\n');
  });

  it('watch shows the running step; cancel --wait ends Cancelled with exit 1', async () => {
    apply('sleeper', 'sleep 60');
    const name = (await krt(c, 'wf', 'trigger', 'sleeper')).stdout.trim();
    const watching = krtBackground(c, 'wfr', 'watch', name);
    await eventually(
      async () => watching.output().includes('work: Running (step main)'),
      20_000,
      'watch to show the running step',
    );
    const cancel = await krt(c, 'wfr', 'cancel', name, '--wait');
    expect(cancel.status).toBe(1);
    expect(cancel.stdout).toContain(`workflowrun/${name} cancel requested`);
    expect(cancel.stderr).toContain(`${name}: Cancelled`);
    const w = await watching.done;
    expect(w.status).toBe(1);
    expect(w.stderr).toContain('work: Running (step main)');
    expect(w.stderr).toContain('work: Cancelled');
  });

  it('cancel --wait ends a run whose step no agent serves, within 10 s', async () => {
    apply('nowhere', 'true', 'nosuch');
    const name = (await krt(c, 'wf', 'trigger', 'nowhere')).stdout.trim();
    await eventually(
      async () => (await krt(c, 'wfr', 'get', name)).stdout.includes('NoAgent'),
      20_000,
      'the run to say that no agent serves its step',
    );
    const cancel = krtBackground(c, 'wfr', 'cancel', name, '--wait');
    let ended: Awaited<typeof cancel.done> | undefined;
    void cancel.done.then((r) => (ended = r));
    await eventually(
      async () => ended !== undefined,
      10_000,
      () => `cancel --wait to end (so far: ${cancel.output()})`,
    );
    expect(ended?.status).toBe(1);
    expect(ended?.stderr).toContain(`${name}: Cancelled`);
    const step = JSON.parse(
      kubectl(['get', 'run', runName(name, 'work', 'main', 1), '-n', c.namespace, '-o', 'json']).stdout,
    ) as { status?: { phase?: string; message?: string } };
    expect(step.status).toMatchObject({
      phase: 'Cancelled',
      message: `cancelled before it started: no runtimed serves runtime "nosuch" in namespace "${c.namespace}"`,
    });
  });
});

describe('clear one-line errors', () => {
  it.each([
    [['wf', 'trigger', 'nope'], 2, 'krt: workflow "nope" not found in namespace'],
    [['wfr', 'get', 'nope'], 2, 'krt: workflowrun "nope" not found in namespace'],
    [['run', 'logs', 'nope'], 2, 'krt: run "nope" not found in namespace'],
    [['wf', 'trigger', 'release', '--input', 'novalue'], 2, 'krt: --input: "novalue" is not key=value'],
    [['wf', 'trigger', 'release', '--input', 'color=red'], 2, 'color'],
    [['wf', 'trigger', 'deploy-workflow'], 2, 'environment'],
  ])('krt %j exits %i with %j', async (args, code, text) => {
    const r = await krt(c, ...args);
    expect(r.status).toBe(code);
    expect(r.stderr).toContain(text);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('no kubeconfig and an unreachable cluster', async () => {
    const none = await krtAs(
      c,
      { kubeconfig: '', env: { KUBECONFIG: '', HOME: mkdtempSync(join(tmpdir(), 'krt-home-')) } },
      'wfr',
      'list',
    );
    expect(none.stderr).toBe('krt: no kubeconfig: set KUBECONFIG or pass --kubeconfig\n');
    expect(none.status).toBe(2);
    const file = join(mkdtempSync(join(tmpdir(), 'krt-kc-')), 'kubeconfig');
    const closed = await closedPort();
    writeFileSync(
      file,
      `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:${closed}", insecure-skip-tls-verify: true}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n`,
    );
    const down = await krtAs(c, { kubeconfig: file }, 'wfr', 'list');
    expect(down.status).toBe(1);
    expect(down.stderr).toMatch(/^krt: cannot reach the cluster: .*ECONNREFUSED.*\n$/);
  });
});

describe('kubeconfig as kubectl reads it', () => {
  const admin = readFileSync(join(stateDir, 'kubeconfig'), 'utf8');
  const adminContext = (parseYaml(admin) as { 'current-context': string })['current-context'];
  /** A kubeconfig whose current context points at a loopback port where nothing listens. */
  async function brokenFirst(): Promise<string> {
    const file = join(mkdtempSync(join(tmpdir(), 'krt-kc-')), 'first');
    const closed = await closedPort();
    writeFileSync(
      file,
      `apiVersion: v1\nkind: Config\nclusters: [{name: nowhere, cluster: {server: "https://127.0.0.1:${closed}", insecure-skip-tls-verify: true}}]\nusers: [{name: nobody, user: {token: t}}]\ncontexts: [{name: broken, context: {cluster: nowhere, user: nobody}}]\ncurrent-context: broken\n`,
    );
    return file;
  }

  it('merges the files of KUBECONFIG (the first current-context wins) and takes --context', async () => {
    const env = { KUBECONFIG: `${await brokenFirst()}:${join(stateDir, 'kubeconfig')}` };
    const first = await krtAs(c, { kubeconfig: '', env }, 'wfr', 'list');
    expect(first.stderr).toMatch(/^krt: cannot reach the cluster: .*ECONNREFUSED/);
    const chosen = await krtAs(c, { kubeconfig: '', env }, '--context', adminContext, 'wfr', 'get', release);
    expect(chosen.stderr).toBe('');
    expect(chosen.status).toBe(0);
    expect(chosen.stdout).toContain(release);
  });

  it('says which context is missing', async () => {
    const r = await krtAs(
      c,
      { kubeconfig: join(stateDir, 'kubeconfig') },
      '--context',
      'nope',
      'wfr',
      'list',
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('context "nope" is not in the kubeconfig');
  });
});

describe('following a run', () => {
  /** LIST requests for WorkflowRuns the API server has served, from its own metrics. */
  const lists = () =>
    kubectl(['get', '--raw', '/metrics'])
      .stdout.split('\n')
      .filter(
        (l) =>
          l.startsWith('apiserver_request_total{') &&
          l.includes('resource="workflowruns"') &&
          l.includes('verb="LIST"'),
      )
      .reduce((n, l) => n + Number(l.split(' ').pop()), 0);

  it('watches instead of listing the namespace again and again', async () => {
    const name = `slow-${Date.now().toString(36)}`;
    const r = kubectl(
      ['create', '-n', c.namespace, '-f', '-'],
      JSON.stringify({
        apiVersion: 'kruntimes.io/v1alpha1',
        kind: 'WorkflowRun',
        metadata: { name },
        // Long enough that a follower listing every 500 ms would list a dozen times.
        spec: { jobs: { a: { 'runs-on': 'bash', steps: [{ name: 's', run: 'sleep 6' }] } } },
      }),
    );
    expect(r.stderr).toBe('');
    const before = lists();
    const watched = await krt(c, 'wfr', 'watch', name);
    expect([watched.status, watched.stderr.trim().split('\n').pop()]).toEqual([0, `${name}: Succeeded`]);
    // One read of the tree, then one list to start the watch (a relist after a broken watch would
    // add one more); listing every 500 ms would have made a dozen.
    expect(lists() - before).toBeLessThanOrEqual(3);
  });
});

describe("runtimed's log endpoint", () => {
  it('serves a Run log only to callers the API server authenticates and authorizes', async () => {
    const ports = Object.fromEntries(
      readFileSync(join(stateDir, 'ports.env'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.split('=')),
    ) as Record<string, string>;
    const url = `https://127.0.0.1:${ports.RUNTIMED_PORT}`;
    kubectl(['create', 'serviceaccount', 'reader', '-n', c.namespace]);
    const token = kubectl(['create', 'token', 'reader', '-n', c.namespace]).stdout.trim();
    const kc = join(mkdtempSync(join(tmpdir(), 'krt-sa-')), 'kubeconfig');
    const admin = readFileSync(join(stateDir, 'kubeconfig'), 'utf8');
    writeFileSync(
      kc,
      admin.replace(/client-certificate-data: .*\n\s*client-key-data: .*\n/, `token: ${token}\n`),
    );
    const env = { KRT_RUNTIMED_URL: url, NODE_EXTRA_CA_CERTS: join(stateDir, 'pki', 'ca.crt') };
    const run = `${release}-notify-send`;

    const anonymous = await krtAs(c, { kubeconfig: kc, env: { ...env } }, 'run', 'logs', run);
    // The service account may not even read the Run yet: the API server says so.
    expect(anonymous.status).toBe(1);
    expect(anonymous.stderr).toContain('forbidden');
    kubectl([
      'create',
      'role',
      'run-reader',
      '-n',
      c.namespace,
      '--verb=get',
      '--resource=runs.kruntimes.io',
    ]);
    kubectl([
      'create',
      'rolebinding',
      'run-reader',
      '-n',
      c.namespace,
      '--role=run-reader',
      `--serviceaccount=${c.namespace}:reader`,
    ]);
    const forbidden = await krtAs(c, { kubeconfig: kc, env }, 'run', 'logs', run);
    expect(forbidden.status).toBe(1);
    expect(forbidden.stderr).toContain(
      `403 system:serviceaccount:${c.namespace}:reader cannot get runs/log in namespace "${c.namespace}"`,
    );
    kubectl([
      'create',
      'role',
      'log-reader',
      '-n',
      c.namespace,
      '--verb=get',
      '--resource=runs.kruntimes.io/log',
    ]);
    kubectl([
      'create',
      'rolebinding',
      'log-reader',
      '-n',
      c.namespace,
      '--role=log-reader',
      `--serviceaccount=${c.namespace}:reader`,
    ]);
    let allowed = await krtAs(c, { kubeconfig: kc, env }, 'run', 'logs', run);
    // The API server's authorizer sees the new RoleBinding a moment later.
    await eventually(
      async () => (allowed = await krtAs(c, { kubeconfig: kc, env }, 'run', 'logs', run)).status === 0,
      10_000,
      'the RoleBinding to take effect',
    );
    expect(allowed.stderr).toBe('');
    expect(allowed.stdout).toBe('released to https://staging.example.com\n');
    // Straight to the endpoint: no token is 401, a token the API server does not know is 401 too.
    expect(await get(`${url}/namespaces/${c.namespace}/runs/${run}/log`)).toEqual({
      status: 401,
      body: 'a bearer token is required\n',
    });
    expect(await get(`${url}/namespaces/${c.namespace}/runs/${run}/log`, 'not-a-token')).toEqual({
      status: 401,
      body: 'the token was not accepted by the API server\n',
    });
    expect(await get(`${url}/namespaces/${c.namespace}/runs/${run}/log`, token)).toEqual({
      status: 200,
      body: 'released to https://staging.example.com\n',
    });
    // The route agents fetch each other's logs by takes only a token bound to the peers' audience,
    // one that the API server itself refuses for anything else.
    const peer = `${url}/peer/namespaces/${c.namespace}/runs/${run}/log`;
    const peerToken = kubectl([
      'create',
      'token',
      'reader',
      '-n',
      c.namespace,
      '--audience=logs.kruntimes.io/peers',
    ]).stdout.trim();
    expect(await get(peer, token)).toEqual({
      status: 401,
      body: 'the token was not accepted by the API server for the audience logs.kruntimes.io/peers\n',
    });
    expect(await get(peer, peerToken)).toEqual({
      status: 200,
      body: 'released to https://staging.example.com\n',
    });
    expect(await get(`${url}/namespaces/${c.namespace}/runs/${run}/log`, peerToken)).toEqual({
      status: 401,
      body: 'the token was not accepted by the API server\n',
    });
  });
});
