// Promises and their configure workflows (docs/specifications.md R1-R14) end to end: the real
// API server and garbage collector, the webhook over TLS, the controller, and runtimed running real
// bash. One test per rule; each test has its own resource API. Steps post to a journal (harness
// channel), so the test sees which pipeline ran, for which generation, how often.
import type { Work, WorkflowRun } from '../../src/api/types.js';
import { crd } from '../../src/kube/rest.js';
import {
  LABEL_MANUAL_RECONCILIATION,
  LABEL_PAUSED,
  LABEL_RECONCILE_RESOURCES,
  LABEL_RESOURCE_UID,
  LABEL_SUSPENDED,
} from '../../src/labels.js';
import { eventually, type TestCluster } from '../harness/cluster.js';
import { controllerPid, isLeader, startController } from '../harness/controller.js';
import { kubectl } from '../harness/kubectl.js';
import { krt } from '../harness/krt.js';
import {
  applyPromise,
  promiseSuite,
  newApi,
  pipeline,
  promiseFor,
  resourceClient,
  TEST_GROUP,
  type TestApi,
} from '../harness/promises.js';
import { processAlive } from '../harness/webhook.js';
import type { Channel } from '../harness/channel.js';

const suite = promiseSuite('e2e-promises');
const promises = suite.promises;
let c: TestCluster;
let ch: Channel;
beforeAll(() => ({ c, ch } = suite));

/** A Promise whose pipelines each append "<pipeline> <generation>" to the journal, then `run`. */
async function setUp(
  runs: Record<string, string>,
  extra: object = {},
): Promise<{ api: TestApi; j: ReturnType<Channel['journal']>; r: ReturnType<typeof resourceClient> }> {
  const api = newApi();
  const j = ch.journal();
  const pipelines = Object.entries(runs).map(([name, run]) =>
    pipeline(name, `echo "${name} $KRT_OBSERVED_GENERATION" | ${j.append}\n${run}`),
  );
  await applyPromise(promiseFor(api, pipelines, extra));
  promises.push(api.promise);
  return { api, j, r: resourceClient(c, api) };
}

async function events(name: string): Promise<string[]> {
  const list = await c.admin.core.listNamespacedEvent({ namespace: c.namespace });
  return list.items.filter((e) => e.involvedObject.name === name).map((e) => e.reason ?? '');
}

async function works(): Promise<Work[]> {
  return (
    (await c.admin.custom.listNamespacedCustomObject({ ...crd('works', c.namespace) })) as { items: Work[] }
  ).items;
}

describe('configure workflows', () => {
  it('runs the pipelines in order on create and again on update (KRT_OBSERVED_GENERATION 1 then 2)', async () => {
    // object.yaml is the resource with its status: observedGeneration 1 on create, 2 on update (R13).
    const j2 = ch.journal();
    const { api, j, r } = await setUp({
      first: `echo "object $(sed -n 's/^  observedGeneration: //p' "$KRT_INPUT/object.yaml")" | ${j2.append}`,
      second: 'true',
    });
    await r.create('one', { size: 'small' });
    const done = await r.workflow('one', 'Succeeded');
    expect(j.lines()).toEqual(['first 1', 'second 1']);
    expect(j2.lines()).toEqual(['object 1']);
    // Ready follows once the Works the pipelines made are applied too, which can come after.
    await r.condition('one', 'Ready', 'True');
    expect(done.status?.observedGeneration).toBe(1);
    await r.patch('one', { spec: { size: 'large' } });
    await r.workflow('one', 'Succeeded', 2);
    expect(j.lines()).toEqual(['first 1', 'second 1', 'first 2', 'second 2']);
    expect(j2.lines()).toEqual(['object 1', 'object 2']);
    // The Promise counts it as configured; kubectl get shows the workflow's state.
    await eventually(
      async () =>
        kubectl(['get', 'promise', api.promise, '-o', 'jsonpath={.status.summary}']).stdout === '1/1',
      30_000,
      'the Promise to count 1/1 configured',
    );
    const row = kubectl(['get', api.plural, 'one', '-n', c.namespace]).stdout;
    expect(row).toMatch(/^NAME\s+STATUS\s+MESSAGE\s+AGE\n/);
    expect(row).toContain('Succeeded');
    expect(await events('one')).toEqual(expect.arrayContaining(['PipelineStarted', 'PipelineSucceeded']));
    // krt shows the tree and the logs without owner-reference chasing.
    const tree = await krt(c, 'resource', 'get', api.kind, 'one');
    expect(tree.stdout).toMatch(new RegExp(`^${api.kind}/one  Succeeded  round 2`));
    expect(tree.stdout).toMatch(/├─ pipeline first {2}Succeeded\n│ {2}└─ one-first-[0-9a-f]{5} {2}Succeeded/);
    const logs = await krt(c, 'resource', 'logs', api.plural, 'one');
    expect(logs.stdout).toMatch(/== pipeline run one-first-[0-9a-f]{5}\n/);
    const list = await krt(c, 'promise', 'list');
    expect(list.stdout).toMatch(
      new RegExp(`${api.promise}\\s+${api.kind}\\s+test.kruntimes.dev/v1\\s+True\\s+1/1`),
    );
  });

  it('the paused label holds a resource: nothing runs while it is set, the workflow runs once it goes', async () => {
    const { j, r } = await setUp({ first: 'true' });
    await r.create('held', { size: 'small' }, { [LABEL_PAUSED]: 'true' });
    const paused = await r.condition('held', 'Paused', 'True');
    expect(paused.status?.conditions?.find((x) => x.type === 'Paused')?.reason).toBe('PausedByLabel');
    // The controller has reconciled it (the condition is its word) and started nothing.
    const runs = (await c.admin.custom.listNamespacedCustomObject({
      ...crd('workflowruns', c.namespace),
      labelSelector: `${LABEL_RESOURCE_UID}=${paused.metadata.uid}`,
    })) as { items: WorkflowRun[] };
    expect(runs.items).toEqual([]);
    expect(j.lines()).toEqual([]);
    await r.patch('held', { metadata: { labels: { [LABEL_PAUSED]: null } } });
    const done = await r.workflow('held', 'Succeeded');
    expect(j.lines()).toEqual(['first 1']);
    expect(done.status?.conditions?.some((x) => x.type === 'Paused')).toBe(false);
  });

  it("the reconcile-resources label on a Promise runs every resource's configure workflow again, then goes", async () => {
    const { api, j, r } = await setUp({ first: 'true' });
    await r.create('x1', { size: 'small' });
    await r.create('x2', { size: 'small' });
    await r.workflow('x1', 'Succeeded');
    await r.workflow('x2', 'Succeeded');
    expect(kubectl(['label', 'promise', api.promise, `${LABEL_RECONCILE_RESOURCES}=true`]).status).toBe(0);
    await r.workflow('x1', 'Succeeded', 2);
    await r.workflow('x2', 'Succeeded', 2);
    expect(j.lines()).toEqual(['first 1', 'first 1', 'first 1', 'first 1']);
    await eventually(
      async () =>
        kubectl(['get', 'promise', api.promise, '-o', 'jsonpath={.metadata.labels}']).stdout.includes(
          LABEL_RECONCILE_RESOURCES,
        ) === false,
      30_000,
      'the label to be removed from the Promise',
    );
  });

  it('a failed pipeline halts the workflow; manual reconciliation reruns from the start and drops the label', async () => {
    const gate = ch.gate();
    const { j, r } = await setUp({ first: 'true', second: `${gate.check} || exit 3`, third: 'true' });
    await r.create('two', {});
    const failed = await r.workflow('two', 'Failed');
    expect(j.lines()).toEqual(['first 1', 'second 1']);
    expect(failed.status?.conditions?.find((x) => x.type === 'ConfigureWorkflowCompleted')).toMatchObject({
      status: 'False',
      reason: 'ConfigureWorkflowFailed',
    });
    expect(failed.status?.message).toContain('pipeline "second" failed');
    expect(failed.status?.kruntimes?.workflows?.pipelines?.map((p) => p.phase)).toEqual([
      'Succeeded',
      'Failed',
      'Pending',
    ]);
    // The Event follows the status write that says Failed (Events go after the status, best effort).
    await eventually(
      async () => (await events('two')).includes('PipelineFailed'),
      30_000,
      'the PipelineFailed Event',
    );
    gate.open();
    await r.patch('two', { metadata: { labels: { [LABEL_MANUAL_RECONCILIATION]: 'true' } } });
    const again = await r.workflow('two', 'Succeeded', 2);
    expect(j.lines()).toEqual(['first 1', 'second 1', 'first 1', 'second 1', 'third 1']);
    expect(again.metadata.labels?.[LABEL_MANUAL_RECONCILIATION]).toBeUndefined();
  });

  it('jobOptions.backoffLimit runs a failed pipeline again after a wait, counting attempts, before it halts', async () => {
    const flag = ch.flag();
    const j = ch.journal();
    const api = newApi();
    // Fails on its first attempt only; the second pipeline never retries.
    const flaky = pipeline('flaky', `echo flaky | ${j.append}\n${flag.isSet} || { ${flag.set}; exit 7; }`);
    await applyPromise(
      promiseFor(api, [
        { ...flaky, spec: { ...flaky.spec, jobOptions: { backoffLimit: 2 } } },
        pipeline('after', `echo after | ${j.append}`),
      ]),
    );
    promises.push(api.promise);
    const r = resourceClient(c, api);
    await r.create('retry', {});
    const done = await r.workflow('retry', 'Succeeded');
    expect(j.lines()).toEqual(['flaky', 'flaky', 'after']);
    expect(done.status?.kruntimes?.workflows?.pipelines?.[0]).toMatchObject({
      name: 'flaky',
      phase: 'Succeeded',
      attempts: 2,
    });
    expect(await events('retry')).toEqual(
      expect.arrayContaining(['PipelineRetryScheduled', 'PipelineStarted']),
    );
    // Admission bounds it.
    const bad = kubectl(
      ['apply', '--dry-run=server', '-f', '-'],
      JSON.stringify(
        promiseFor(newApi(), [{ ...flaky, spec: { ...flaky.spec, jobOptions: { backoffLimit: 99 } } }]),
      ),
    );
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/jobOptions.backoffLimit.*less than or equal to 10/);
  });

  it('an update during a running pipeline waits for it, then restarts from the first pipeline once', async () => {
    const gate = ch.gate();
    const { j, r } = await setUp({ first: gate.wait, second: 'true' });
    await r.create('three', { size: 'a' });
    await eventually(async () => j.lines().length === 1, 30_000, 'the first pipeline to start');
    await r.patch('three', { spec: { size: 'b' } });
    await r.patch('three', { spec: { size: 'c' } });
    await eventually(
      async () => (await r.get('three')).status?.message?.includes('a new reconciliation waits') === true,
      30_000,
      'the resource to say a new reconciliation waits',
    );
    gate.open();
    const done = await r.workflow('three', 'Succeeded', 2);
    // The running pipeline ended; the workflow then started again from the first, for generation 3.
    expect(j.lines()).toEqual(['first 1', 'first 3', 'second 3']);
    expect(done.status?.kruntimes?.workflows?.round).toBe(2);
  });

  it('suspended: resumes from the suspended pipeline when the label is removed', async () => {
    const flag = ch.flag();
    const { api, j, r } = await setUp({
      first: 'true',
      second: `${flag.isSet} || { ${flag.set}; printf 'suspend: true\\nmessage: needs approval\\n' > "$KRT_CONTROL"; printf 'message: approval asked in OPS-12\\n' > "$KRT_STATUS"; }`,
      third: 'true',
    });
    await r.create('four', {});
    const held = await r.workflow('four', 'Suspended');
    expect(held.metadata.labels?.[LABEL_SUSPENDED]).toBe('true');
    expect(held.status?.kruntimes?.workflows?.pipelines?.[1]).toMatchObject({
      phase: 'Suspended',
      message: 'needs approval',
    });
    expect(held.status?.conditions?.find((x) => x.type === 'Reconciled')).toMatchObject({
      status: 'Unknown',
      reason: 'WorkflowSuspended',
    });
    // kubectl get shows what the pipeline wrote to status.yaml; the control's message is describe's (R8).
    expect(held.status?.message).toBe('approval asked in OPS-12');
    expect(kubectl(['get', api.plural, 'four', '-n', c.namespace]).stdout).toContain(
      'approval asked in OPS-12',
    );
    expect(j.lines()).toEqual(['first 1', 'second 1']);
    await r.patch('four', { metadata: { labels: { [LABEL_SUSPENDED]: null } } });
    const done = await r.workflow('four', 'Succeeded');
    // Resumed: the suspended pipeline ran again, the first did not; still round 1.
    expect(j.lines()).toEqual(['first 1', 'second 1', 'second 1', 'third 1']);
    expect(done.status?.kruntimes?.workflows?.round).toBe(1);
    expect(done.status?.kruntimes?.workflows?.pipelines?.[1]?.attempts).toBe(2);
  });

  it("status.yaml goes into the resource status as a nested document, with the pipelines' own conditions", async () => {
    const { api, r } = await setUp({
      first: [
        `cat > "$KRT_STATUS" <<'EOF'`,
        'endpoint: {host: db.internal, ports: [5432]}',
        'tier: gold',
        'conditions:',
        '  - {type: DatabaseReady, status: "True", reason: Provisioned, message: primary up}',
        '  - {type: Ready, status: "False", reason: SaysThePipeline}',
        'EOF',
      ].join('\n'),
      second: `printf 'endpoint: {host: db-2.internal}\\n' > "$KRT_STATUS"`,
    });
    await r.create('nested', {});
    const done = await r.condition('nested', 'Ready', 'True');
    // Top-level keys merge; the later pipeline's value wins whole.
    expect(done.status?.endpoint).toEqual({ host: 'db-2.internal' });
    expect(done.status?.tier).toBe('gold');
    // The pipeline's condition sits beside the controller's; its Ready lost to the controller's.
    expect(done.status?.conditions?.find((x) => x.type === 'DatabaseReady')).toMatchObject({
      status: 'True',
      reason: 'Provisioned',
      message: 'primary up',
      observedGeneration: 1,
    });
    expect(done.status?.conditions?.find((x) => x.type === 'Ready')?.reason).toBe('Ready');
    // kubectl reads it as any condition (wait, jsonpath), so health checks can follow it.
    const w = kubectl([
      'wait',
      api.plural,
      'nested',
      '-n',
      c.namespace,
      '--for=condition=DatabaseReady',
      '--timeout=10s',
    ]);
    expect(w.status).toBe(0);
  });

  it('a new reconciliation while suspended starts from the beginning', async () => {
    const { j, r } = await setUp({
      first: 'true',
      second: `[ "$KRT_OBSERVED_GENERATION" = 2 ] || printf 'suspend: true\\n' > "$KRT_CONTROL"`,
    });
    await r.create('five', { size: 'a' });
    const held = await r.workflow('five', 'Suspended');
    const suspendedRun = held.status?.kruntimes?.workflows?.pipelines?.[1]?.workflowRunName ?? '';
    await r.patch('five', { spec: { size: 'b' } });
    const done = await r.workflow('five', 'Succeeded', 2);
    expect(j.lines()).toEqual(['first 1', 'second 1', 'first 2', 'second 2']);
    expect(done.metadata.labels?.[LABEL_SUSPENDED]).toBeUndefined();
    const old = (await c.admin.custom.getNamespacedCustomObject({
      ...crd('workflowruns', c.namespace),
      name: suspendedRun,
    })) as WorkflowRun;
    expect(old.status?.phase).toBe('Cancelled');
  });

  it('retryAfter re-executes the pipeline, counting attempts, then continues', async () => {
    const j = ch.journal();
    const api = newApi();
    // The pipeline asks to be retried until it has run three times.
    const retrying = pipeline(
      'first',
      `echo first | ${j.append}; n=$(${j.read} | grep -c '^first')\n[ "$n" -ge 3 ] || printf 'retryAfter: 1s\\nmessage: not yet\\n' > "$KRT_CONTROL"`,
    );
    const after = pipeline('second', `echo second | ${j.append}`);
    await applyPromise(promiseFor(api, [retrying, after]));
    promises.push(api.promise);
    const r = resourceClient(c, api);
    await r.create('six', {});
    const retried = await r.workflow('six', 'Suspended');
    expect(retried.status?.kruntimes?.workflows?.pipelines?.[0]?.nextRetryAt).toBeDefined();
    const done = await r.workflow('six', 'Succeeded');
    expect(j.lines()).toEqual(['first', 'first', 'first', 'second']);
    expect(done.status?.kruntimes?.workflows?.pipelines?.[0]?.attempts).toBe(3);
    expect(await events('six')).toContain('PipelineRetryScheduled');
  });

  it('the periodic interval runs the workflow again', async () => {
    const { j, r } = await setUp({ only: 'true' }, { reconcileInterval: '2s' });
    await r.create('seven', {});
    await r.workflow('seven', 'Succeeded', 3);
    expect(j.lines().slice(0, 3)).toEqual(['only 1', 'only 1', 'only 1']);
  });

  it('a change of the Promise spec runs every resource workflow again', async () => {
    const { api, j, r } = await setUp({ only: 'echo v1' });
    await r.create('eight-a', {});
    await r.create('eight-b', {});
    await r.workflow('eight-a', 'Succeeded');
    await r.workflow('eight-b', 'Succeeded');
    expect(j.lines()).toEqual(['only 1', 'only 1']);
    const changed = promiseFor(api, [
      pipeline('only', `echo "only $KRT_OBSERVED_GENERATION" | ${j.append}\necho v2`),
    ]);
    await applyPromise(changed);
    await r.workflow('eight-a', 'Succeeded', 2);
    await r.workflow('eight-b', 'Succeeded', 2);
    expect(j.lines()).toEqual(['only 1', 'only 1', 'only 1', 'only 1']);
  });

  it('a controller SIGKILLed mid-workflow neither skips nor repeats a pipeline', async () => {
    const gate = ch.gate();
    const { j, r } = await setUp({ first: 'true', second: gate.wait, third: 'true' });
    await r.create('nine', {});
    await eventually(async () => j.lines().length === 2, 30_000, 'the second pipeline to start');
    const pid = controllerPid();
    process.kill(pid, 'SIGKILL');
    await eventually(async () => !processAlive(pid), 5000, 'the controller to die');
    gate.open();
    startController();
    await eventually(async () => (await isLeader()) === 1, 40_000, 'the restarted controller to lead');
    const done = await r.workflow('nine', 'Succeeded');
    expect(j.lines()).toEqual(['first 1', 'second 1', 'third 1']);
    expect(done.status?.kruntimes?.workflows?.round).toBe(1);
  });

  it("a cluster-scoped API: its resources' pipelines and Works live in the workflowNamespace", async () => {
    const api = newApi();
    const j = ch.journal();
    const write = pipeline(
      'write',
      `echo "write $KRATIX_CLUSTER_SCOPED $(sed -n 's/^  name: //p' "$KRT_INPUT/object.yaml" | head -1)" | ${j.append}\n` +
        `printf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: %s-cm\\n' "$KRATIX_OBJECT_NAME" > "$KRT_OUTPUT_DIR/cm.yaml"\n` +
        `printf 'message: cluster-wide\\n' > "$KRT_STATUS"`,
    );
    const p = promiseFor(api, [write], { workflowNamespace: c.namespace });
    (p.spec.api as { spec: { scope: string } }).spec.scope = 'Cluster';
    await applyPromise(p);
    promises.push(api.promise);
    const name = `${api.plural}-one`;
    const obj = { apiVersion: `${TEST_GROUP}/v1`, kind: api.kind, metadata: { name }, spec: { size: 's' } };
    expect(kubectl(['apply', '-f', '-'], JSON.stringify(obj)).status).toBe(0);
    // Polled, not `kubectl wait`: the journal the step posts to answers only while this process is free.
    const ready = () =>
      kubectl(['get', api.plural, name, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}'])
        .stdout;
    await eventually(
      async () => ready() === 'True',
      60_000,
      () => `${name} to be Ready (is "${ready()}")`,
    );
    expect(j.lines()).toEqual([`write true ${name}`]);
    // kubectl get shows the cluster-scoped resource with its state and message.
    expect(kubectl(['get', api.plural, name]).stdout).toMatch(
      new RegExp(`^${name}\\s+Succeeded\\s+cluster-wide\\s`, 'm'),
    );
    const got = JSON.parse(kubectl(['get', api.plural, name, '-o', 'json']).stdout) as {
      metadata: { uid: string };
    };
    // The run and the Work are in the workflowNamespace, owned by the resource; the ConfigMap too.
    const runs = (await c.admin.custom.listNamespacedCustomObject({
      ...crd('workflowruns', c.namespace),
      labelSelector: `${LABEL_RESOURCE_UID}=${got.metadata.uid}`,
    })) as { items: WorkflowRun[] };
    expect(runs.items.map((x) => x.metadata.ownerReferences?.[0]?.name)).toEqual([name]);
    expect((await works()).filter((w) => w.metadata.ownerReferences?.[0]?.name === name)).toHaveLength(1);
    await eventually(
      async () =>
        (await c.admin.core.listNamespacedConfigMap({ namespace: c.namespace })).items.some(
          (x) => x.metadata?.name === `${name}-cm`,
        ),
      30_000,
      'the ConfigMap of the Work to be applied in the workflowNamespace',
    );
    // Its Events are found as kubectl describe finds a cluster-scoped object's.
    const described = kubectl(['describe', api.plural, name]).stdout;
    expect(described).toContain('PipelineSucceeded');
    // Deleted: the garbage collector takes its runs along from the other namespace.
    expect(kubectl(['delete', api.plural, name, '--timeout=60s']).status).toBe(0);
    await eventually(
      async () =>
        (
          (await c.admin.custom.listNamespacedCustomObject({
            ...crd('workflowruns', c.namespace),
            labelSelector: `${LABEL_RESOURCE_UID}=${got.metadata.uid}`,
          })) as { items: WorkflowRun[] }
        ).items.length === 0,
      60_000,
      'the runs of the deleted resource to be collected',
    );
  });

  it('documents become Works applied to the cluster; an object a later run drops is pruned', async () => {
    const cm = (n: string) =>
      `printf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: ${n}\\ndata:\\n  size: "%s"\\n' "$SIZE" > "$KRT_OUTPUT_DIR/${n}.yaml"`;
    const api = newApi();
    // Two steps: the second finds the first one's file in $KRT_OUTPUT_DIR and adds its own.
    const writer = pipeline('write', cm('ten-always'), { SIZE: '${{ resource.spec.size }}' });
    const steps = writer.spec.jobs?.main?.steps ?? [];
    steps.push({
      name: 'more',
      env: { SIZE: '${{ resource.spec.size }}' },
      run: `grep -q 'name: ten-always' "$KRT_OUTPUT_DIR/ten-always.yaml"\n[ "$SIZE" = small ] && ${cm('ten-sometimes')} || true`,
    });
    const reader = pipeline(
      'read',
      `grep -q 'name: ten-always' "$KRT_INPUT/write/ten-always.yaml"\nprintf 'message: read %s\\n' "$(ls "$KRT_INPUT/write" | tr '\\n' ' ')" > "$KRT_STATUS"`,
    );
    await applyPromise(promiseFor(api, [writer, reader]));
    promises.push(api.promise);
    const r = resourceClient(c, api);
    await r.create('ten', { size: 'small' });
    const done = await r.workflow('ten', 'Succeeded');
    expect(done.status?.message).toBe('read ten-always.yaml ten-sometimes.yaml');
    const cms = async () =>
      (await c.admin.core.listNamespacedConfigMap({ namespace: c.namespace })).items
        .map((x) => `${x.metadata?.name}=${x.data?.size}`)
        .filter((x) => x.startsWith('ten-'))
        .sort();
    await eventually(async () => (await cms()).length === 2, 30_000, 'both ConfigMaps to be applied');
    expect(await cms()).toEqual(['ten-always=small', 'ten-sometimes=small']);
    const work = (await works()).find((w) => w.spec.pipeline === 'write' && w.metadata.name === 'ten-write');
    expect(work?.metadata.ownerReferences?.[0]).toMatchObject({ kind: api.kind, name: 'ten' });
    await r.patch('ten', { spec: { size: 'large' } });
    await r.workflow('ten', 'Succeeded', 2);
    await eventually(
      async () => JSON.stringify(await cms()) === JSON.stringify(['ten-always=large']),
      30_000,
      'ten-sometimes to be pruned and ten-always updated',
    );
    await eventually(
      async () =>
        (await r.get('ten')).status?.conditions?.find((x) => x.type === 'WorksSucceeded')?.status === 'True',
      30_000,
      'WorksSucceeded',
    );
  });

  it('a pipeline that names a Workflow runs it with inputs read from the resource', async () => {
    const j = ch.journal();
    const wf = {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'Workflow',
      metadata: { name: 'provision', namespace: c.namespace },
      spec: {
        inputs: { size: { type: 'string', required: true } },
        jobs: {
          go: {
            'runs-on': 'bash',
            steps: [
              {
                name: 's',
                run: `echo "size=$SIZE gen=$KRT_OBSERVED_GENERATION" | ${j.append}`,
                env: { SIZE: '${{ inputs.size }}' },
              },
            ],
          },
        },
      },
    };
    expect(kubectl(['apply', '-f', '-'], JSON.stringify(wf)).status).toBe(0);
    const api = newApi();
    const uses = {
      apiVersion: 'kruntimes.io/v1alpha1' as const,
      kind: 'Pipeline' as const,
      metadata: { name: 'provision' },
      spec: { uses: 'provision', with: { size: 'x-${{ resource.spec.size }}' } },
    };
    await applyPromise(promiseFor(api, [uses], { workflowNamespace: c.namespace }));
    promises.push(api.promise);
    const r = resourceClient(c, api);
    await r.create('twelve', { size: '$(touch /tmp/pwned)' });
    await r.workflow('twelve', 'Succeeded');
    expect(j.lines()).toEqual(['size=x-$(touch /tmp/pwned) gen=1']);
  });

  it('a Work whose object the controller may not create fails with the API server reason', async () => {
    const { r } = await setUp({
      only: `printf 'apiVersion: v1\\nkind: Secret\\nmetadata:\\n  name: eleven-s\\nstringData: {a: b}\\n' > "$KRT_OUTPUT_DIR/secret.yaml"`,
    });
    await r.create('forbidden', {});
    await r.workflow('forbidden', 'Succeeded');
    let last: unknown;
    await eventually(
      async () => {
        const x = await r.get('forbidden');
        last = x.status?.conditions;
        return x.status?.conditions?.find((y) => y.type === 'WorksSucceeded')?.status === 'False';
      },
      30_000,
      () => `WorksSucceeded to be False (last: ${JSON.stringify(last)})`,
    );
    const done = await r.get('forbidden');
    expect(done.status?.conditions?.find((y) => y.type === 'WorksSucceeded')?.message).toMatch(
      /Secret .*\/eleven-s: .*forbidden/,
    );
    expect(done.status?.conditions?.find((y) => y.type === 'WorksSucceeded')?.reason).toBe('WorksFailing');
    // Kratix's reasons, which health checks and GitOps tools read.
    expect(done.status?.conditions?.find((y) => y.type === 'Reconciled')).toMatchObject({
      status: 'False',
      reason: 'WorksFailing',
    });
    expect(done.status?.conditions?.find((y) => y.type === 'Ready')?.status).toBe('False');
    await eventually(
      async () => (await events('forbidden')).includes('WorksFailing'),
      30_000,
      'a WorksFailing Event',
    );
  });

  it('a Promise whose API the controller was not granted says so and runs nothing', async () => {
    const api = { ...newApi(), group: 'ungranted.kruntimes.dev' };
    const p = promiseFor(api, [pipeline('a', 'true')]);
    expect(kubectl(['apply', '-f', '-'], JSON.stringify(p)).status).toBe(0);
    promises.push(api.promise);
    await eventually(
      async () =>
        kubectl([
          'get',
          'promise',
          api.promise,
          '-o',
          'jsonpath={.status.conditions[?(@.type=="Available")].reason}',
        ]).stdout === 'Forbidden',
      30_000,
      'the Promise to say Forbidden',
    );
    const message = kubectl(['get', 'promise', api.promise, '-o', 'jsonpath={.status.message}']).stdout;
    expect(message).toBe(
      `the controller may not list, watch, patch, delete, update status of ${api.plural}.ungranted.kruntimes.dev: grant it with a ClusterRole labelled kruntimes.io/aggregate-to-promises: "true"`,
    );
  });

  it('an invalid document fails the step with the file name and the parse error', async () => {
    const { r } = await setUp({ only: `printf 'kind: ConfigMap\\n' > "$KRT_OUTPUT_DIR/bad.yaml"` });
    await r.create('eleven', {});
    const failed = await r.workflow('eleven', 'Failed');
    expect(failed.status?.message).toContain('$KRT_OUTPUT_DIR/bad.yaml: apiVersion is required');
  });
});

describe('admission of Promises', () => {
  it('refuses an invalid Promise at apply time (also with --dry-run=server), naming the field and the rule', async () => {
    const api = newApi();
    const bad = promiseFor(api, [pipeline('a', 'echo ${{ resource.spec.sise }}'), pipeline('a', 'true')]);
    const r = kubectl(['apply', '--dry-run=server', '-f', '-'], JSON.stringify(bad));
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(
      'spec.workflows.resource.configure[0].spec.jobs.main.steps[0].run: "resource.spec.sise": the resource schema declares no field "spec.sise"',
    );
    expect(r.stderr).toContain(
      'spec.workflows.resource.configure[1].metadata.name: duplicate pipeline name "a"',
    );
    const own = promiseFor(api, [pipeline('a', 'true')]);
    (own.spec.api.spec as { group: string }).group = 'kruntimes.io';
    expect(kubectl(['apply', '-f', '-'], JSON.stringify(own)).stderr).toContain(
      'spec.api.spec.group: the group kruntimes.io belongs to kruntimes itself',
    );
  });

  it('refuses a change of the API group or kind of an existing Promise', async () => {
    const api = newApi();
    await applyPromise(promiseFor(api, [pipeline('a', 'true')]));
    promises.push(api.promise);
    const renamed = promiseFor({ ...api, kind: `${api.kind}X` }, [pipeline('a', 'true')]);
    const r = kubectl(['apply', '-f', '-'], JSON.stringify(renamed));
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain("spec.api: the resource API's group and kind cannot change");
  });
});
