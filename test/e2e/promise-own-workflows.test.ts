// A Promise's own workflows (spec.workflows.promise; docs/promises.md) end to end: the real API
// server and garbage collector, the webhook over TLS, the controller, and runtimed running real bash.
// Steps post to a journal, so the test sees what ran and in which order. The test never blocks in
// `kubectl wait`: the journal the steps post to answers only while this process is free.
import type { PromiseObject, WorkflowRun } from '../../src/api/types.js';
import { crd } from '../../src/kube/rest.js';
import { LABEL_RESOURCE_UID, LABEL_SUSPENDED } from '../../src/labels.js';
import { eventually, type TestCluster } from '../harness/cluster.js';
import { kubectl } from '../harness/kubectl.js';
import {
  newApi,
  pipeline,
  grantPromiseWorks,
  promiseFor,
  promiseSuite,
  resourceClient,
  TEST_GROUP,
} from '../harness/promises.js';
import type { Channel } from '../harness/channel.js';

const suite = promiseSuite('e2e-promise-own');
let c: TestCluster;
let ch: Channel;
beforeAll(() => ({ c, ch } = suite));

const getPromise = (name: string) =>
  JSON.parse(kubectl(['get', 'promise', name, '-o', 'json']).stdout || '{}') as PromiseObject;
const conditionOf = (p: PromiseObject, type: string) => p.status?.conditions?.find((x) => x.type === type);

/** Applies a Promise without waiting in kubectl; returns once `ok` holds of it. */
async function applyAndAwait(
  p: object,
  ok: (p: PromiseObject) => boolean,
  what: string,
): Promise<PromiseObject> {
  const name = (p as { metadata: { name: string } }).metadata.name;
  grantPromiseWorks(name);
  const r = kubectl(['apply', '-f', '-'], JSON.stringify(p));
  if (r.status !== 0) throw new Error(r.stderr);
  suite.promises.push(name);
  let last: PromiseObject | undefined;
  await eventually(
    async () => ok((last = getPromise(name))),
    60_000,
    () => `${what} (status: ${JSON.stringify(last?.status)})`,
  );
  return last as PromiseObject;
}

const configMap = (name: string) =>
  `printf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: ${name}\\n' > "$KRT_OUTPUT_DIR/${name}.yaml"`;

async function configMapNames(): Promise<string[]> {
  return (await c.admin.core.listNamespacedConfigMap({ namespace: c.namespace })).items.map(
    (x) => x.metadata?.name ?? '',
  );
}

it("runs the Promise's configure workflow before its API is served; its documents become the Promise's Works", async () => {
  const api = newApi();
  const j = ch.journal();
  const install = pipeline(
    'install',
    `echo "install $KRATIX_WORKFLOW_TYPE $(sed -n 's/^kind: //p' "$KRT_INPUT/object.yaml")" | ${j.append}\n${configMap(`${api.plural}-shared`)}`,
  );
  const p = promiseFor(api, [pipeline('per-resource', `echo resource | ${j.append}`)], {
    workflowNamespace: c.namespace,
    workflows: {
      promise: { configure: [install] },
      resource: { configure: [pipeline('per-resource', `echo resource | ${j.append}`)] },
    },
  });
  const ready = await applyAndAwait(
    p,
    (x) => conditionOf(x, 'Available')?.status === 'True',
    'the Promise to be Available',
  );
  expect(j.lines()).toEqual(['install promise Promise']);
  expect(ready.status?.kruntimes?.workflows).toMatchObject({ phase: 'Succeeded', round: 1 });
  expect(conditionOf(ready, 'ConfigureWorkflowCompleted')?.status).toBe('True');
  // Its run lives in the workflowNamespace, owned by the Promise.
  const runs = (await c.admin.custom.listNamespacedCustomObject({
    ...crd('workflowruns', c.namespace),
    labelSelector: `${LABEL_RESOURCE_UID}=${ready.metadata.uid}`,
  })) as { items: WorkflowRun[] };
  expect(runs.items.map((r) => r.metadata.ownerReferences?.[0]?.kind)).toEqual(['Promise']);
  await eventually(
    async () => (await configMapNames()).includes(`${api.plural}-shared`),
    30_000,
    "the ConfigMap of the Promise's Work to be applied",
  );
  // Then its resources run as before.
  const r = resourceClient(c, api);
  await r.create('one', { size: 's' });
  await r.workflow('one', 'Succeeded');
  expect(j.lines()).toEqual(['install promise Promise', 'resource']);
});

it('holds the API until a suspended Promise workflow is resumed by removing its label', async () => {
  const api = newApi();
  const flag = ch.flag();
  const approve = pipeline(
    'approve',
    `${flag.isSet} || { ${flag.set}; printf 'suspend: true\\nmessage: approve the Promise\\n' > "$KRT_CONTROL"; }`,
  );
  const p = promiseFor(api, [pipeline('a', 'true')], {
    workflowNamespace: c.namespace,
    workflows: { promise: { configure: [approve] }, resource: { configure: [pipeline('a', 'true')] } },
  });
  const held = await applyAndAwait(
    p,
    (x) => x.metadata.labels?.[LABEL_SUSPENDED] === 'true',
    'the Promise to be suspended',
  );
  expect(conditionOf(held, 'Available')).toMatchObject({ status: 'False', reason: 'PromiseWorkflowPending' });
  expect(held.status?.kruntimes?.workflows?.phase).toBe('Suspended');
  // Not served: the API's CRD is not installed yet.
  expect(kubectl(['get', 'crd', `${api.plural}.${TEST_GROUP}`]).status).not.toBe(0);
  expect(kubectl(['label', 'promise', api.promise, `${LABEL_SUSPENDED}-`]).status).toBe(0);
  await eventually(
    async () => conditionOf(getPromise(api.promise), 'Available')?.status === 'True',
    60_000,
    'the Promise to be Available once resumed',
  );
  expect(kubectl(['get', 'crd', `${api.plural}.${TEST_GROUP}`]).status).toBe(0);
});

it("runs the Promise's delete workflow after its resources are gone, then removes its Works", async () => {
  const api = newApi();
  const j = ch.journal();
  const p = promiseFor(api, [pipeline('a', 'true')], {
    workflowNamespace: c.namespace,
    workflows: {
      promise: {
        configure: [pipeline('install', configMap(`${api.plural}-kept`))],
        delete: [pipeline('uninstall', `echo "uninstall $KRATIX_WORKFLOW_ACTION" | ${j.append}`)],
      },
      resource: { configure: [pipeline('a', 'true')] },
    },
  });
  await applyAndAwait(
    p,
    (x) => conditionOf(x, 'Available')?.status === 'True',
    'the Promise to be Available',
  );
  await eventually(
    async () => (await configMapNames()).includes(`${api.plural}-kept`),
    30_000,
    "the ConfigMap of the Promise's Work to be applied",
  );
  const r = resourceClient(c, api);
  await r.create('one', { size: 's' });
  await r.workflow('one', 'Succeeded');
  expect(kubectl(['delete', 'promise', api.promise, '--wait=false']).status).toBe(0);
  await eventually(
    async () => kubectl(['get', 'promise', api.promise]).status !== 0,
    90_000,
    () => `the Promise to be gone (status: ${JSON.stringify(getPromise(api.promise).status)})`,
  );
  expect(j.lines()).toEqual(['uninstall delete']);
  expect(await configMapNames()).not.toContain(`${api.plural}-kept`);
});

it('skips its delete workflow when its workflow namespace is gone, with an Event, and goes', async () => {
  const api = newApi();
  const elsewhere = `${c.namespace}-gone`;
  expect(kubectl(['create', 'namespace', elsewhere]).status).toBe(0);
  const p = promiseFor(api, [pipeline('a', 'true')], {
    workflowNamespace: elsewhere,
    workflows: {
      promise: { delete: [pipeline('uninstall', 'true')] },
      resource: { configure: [pipeline('a', 'true')] },
    },
  });
  await applyAndAwait(
    p,
    (x) => conditionOf(x, 'Available')?.status === 'True',
    'the Promise to be Available',
  );
  expect(kubectl(['delete', 'namespace', elsewhere, '--wait=true', '--timeout=60s']).status).toBe(0);
  expect(kubectl(['delete', 'promise', api.promise, '--wait=false']).status).toBe(0);
  await eventually(
    async () => kubectl(['get', 'promise', api.promise]).status !== 0,
    60_000,
    () => `the Promise to be gone (status: ${JSON.stringify(getPromise(api.promise).status)})`,
  );
  const events = kubectl([
    'get',
    'events',
    '-A',
    '--field-selector',
    `involvedObject.kind=Promise,involvedObject.name=${api.promise},reason=DeleteWorkflowSkipped`,
    '-o',
    'jsonpath={.items[*].message}',
  ]).stdout;
  expect(events).toContain('the delete pipeline cannot run');
}, 150_000);
