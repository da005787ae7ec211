// Delete workflows (second seed, "Delete Workflows") end to end: real API server and garbage
// collector, webhook, controller, runtimed running real bash. Each test has its own resource API.
// Configure pipelines apply a ConfigMap through their Work; delete pipelines post to a journal (the
// harness channel), so the test sees what ran and how often.
import type { Pipeline } from '../../src/api/types.js';
import { statusCode } from '../../src/kube/rest.js';
import { LABEL_MANUAL_RECONCILIATION, LABEL_SUSPENDED } from '../../src/labels.js';
import { eventually, testCluster, type TestCluster } from '../harness/cluster.js';
import { controllerPid, isLeader, startController } from '../harness/controller.js';
import { kubectl } from '../harness/kubectl.js';
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

type Journal = ReturnType<Channel['journal']>;

const suite = promiseSuite('e2e-promise-delete');
const promises = suite.promises;
let c: TestCluster;
let ch: Channel;
beforeAll(() => ({ c, ch } = suite));

/** A configure pipeline that applies the ConfigMap `<resource>-cm` and journals "configure". */
const configure = (j: Journal, extra = '') =>
  pipeline(
    'apply',
    `echo configure | ${j.append}\n${extra}\nprintf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: %s-cm\\n' "$NAME" > "$KRT_OUTPUT_DIR/cm.yaml"`,
    { NAME: '${{ resource.metadata.name }}' },
  );
const teardown = (run: string): Pipeline => pipeline('teardown', run);

async function setUp(configurePipeline: Pipeline, deletion: Pipeline, backoff = 1) {
  const api = newApi();
  const p = promiseFor(api, [configurePipeline]);
  p.spec.workflows.resource = {
    configure: [configurePipeline],
    delete: [deletion],
    deleteBackoffLimit: backoff,
  } as never;
  await applyPromise(p);
  promises.push(api.promise);
  return { api, p, r: resourceClient(c, api) };
}

const configMap = async (name: string) =>
  c.admin.core.readNamespacedConfigMap({ name, namespace: c.namespace }).then(
    () => true,
    (e: unknown) => {
      if (statusCode(e) === 404) return false;
      throw e;
    },
  );

async function gone(api: TestApi, name: string, timeoutMs = 60_000, where: TestCluster = c): Promise<void> {
  await eventually(
    async () =>
      resourceClient(where, api)
        .get(name)
        .then(
          () => false,
          (e: unknown) => statusCode(e) === 404,
        ),
    timeoutMs,
    `${api.kind} ${name} to be gone`,
  );
}

async function deleteResource(api: TestApi, name: string): Promise<void> {
  await c.admin.custom.deleteNamespacedCustomObject({
    group: TEST_GROUP,
    version: 'v1',
    plural: api.plural,
    namespace: c.namespace,
    name,
  });
}

async function deleteCondition(api: TestApi, name: string, reason: string) {
  const r = resourceClient(c, api);
  let last: unknown;
  await eventually(
    async () => {
      const x = await r.get(name);
      const cond = x.status?.conditions?.find((y) => y.type === 'DeleteWorkflowCompleted');
      last = cond;
      return cond?.reason === reason;
    },
    60_000,
    () => `${name} to have DeleteWorkflowCompleted reason ${reason} (last: ${JSON.stringify(last)})`,
  );
  return r.get(name);
}

async function events(name: string): Promise<string[]> {
  const list = await c.admin.core.listNamespacedEvent({ namespace: c.namespace });
  return list.items.filter((e) => e.involvedObject.name === name).map((e) => e.reason ?? '');
}

describe('delete workflows', () => {
  it('a succeeding delete pipeline runs, then the applied objects go, then the resource', async () => {
    const j = ch.journal();
    const { api, r } = await setUp(
      configure(j),
      teardown(`echo "teardown $(grep -c "^  name: " "$KRT_INPUT/object.yaml")" | ${j.append}`),
    );
    await r.create('d1', {});
    const live = await r.workflow('d1', 'Succeeded');
    expect(live.metadata.finalizers?.sort()).toEqual([
      'kruntimes.io/delete-workflow',
      'kruntimes.io/works-cleanup',
    ]);
    await eventually(() => configMap('d1-cm'), 30_000, 'the ConfigMap to be applied');
    await deleteResource(api, 'd1');
    await gone(api, 'd1');
    expect(j.lines()).toEqual(['configure', 'teardown 1']);
    expect(await configMap('d1-cm')).toBe(false);
  });

  it('without a delete pipeline, a cluster-scoped object a Work applied goes with the resource', async () => {
    const api = newApi();
    const ns = `krt-applied-${api.plural.slice(-6)}`;
    const writesNamespace = pipeline(
      'apply',
      `printf 'apiVersion: v1\\nkind: Namespace\\nmetadata:\\n  name: ${ns}\\n' > "$KRT_OUTPUT_DIR/ns.yaml"`,
    );
    await applyPromise(promiseFor(api, [writesNamespace]));
    promises.push(api.promise);
    const r = resourceClient(c, api);
    await r.create('d0', {});
    const live = await r.workflow('d0', 'Succeeded');
    expect(live.metadata.finalizers).toEqual(['kruntimes.io/works-cleanup']);
    const exists = () =>
      c.admin.core.readNamespace({ name: ns }).then(
        (n) => !n.metadata?.deletionTimestamp,
        (e: unknown) => {
          if (statusCode(e) === 404) return false;
          throw e;
        },
      );
    await eventually(exists, 30_000, `namespace ${ns} to be applied`);
    await deleteResource(api, 'd0');
    await gone(api, 'd0');
    expect(await exists()).toBe(false);
  });

  it('a failing delete pipeline keeps the resource after its attempts; fixing the Promise completes it', async () => {
    const j = ch.journal();
    const { api, p, r } = await setUp(configure(j), teardown(`echo teardown | ${j.append}; exit 4`), 1);
    await r.create('d2', {});
    await r.workflow('d2', 'Succeeded');
    await deleteResource(api, 'd2');
    const failed = await deleteCondition(api, 'd2', 'DeleteWorkflowFailed');
    expect(failed.status?.conditions?.find((x) => x.type === 'DeleteWorkflowCompleted')?.status).toBe(
      'False',
    );
    expect(j.lines()).toEqual(['configure', 'teardown', 'teardown']);
    // The Event follows the status write that says Failed (Events go after the status, best effort).
    await eventually(
      async () => (await events('d2')).includes('DeleteWorkflowFailed'),
      30_000,
      'the DeleteWorkflowFailed Event',
    );
    expect(await configMap('d2-cm')).toBe(true);
    // Fixed in the Promise: a new delete pipeline runs and the deletion completes.
    p.spec.workflows.resource = {
      configure: [configure(j)],
      delete: [teardown(`echo fixed | ${j.append}`)],
      deleteBackoffLimit: 1,
    } as never;
    await applyPromise(p);
    await gone(api, 'd2');
    expect(j.lines()).toEqual(['configure', 'teardown', 'teardown', 'fixed']);
    expect(await configMap('d2-cm')).toBe(false);
  });

  it('the manual-reconciliation label re-runs a failed delete pipeline', async () => {
    const j = ch.journal();
    const ok = ch.gate();
    const { api, r } = await setUp(configure(j), teardown(`echo teardown | ${j.append}; ${ok.check}`), 0);
    await r.create('d3', {});
    await r.workflow('d3', 'Succeeded');
    await deleteResource(api, 'd3');
    await deleteCondition(api, 'd3', 'DeleteWorkflowFailed');
    expect(j.lines()).toEqual(['configure', 'teardown']);
    ok.open();
    await r.patch('d3', { metadata: { labels: { [LABEL_MANUAL_RECONCILIATION]: 'true' } } });
    await gone(api, 'd3');
    expect(j.lines()).toEqual(['configure', 'teardown', 'teardown']);
  });

  it('a suspending delete pipeline keeps the Works and their objects until the label is removed', async () => {
    const j = ch.journal();
    const flag = ch.flag();
    const { api, r } = await setUp(
      configure(j),
      teardown(
        `echo teardown | ${j.append}\n${flag.isSet} || { ${flag.set}; printf 'suspend: true\\nmessage: approve the teardown\\n' > "$KRT_CONTROL"; echo 'message: waiting for approval' > "$KRT_STATUS"; }`,
      ),
    );
    await r.create('d4', {});
    await r.workflow('d4', 'Succeeded');
    await deleteResource(api, 'd4');
    const held = await deleteCondition(api, 'd4', 'DeleteWorkflowSuspended');
    expect(held.metadata.labels?.[LABEL_SUSPENDED]).toBe('true');
    expect(held.status?.message).toBe('waiting for approval');
    expect(kubectl(['get', api.plural, 'd4', '-n', c.namespace]).stdout).toContain('waiting for approval');
    expect(await configMap('d4-cm')).toBe(true);
    await r.patch('d4', { metadata: { labels: { [LABEL_SUSPENDED]: null } } });
    await gone(api, 'd4');
    expect(j.lines()).toEqual(['configure', 'teardown', 'teardown']);
    expect(await configMap('d4-cm')).toBe(false);
  });

  it('a retryAfter delete pipeline retries, then the deletion completes', async () => {
    const j = ch.journal();
    const { api, r } = await setUp(
      configure(j),
      teardown(
        `echo teardown | ${j.append}; [ "$(${j.read} | grep -c teardown)" -ge 2 ] || echo 'retryAfter: 1s' > "$KRT_CONTROL"`,
      ),
    );
    await r.create('d5', {});
    await r.workflow('d5', 'Succeeded');
    await deleteResource(api, 'd5');
    await gone(api, 'd5');
    expect(j.lines()).toEqual(['configure', 'teardown', 'teardown']);
  });

  it('a deletion during a running configure pipeline waits for it', async () => {
    const j = ch.journal();
    const gate = ch.gate();
    const { api, r } = await setUp(
      configure(j, `${gate.wait}; echo configured | ${j.append}`),
      teardown(`echo teardown | ${j.append}`),
    );
    await r.create('d6', {});
    await eventually(async () => j.lines().length === 1, 30_000, 'the configure pipeline to start');
    await deleteResource(api, 'd6');
    await deleteCondition(api, 'd6', 'WaitingForConfigure');
    gate.open();
    await gone(api, 'd6');
    expect(j.lines()).toEqual(['configure', 'configured', 'teardown']);
  });

  it('deleting the Promise deletes its resources through their delete pipelines, then the CRD', async () => {
    const j = ch.journal();
    const { api, r } = await setUp(configure(j), teardown(`echo "teardown $NAME" | ${j.append}`));
    // The teardown names the resource it runs for.
    const p = promiseFor(api, []);
    p.spec.workflows.resource = {
      configure: [configure(j)],
      delete: [
        pipeline('teardown', `echo "teardown $NAME" | ${j.append}`, {
          NAME: '${{ resource.metadata.name }}',
        }),
      ],
      deleteBackoffLimit: 1,
    } as never;
    await applyPromise(p);
    await r.create('d7a', {});
    await r.create('d7b', {});
    await r.workflow('d7a', 'Succeeded');
    await r.workflow('d7b', 'Succeeded');
    expect(kubectl(['delete', 'promise', api.promise, '--wait=false']).status).toBe(0);
    await eventually(
      async () => kubectl(['get', 'promise', api.promise]).status !== 0,
      90_000,
      'the Promise to be gone',
    );
    expect(
      j
        .lines()
        .filter((l) => l.startsWith('teardown'))
        .sort(),
    ).toEqual(['teardown d7a', 'teardown d7b']);
    expect(kubectl(['get', 'crd', `${api.plural}.${TEST_GROUP}`]).status).not.toBe(0);
    expect(await configMap('d7a-cm')).toBe(false);
  });

  it('a controller SIGKILLed during a deletion leaves nothing stuck', async () => {
    const j = ch.journal();
    const gate = ch.gate();
    const { api, r } = await setUp(configure(j), teardown(`echo teardown | ${j.append}; ${gate.wait}`));
    await r.create('d8', {});
    await r.workflow('d8', 'Succeeded');
    await deleteResource(api, 'd8');
    await eventually(async () => j.lines().includes('teardown'), 30_000, 'the delete pipeline to start');
    const pid = controllerPid();
    process.kill(pid, 'SIGKILL');
    await eventually(async () => !processAlive(pid), 5000, 'the controller to die');
    gate.open();
    startController();
    await eventually(async () => (await isLeader()) === 1, 40_000, 'the restarted controller to lead');
    await gone(api, 'd8');
    expect(j.lines()).toEqual(['configure', 'teardown']);
    expect(await configMap('d8-cm')).toBe(false);
  });

  it('a namespace being deleted is not held by its resources: their delete pipeline is skipped', async () => {
    const j = ch.journal();
    const { api } = await setUp(configure(j), teardown(`echo teardown | ${j.append}`));
    const other = await testCluster('e2e-ns-delete');
    const r = resourceClient(other, api);
    await r.create('d9', {});
    await r.workflow('d9', 'Succeeded');
    await other.admin.core.deleteNamespace({ name: other.namespace });
    // What the namespace controller does, at its own pace (it waits for complete API discovery,
    // which a CRD deleted by an earlier test can hold up for minutes): delete what is inside.
    await other.admin.custom.deleteNamespacedCustomObject({
      group: TEST_GROUP,
      version: 'v1',
      plural: api.plural,
      namespace: other.namespace,
      name: 'd9',
    });
    // Its finalizers come off without a pipeline run (the namespace takes none), so it goes.
    await gone(api, 'd9', 45_000, other).catch(async (e: Error) => {
      const left = await r.get('d9').catch(() => undefined);
      throw new Error(`${e.message}; last: ${JSON.stringify(left?.status?.kruntimes ?? {})}`);
    });
    expect(j.lines()).toEqual(['configure']);
  });
});
