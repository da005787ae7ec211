// A Promise cannot take over or delete another's API: against the real API server, webhook and
// controller, a CRD that no Promise made (and an object of it) stays exactly as it was through the
// create, update and delete of a Promise naming it; the Promise says APIConflict and who owns the
// API; admission warns; and the API server's own policy refuses the controller's identity any change
// to a CRD that a Promise does not own.
import type { PromiseObject } from '../../src/api/types.js';
import { eventually } from '../harness/cluster.js';
import { kubectl } from '../harness/kubectl.js';
import { newApi, pipeline, promiseFor, promiseSuite, TEST_GROUP } from '../harness/promises.js';

const suite = promiseSuite('e2e-promise-conflict');
const CONTROLLER = 'system:serviceaccount:kruntimes-system:kruntimes-controller';

const api = newApi();
const crdName = `${api.plural}.${TEST_GROUP}`;
// The very CRD a Promise of this API would make, but made by someone else (kubectl, no owner).
const foreignCrd = promiseFor(api, []).spec.api as { metadata: object; spec: Record<string, unknown> };

const json = <T>(args: string[]): T => {
  const r = kubectl([...args, '-o', 'json']);
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as T;
};
type Meta = { metadata: { uid: string; resourceVersion: string; ownerReferences?: unknown[] } };
const crdNow = () => json<Meta & { spec: unknown }>(['get', 'crd', crdName]);

afterAll(() => {
  kubectl(['delete', 'crd', crdName, '--ignore-not-found', '--wait=false']);
});

it('a foreign CRD stays untouched through create, update and delete of a Promise naming it', async () => {
  const { c } = suite;
  expect(kubectl(['create', '-f', '-'], JSON.stringify(foreignCrd)).stderr).toBe('');
  expect(kubectl(['wait', '--for=condition=Established', '--timeout=30s', `crd/${crdName}`]).status).toBe(0);
  const object = {
    apiVersion: `${TEST_GROUP}/v1`,
    kind: api.kind,
    metadata: { name: 'theirs', namespace: c.namespace },
  };
  expect(kubectl(['create', '-f', '-'], JSON.stringify(object)).stderr).toBe('');
  const before = crdNow();

  const promise = promiseFor(api, [pipeline('p', 'true')]);
  // Admission warns once the webhook's cache holds the CRD (a server-side dry run writes nothing).
  await eventually(
    async () =>
      kubectl(['apply', '--dry-run=server', '-f', '-'], JSON.stringify(promise)).stderr.includes(
        `spec.api: the API ${crdName} exists and belongs to no Promise (its fields are managed by kubectl`,
      ),
    30_000,
    'admission to warn about the foreign API',
  );
  const applied = kubectl(['apply', '-f', '-'], JSON.stringify(promise));
  expect(applied.status).toBe(0);
  expect(applied.stderr).toContain('the Promise stays unavailable (APIConflict)');
  suite.promises.push(api.promise);

  const available = () =>
    json<PromiseObject>(['get', 'promise', api.promise]).status?.conditions?.find(
      (x) => x.type === 'Available',
    );
  await eventually(
    async () => available()?.reason === 'APIConflict',
    30_000,
    () => `APIConflict (last: ${JSON.stringify(available())})`,
  );
  expect(available()).toMatchObject({
    status: 'False',
    message: expect.stringContaining(`the API ${crdName} exists and belongs to no Promise`),
  });
  expect(crdNow()).toEqual(before);

  // An update of the Promise changes nothing either.
  const updated = promiseFor(api, [pipeline('p', 'true'), pipeline('q', 'true')]);
  expect(kubectl(['apply', '-f', '-'], JSON.stringify(updated)).status).toBe(0);
  await eventually(
    async () => json<PromiseObject>(['get', 'promise', api.promise]).status?.observedGeneration === 2,
    30_000,
    'the controller to see the update',
  );
  expect(available()?.reason).toBe('APIConflict');
  expect(crdNow()).toEqual(before);

  // Deleting the Promise neither deletes the API nor its objects.
  expect(kubectl(['delete', 'promise', api.promise, '--timeout=60s']).status).toBe(0);
  expect(crdNow()).toEqual(before);
  expect(json<Meta>(['get', api.plural, 'theirs', '-n', c.namespace]).metadata.uid).toBeDefined();
});

it('the API server refuses the controller any change to a CRD that a Promise does not own', () => {
  const asController = (args: string[]) => kubectl([...args, `--as=${CONTROLLER}`, '--dry-run=server']);
  const refusal =
    'the kruntimes controller creates, changes and deletes only CRDs whose controller owner is a Promise';
  for (const r of [
    asController(['delete', 'crd', crdName]),
    asController(['label', 'crd', crdName, 'x=y']),
  ]) {
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(refusal);
  }
  const create = kubectl(
    ['create', '-f', '-', `--as=${CONTROLLER}`, '--dry-run=server'],
    JSON.stringify({
      ...foreignCrd,
      metadata: { name: `other${api.plural}.${TEST_GROUP}` },
      spec: { ...foreignCrd.spec, names: { kind: `Other${api.kind}`, plural: `other${api.plural}` } },
    }),
  );
  expect(create.stderr).toContain(refusal);
});

it("the API server refuses the controller moving a Promise's CRD to another Promise", async () => {
  const own = newApi();
  const ownCrd = `${own.plural}.${TEST_GROUP}`;
  expect(kubectl(['apply', '-f', '-'], JSON.stringify(promiseFor(own, []))).status).toBe(0);
  suite.promises.push(own.promise);
  let refs: { uid: string }[] = [];
  await eventually(
    async () => {
      const r = kubectl(['get', 'crd', ownCrd, '-o', 'json']);
      refs =
        r.status === 0
          ? (((JSON.parse(r.stdout) as Meta).metadata.ownerReferences ?? []) as typeof refs)
          : [];
      return refs.length > 0;
    },
    30_000,
    `the CRD of Promise ${own.promise}`,
  );
  expect(refs).toHaveLength(1);
  const asController = (args: string[]) => kubectl([...args, `--as=${CONTROLLER}`, '--dry-run=server']);
  // Its own Promise's CRD the controller may change...
  expect(asController(['label', 'crd', ownCrd, 'x=y']).stderr).toBe('');
  // ...but not give to another.
  const moved = asController([
    'patch',
    'crd',
    ownCrd,
    '--type=json',
    '-p',
    JSON.stringify([
      {
        op: 'replace',
        path: '/metadata/ownerReferences/0/uid',
        value: '00000000-0000-0000-0000-000000000001',
      },
    ]),
  ]);
  expect(moved.status).not.toBe(0);
  expect(moved.stderr).toContain(
    'a CRD stays with the Promise that made it; the kruntimes controller cannot give it to another',
  );
});
