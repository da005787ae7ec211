// A tenant cannot borrow the controller's rights (issue "Security III"): a tenant who may create
// and edit WorkflowRuns in its own namespace forges a resource's pipeline run, takes the name of the
// next one, edits the controller's runs, and a Promise's Works act as the Promise's own account,
// taking over nothing they did not make. Real API server, webhook, controller and runtimed.
import type { Work, WorkflowRun } from '../../src/api/types.js';
import { crd } from '../../src/kube/rest.js';
import {
  LABEL_MANUAL_RECONCILIATION,
  LABEL_PIPELINE,
  LABEL_RESOURCE_UID,
  LABEL_WORKFLOW_ROUND,
} from '../../src/labels.js';
import { pipelineRunName, promiseServiceAccount } from '../../src/names.js';
import { eventually, type TestCluster } from '../harness/cluster.js';
import { kubectl } from '../harness/kubectl.js';
import { getWorkflowRun } from '../harness/objects.js';
import { userKubeconfig } from '../harness/paths.js';
import {
  applyPromise,
  newApi,
  pipeline,
  promiseFor,
  promiseSuite,
  resourceClient,
} from '../harness/promises.js';

const suite = promiseSuite('e2e-tenant-trust');
let c: TestCluster;

/** kubectl as the tenant: it may create and edit WorkflowRuns and Runs of its namespace, nothing else. */
const asTenant = (args: string[], input?: string) =>
  kubectl([...args, '-n', c.namespace], input, userKubeconfig);

const configMapTo = (namespace: string, name: string) =>
  `printf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: ${name}\\n  namespace: ${namespace}\\ndata: {by: pipeline}\\n' > "$KRT_OUTPUT_DIR/${name}.yaml"`;

let victim: string;
beforeAll(async () => {
  c = suite.c;
  victim = `${c.namespace}-victim`;
  expect(kubectl(['create', 'namespace', victim]).status).toBe(0);
  for (const args of [
    [
      'create',
      'role',
      'tenant',
      '--verb=get,list,watch,create,update,patch',
      '--resource=workflowruns.kruntimes.io,runs.kruntimes.io,works.kruntimes.io',
    ],
    ['create', 'rolebinding', 'tenant', '--role=tenant', '--user=kruntimes-user'],
  ])
    expect(kubectl([...args, '-n', c.namespace]).status).toBe(0);
  await eventually(
    async () => asTenant(['get', 'workflowruns']).status === 0,
    10_000,
    'the tenant Role to take effect',
  );
});
afterAll(() => {
  kubectl(['delete', 'namespace', victim, '--wait=false', '--ignore-not-found']);
});

/** A Promise whose one pipeline writes a ConfigMap into the resource's namespace, and a resource of it. */
async function configured(name: string) {
  const api = newApi();
  await applyPromise(promiseFor(api, [pipeline('write', configMapTo(c.namespace, `${name}-cm`))]));
  suite.promises.push(api.promise);
  const r = resourceClient(c, api);
  await r.create(name, {});
  const resource = await r.workflow(name, 'Succeeded');
  const runs = (
    (await c.admin.custom.listNamespacedCustomObject({
      ...crd('workflowruns', c.namespace),
      labelSelector: `${LABEL_RESOURCE_UID}=${resource.metadata.uid}`,
    })) as { items: WorkflowRun[] }
  ).items;
  return { api, r, resource, run: runs[0] as WorkflowRun };
}

describe('a forged pipeline run', () => {
  it('is refused at admission, naming the label only the controller sets', async () => {
    const { run } = await configured('forged');
    const labels = { ...run.metadata.labels, [LABEL_WORKFLOW_ROUND]: '2' };
    const forged = {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'WorkflowRun',
      // The resource as owner, as its real pipeline run has it (not blocking its deletion, which the
      // tenant may not).
      metadata: {
        name: 'forged-next',
        labels,
        ownerReferences: run.metadata.ownerReferences?.map((o) => ({ ...o, blockOwnerDeletion: false })),
      },
      spec: {
        jobs: { main: { 'runs-on': 'bash', steps: [{ name: 'go', run: configMapTo(victim, 'planted') }] } },
      },
    };
    const r = asTenant(['create', '-f', '-'], JSON.stringify(forged));
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(
      `user "kruntimes-user" may not write WorkflowRun "forged-next": metadata.labels[${LABEL_RESOURCE_UID}]: set by the kruntimes controller only`,
    );
    // With only the owner reference (which admission allows), the controller does not read it.
    const unlabelled = { ...forged, metadata: { ...forged.metadata, labels: {} } };
    expect(asTenant(['create', '-f', '-'], JSON.stringify(unlabelled)).status).toBe(0);
    await eventually(
      async () =>
        (
          (await c.admin.custom.getNamespacedCustomObject({
            ...crd('workflowruns', c.namespace),
            name: 'forged-next',
          })) as WorkflowRun
        ).status?.phase === 'Succeeded',
      60_000,
      'the unlabelled run to end',
    );
    const works = (
      (await c.admin.custom.listNamespacedCustomObject({ ...crd('works', c.namespace) })) as { items: Work[] }
    ).items;
    expect(
      works.flatMap(
        (w) => w.spec.objects?.map((o) => (o as { metadata: { name: string } }).metadata.name) ?? [],
      ),
    ).not.toContain('planted');
    expect(kubectl(['get', 'configmap', 'planted', '-n', victim]).status).not.toBe(0);
  });

  it("a tenant cannot edit a pipeline run's labels or spec, nor a Run's env", async () => {
    const { run } = await configured('edited');
    const name = run.metadata.name ?? '';
    const label = asTenant(['label', 'workflowrun', name, `${LABEL_PIPELINE}=other`, '--overwrite']);
    expect(label.stderr).toContain(
      `metadata.labels[${LABEL_PIPELINE}]: set by the kruntimes controller: it may not be changed or removed`,
    );
    const spec = asTenant([
      'patch',
      'workflowrun',
      name,
      '--type=merge',
      '-p',
      '{"spec":{"inputFiles":{"object.yaml":"planted"}}}',
    ]);
    expect(spec.stderr).toContain(
      'spec: this run was made by the kruntimes controller: only spec.cancelRequested may change',
    );
    const [step] = JSON.parse(
      kubectl([
        'get',
        'runs',
        '-n',
        c.namespace,
        '-l',
        `kruntimes.io/workflowrun-uid=${run.metadata.uid}`,
        '-o',
        'json',
      ]).stdout,
    ).items;
    const env = asTenant([
      'patch',
      'run',
      step.metadata.name,
      '--type=merge',
      '-p',
      '{"spec":{"env":[{"name":"X","value":"y"}]}}',
    ]);
    expect(env.stderr).toContain(
      'spec: a Run is written by the kruntimes controller: only spec.cancelRequested may change',
    );
    // A Work is the controller's alone.
    const work = {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'Work',
      metadata: { name: 'mine' },
      spec: { pipeline: 'x', objects: [] },
    };
    expect(asTenant(['create', '-f', '-'], JSON.stringify(work)).stderr).toContain(
      'Works are written by the kruntimes controller: user "kruntimes-user" may not write Work "mine"',
    );
  });

  it('a WorkflowRun made beforehand under the next pipeline run’s name is not adopted', async () => {
    const { r, resource } = await configured('squatted');
    const next = pipelineRunName('squatted', resource.metadata.uid ?? '', 'write', 2);
    const squat = {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'WorkflowRun',
      metadata: { name: next },
      spec: {
        jobs: { main: { 'runs-on': 'bash', steps: [{ name: 'go', run: configMapTo(victim, 'squatted') }] } },
      },
    };
    expect(asTenant(['create', '-f', '-'], JSON.stringify(squat)).status).toBe(0);
    await r.patch('squatted', { metadata: { labels: { [LABEL_MANUAL_RECONCILIATION]: 'true' } } });
    const failed = await r.workflow('squatted', 'Failed', 2);
    expect(failed.status?.kruntimes?.workflows?.pipelines?.[0]?.message).toContain(
      `WorkflowRun "${next}" exists and was not made by the kruntimes controller for this`,
    );
    const still = (await c.admin.custom.getNamespacedCustomObject({
      ...crd('workflowruns', c.namespace),
      name: next,
    })) as WorkflowRun;
    expect(still.metadata.labels?.[LABEL_RESOURCE_UID]).toBeUndefined();
    expect(kubectl(['get', 'configmap', 'squatted', '-n', victim]).status).not.toBe(0);
  });
});

describe("a Promise's Works act as the Promise", () => {
  it("apply as the Promise's own service account: a kind it was not granted is refused, naming it", async () => {
    const api = newApi();
    await applyPromise(
      promiseFor(api, [
        pipeline(
          'write',
          `printf 'apiVersion: v1\\nkind: Secret\\nmetadata:\\n  name: s\\nstringData: {a: b}\\n' > "$KRT_OUTPUT_DIR/s.yaml"`,
        ),
      ]),
    );
    suite.promises.push(api.promise);
    const r = resourceClient(c, api);
    await r.create('secretive', {});
    const failing = await r.condition('secretive', 'WorksSucceeded', 'False');
    expect(failing.status?.conditions?.find((x) => x.type === 'WorksSucceeded')?.message).toContain(
      `User "system:serviceaccount:kruntimes-system:${promiseServiceAccount(api.promise)}" cannot get resource "secrets"`,
    );
    // Granted later, with nothing else changed: the failing Work is tried again and applies.
    const account = `kruntimes-system:${promiseServiceAccount(api.promise)}`;
    for (const args of [
      [
        'create',
        'role',
        `${api.promise}-secrets`,
        '--verb=get,list,create,update,patch,delete',
        '--resource=secrets',
      ],
      [
        'create',
        'rolebinding',
        `${api.promise}-secrets`,
        `--role=${api.promise}-secrets`,
        `--serviceaccount=${account}`,
      ],
    ])
      expect(kubectl([...args, '-n', c.namespace]).status).toBe(0);
    await r.condition('secretive', 'WorksSucceeded', 'True', 45_000);
    expect(kubectl(['get', 'secret', 's', '-n', c.namespace]).status).toBe(0);
  });

  it('never take over an object they did not create, nor delete it', async () => {
    const shown = () =>
      kubectl(['get', 'works,configmaps,' + 'events', '-n', c.namespace, '-o', 'wide']).stdout;
    expect(
      kubectl(['create', 'configmap', 'taken-cm', '-n', c.namespace, '--from-literal=by=admin']).status,
    ).toBe(0);
    const api = newApi();
    await applyPromise(promiseFor(api, [pipeline('write', configMapTo(c.namespace, 'taken-cm'))]));
    suite.promises.push(api.promise);
    const r = resourceClient(c, api);
    await r.create('taken', {});
    const failing = await r.condition('taken', 'WorksSucceeded', 'False');
    expect(failing.status?.conditions?.find((x) => x.type === 'WorksSucceeded')?.message).toContain(
      `ConfigMap ${c.namespace}/taken-cm: it exists and was not created by this Work: it is not taken over`,
    );
    await c.admin.custom.deleteNamespacedCustomObject({
      group: 'test.kruntimes.dev',
      version: 'v1',
      plural: api.plural,
      namespace: c.namespace,
      name: 'taken',
    });
    await eventually(
      async () =>
        await c.admin.custom
          .getNamespacedCustomObject({
            group: 'test.kruntimes.dev',
            version: 'v1',
            plural: api.plural,
            namespace: c.namespace,
            name: 'taken',
          })
          .then(
            () => false,
            () => true,
          ),
      60_000,
      () => `the resource to be gone: ${shown()}`,
    );
    const cm = JSON.parse(kubectl(['get', 'configmap', 'taken-cm', '-n', c.namespace, '-o', 'json']).stdout);
    expect(cm.data).toEqual({ by: 'admin' });
  }, 150_000);
});

describe("a run's steps reach only the Secrets its creator may read", () => {
  it('a Secret the creator may not get is refused with the reason; one it may get is read', async () => {
    for (const args of [
      ['create', 'secret', 'generic', 'granted', '--from-literal=v=open'],
      ['create', 'secret', 'generic', 'withheld', '--from-literal=v=closed'],
      ['create', 'role', 'read-granted', '--verb=get', '--resource=secrets', '--resource-name=granted'],
      ['create', 'rolebinding', 'read-granted', '--role=read-granted', '--user=kruntimes-user'],
    ])
      expect(kubectl([...args, '-n', c.namespace]).status).toBe(0);
    const run = (name: string, secret: string) => ({
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'WorkflowRun',
      metadata: { name },
      spec: {
        jobs: {
          main: {
            'runs-on': 'bash',
            steps: [{ name: 'use', secretEnv: { V: { name: secret, key: 'v' } }, run: 'test -n "$V"' }],
          },
        },
      },
    });
    const phase = async (name: string) => (await getWorkflowRun(c, name)).status;
    expect(asTenant(['create', '-f', '-'], JSON.stringify(run('reads-withheld', 'withheld'))).status).toBe(0);
    let last: unknown;
    await eventually(
      async () => ['Succeeded', 'Failed'].includes((last = (await phase('reads-withheld'))?.phase) as string),
      60_000,
      () => `reads-withheld to end (last ${JSON.stringify(last)})`,
    );
    const withheld = await phase('reads-withheld');
    expect(withheld?.phase).toBe('Failed');
    expect(withheld?.jobs?.main?.message).toContain(
      `the run's creator, user "kruntimes-user", may not get Secret "withheld" in namespace "${c.namespace}" (the step's secretEnv V)`,
    );
    await eventually(
      async () => asTenant(['auth', 'can-i', 'get', 'secret/granted']).stdout.trim() === 'yes',
      10_000,
      'the grant',
    );
    expect(asTenant(['create', '-f', '-'], JSON.stringify(run('reads-granted', 'granted'))).status).toBe(0);
    await eventually(
      async () => ['Succeeded', 'Failed'].includes((last = (await phase('reads-granted'))?.phase) as string),
      60_000,
      () => `reads-granted to end (last ${JSON.stringify(last)})`,
    );
    expect((await phase('reads-granted'))?.phase).toBe('Succeeded');
    // The creator is recorded by admission, and may not be rewritten.
    const who = asTenant([
      'annotate',
      'workflowrun',
      'reads-granted',
      'kruntimes.io/created-by={}',
      '--overwrite',
    ]);
    expect(who.stderr).toContain(
      'metadata.annotations[kruntimes.io/created-by]: recorded at creation by admission: it may not change',
    );
  });

  it('a service account the creator may not impersonate is refused with the reason; one it may is used', async () => {
    for (const args of [
      ['create', 'serviceaccount', 'deployer'],
      ['create', 'serviceaccount', 'lent'],
      [
        'create',
        'role',
        'use-lent',
        '--verb=impersonate',
        '--resource=serviceaccounts',
        '--resource-name=lent',
      ],
      ['create', 'rolebinding', 'use-lent', '--role=use-lent', '--user=kruntimes-user'],
    ])
      expect(kubectl([...args, '-n', c.namespace]).status).toBe(0);
    // A container job: the local agent serves no such runtime, so a Run let through waits (NoAgent).
    const run = (name: string, account: string) => ({
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'WorkflowRun',
      metadata: { name },
      spec: {
        jobs: {
          main: {
            'runs-on': 'kubernetes',
            serviceAccountName: account,
            steps: [{ name: 'use', image: 'busybox:1', run: 'true' }],
          },
        },
      },
    });
    const status = async (name: string) => (await getWorkflowRun(c, name)).status;
    expect(asTenant(['create', '-f', '-'], JSON.stringify(run('as-deployer', 'deployer'))).status).toBe(0);
    await eventually(
      async () => (await status('as-deployer'))?.phase === 'Failed',
      60_000,
      'as-deployer to fail',
    );
    expect((await status('as-deployer'))?.jobs?.main?.message).toContain(
      `the run's creator, user "kruntimes-user", may not impersonate ServiceAccount "deployer" in namespace "${c.namespace}" (the step's serviceAccountName)`,
    );
    await eventually(
      async () => asTenant(['auth', 'can-i', 'impersonate', 'serviceaccount/lent']).stdout.trim() === 'yes',
      10_000,
      'the grant',
    );
    expect(asTenant(['create', '-f', '-'], JSON.stringify(run('as-lent', 'lent'))).status).toBe(0);
    await eventually(
      async () => kubectl(['get', 'run', 'as-lent-main-use', '-n', c.namespace]).status === 0,
      60_000,
      'the Run of as-lent to be created',
    );
    expect((await status('as-lent'))?.phase).not.toBe('Failed');
  });
});
