// Tenancy that holds (issue "steps isolated from the agent and from each other"): a step's variables
// from Secrets of its namespace never enter a Run and are masked in its log; a Run asks for sandbox
// limits within the agent's ceiling; an agent writes only the status of the Runs it holds. Real API
// server, webhook, controller, runtimed, bubblewrap and bash.
import { createHash, randomBytes } from 'node:crypto';
import type { Run, WorkflowRun } from '../../src/api/types.js';
import { type Clients } from '../../src/kube/client.js';
import { crd } from '../../src/kube/rest.js';
import { AGENT_EXTRA } from '../../src/validate/run-status.js';
import { agentClients } from '../harness/agent.js';
import { rejection, testCluster, type TestCluster } from '../harness/cluster.js';
import { krt } from '../harness/krt.js';
import { createRun, getRun, patchRun, runInPhase, workflowRunInPhase } from '../harness/objects.js';

let c: TestCluster;
const password = `pa55-${randomBytes(8).toString('hex')}`;
const keyFile = `-----BEGIN KEY-----\n${randomBytes(24).toString('base64')}\n-----END KEY-----\n`;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

beforeAll(async () => {
  c = await testCluster('e2e-tenancy');
  await c.admin.core.createNamespacedSecret({
    namespace: c.namespace,
    body: { metadata: { name: 'db' }, stringData: { password, 'key.pem': keyFile } },
  });
});
afterAll(async () => {
  await c?.cleanup();
});

async function workflowRun(name: string, steps: object[]): Promise<void> {
  const body: WorkflowRun = {
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'WorkflowRun',
    metadata: { name },
    spec: { jobs: { main: { 'runs-on': 'bash', steps } } },
  } as WorkflowRun;
  await c.admin.custom.createNamespacedCustomObject({ ...crd('workflowruns', c.namespace), body });
}

describe('variables from Secrets (secretKeyRef)', () => {
  let run: Run;
  beforeAll(async () => {
    await workflowRun('secret', [
      {
        name: 'use',
        env: { DB_HOST: 'db.internal' },
        secretEnv: { DB_PASSWORD: { name: 'db', key: 'password' }, KEY: { name: 'db', key: 'key.pem' } },
        run: [
          'echo "connecting to $DB_HOST with $DB_PASSWORD"',
          'echo "digest=$(printf %s "$DB_PASSWORD" | sha256sum | cut -d" " -f1)" >> "$KRT_OUTPUT"',
          'echo "leak=$DB_PASSWORD" >> "$KRT_OUTPUT"',
          'echo "message: password $DB_PASSWORD" >> "$KRT_STATUS"',
          // One value written in two pieces, and a key file line by line.
          'printf %s "${DB_PASSWORD:0:6}"; printf "%s\\n" "${DB_PASSWORD:6}"',
          'printf "%s" "$KEY" | while read -r line; do echo "key: $line"; done',
        ].join('\n'),
      },
    ]);
    await workflowRunInPhase(c, 'secret', ['Succeeded', 'Failed'], 60_000);
    run = await getRun(c, 'secret-main-use');
  });

  it('the step reads the value', () => {
    expect(run.status?.phase).toBe('Succeeded');
    expect(run.status?.outputs?.digest).toBe(sha256(password));
  });

  it('the Run object carries only the reference', () => {
    expect(run.spec.env).toEqual([
      { name: 'DB_HOST', value: 'db.internal' },
      { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } },
      { name: 'KEY', valueFrom: { secretKeyRef: { name: 'db', key: 'key.pem' } } },
    ]);
    const text = JSON.stringify(run);
    expect(text).not.toContain(password);
    for (const line of keyFile.split('\n').filter((l) => l.length > 4)) expect(text).not.toContain(line);
  });

  it('logTail, outputs and status are masked', () => {
    const tail = run.status?.logTail ?? '';
    expect(tail).toContain('connecting to db.internal with ***\n');
    expect(tail.split('\n').filter((l) => l === '***')).toHaveLength(1);
    expect(tail).toContain('key: ***');
    expect(run.status?.outputs?.leak).toBe('***');
    expect(run.status?.stepStatus?.message ?? '').toBe('password ***');
  });

  it('the full log is masked', async () => {
    const logs = await krt(c, 'run', 'logs', 'secret-main-use');
    expect(logs.status).toBe(0);
    expect(logs.stdout).toContain('connecting to db.internal with ***');
    expect(logs.stdout).not.toContain(password);
    expect(logs.stdout).not.toContain(password.slice(6));
  });

  it('a missing Secret fails the step with SecretUnavailable; an optional one is left out', async () => {
    await workflowRun('missing', [
      { name: 'use', secretEnv: { X: { name: 'nope', key: 'k' } }, run: 'echo ran' },
    ]);
    await workflowRun('optional', [
      {
        name: 'use',
        secretEnv: {
          X: { name: 'nope', key: 'k', optional: true },
          Y: { name: 'db', key: 'nokey', optional: true },
        },
        run: 'test -z "${X+set}${Y+set}" && echo "unset=yes" >> "$KRT_OUTPUT"',
      },
    ]);
    const missing = await runInPhase(c, 'missing-main-use', ['Failed', 'Succeeded'], 60_000);
    expect(missing.status).toMatchObject({
      phase: 'Failed',
      reason: 'SecretUnavailable',
      message: 'env X: secret "nope" not found',
    });
    expect((await workflowRunInPhase(c, 'missing', ['Failed', 'Succeeded'], 30_000)).status?.phase).toBe(
      'Failed',
    );
    const optional = await runInPhase(c, 'optional-main-use', ['Failed', 'Succeeded'], 60_000);
    expect(optional.status?.outputs).toEqual({ unset: 'yes' });
  });

  it('a variable set both in env and secretEnv is refused at admission', async () => {
    const r = await rejection(
      workflowRun('both', [
        { name: 'use', env: { X: 'a' }, secretEnv: { X: { name: 'db', key: 'password' } }, run: 'true' },
      ]),
    );
    expect(r.message).toContain(
      'spec.jobs.main.steps[0].secretEnv.X: is also set in env: give it one source',
    );
  });
});

describe('limits asked by a Run', () => {
  it('apply within the agent ceiling; above it the ceiling applies and the log says so', async () => {
    await workflowRun('limits', [
      {
        name: 'within',
        limits: { processes: 37, openFiles: 200 },
        run: 'echo "procs=$(ulimit -u)" >> "$KRT_OUTPUT"; echo "files=$(ulimit -n)" >> "$KRT_OUTPUT"',
      },
      {
        name: 'above',
        limits: { openFiles: 1000000 },
        run: 'echo "files=$(ulimit -n)" >> "$KRT_OUTPUT"',
      },
    ]);
    const within = await runInPhase(c, 'limits-main-within', ['Succeeded', 'Failed'], 60_000);
    expect(within.spec.limits).toEqual({ processes: 37, openFiles: 200 });
    expect(within.status?.outputs).toEqual({ procs: '37', files: '200' });
    const above = await runInPhase(c, 'limits-main-above', ['Succeeded', 'Failed'], 60_000);
    // The local agent's ceiling is the documented default, 1024 open files.
    expect(above.status?.outputs).toEqual({ files: '1024' });
    expect(above.status?.logTail).toContain(
      "[runtimed: open files limit 1000000 asked; the agent's ceiling 1024 applies]",
    );
  });
});

describe('an agent writes the status of the Runs it holds only', () => {
  const as = agentClients;
  const status = (who: Clients, name: string, body: object) => patchRun(c, name, body, true, who);
  const ago = (s: number) => new Date(Date.now() - s * 1000).toISOString();
  // A runtime no agent serves: the Runs wait for the claims this test makes.
  const spec = { runtime: 'tenancy-nobody', script: 'true' };

  it('another agent can neither forge the result nor claim for someone else', async () => {
    const mallory = as('mallory');
    const eve = as('eve');
    await createRun(c, 'held', spec);
    await status(mallory, 'held', {
      status: { phase: 'Running', assignedTo: 'mallory', attempts: 1, heartbeatTime: ago(0) },
    });
    const forged = await rejection(
      status(eve, 'held', { status: { phase: 'Succeeded', outputs: { v: 'forged' } } }),
    );
    expect(forged.code).toBe(403);
    expect(forged.message).toContain(
      'Run "held": status: Run is held by agent "mallory": agent "eve" may not write its status',
    );
    const early = await rejection(status(eve, 'held', { status: { phase: 'Pending', assignedTo: null } }));
    // The local webhook's --run-stale-seconds.
    expect(early.message).toMatch(
      /whose last heartbeat is not \d+s old: agent "eve" may not re-queue it yet/,
    );
    // The holder keeps writing its own Run.
    await status(mallory, 'held', { status: { heartbeatTime: ago(0) } });
    await createRun(c, 'waiting', spec);
    const proxy = await rejection(
      status(eve, 'waiting', { status: { phase: 'Running', assignedTo: 'mallory', attempts: 1 } }),
    );
    expect(proxy.message).toContain('status.assignedTo: agent "eve" may not claim a Run for "mallory"');
    expect((await getRun(c, 'held')).status).toMatchObject({ phase: 'Running', assignedTo: 'mallory' });
    expect((await getRun(c, 'waiting')).status?.assignedTo).toBeUndefined();
  });

  it('another agent re-queues a Run whose holder went silent', async () => {
    const mallory = as('mallory');
    const eve = as('eve');
    await createRun(c, 'silent', spec);
    await status(mallory, 'silent', {
      status: { phase: 'Running', assignedTo: 'mallory', attempts: 1, heartbeatTime: ago(120) },
    });
    const back = await status(eve, 'silent', {
      status: { phase: 'Pending', assignedTo: null, heartbeatTime: null, message: 'stale' },
    });
    expect(back.status).toMatchObject({ phase: 'Pending', attempts: 1 });
    await status(eve, 'silent', {
      status: { phase: 'Running', assignedTo: 'eve', attempts: 2, heartbeatTime: ago(0) },
    });
    expect((await getRun(c, 'silent')).status?.assignedTo).toBe('eve');
  });

  it('runtimed without an agent identity writes no status', async () => {
    await createRun(c, 'anonymous', spec);
    const r = await rejection(
      status(as(undefined), 'anonymous', {
        status: { phase: 'Running', assignedTo: 'x', attempts: 1 },
      }),
    );
    expect(r.message).toContain(
      `a runtimed agent writes Run status with a token bound to its Pod (user extra ${AGENT_EXTRA})`,
    );
  });
});
