import { Buffer } from 'node:buffer';
import type { Workflow } from '../src/api/types.js';
import { mutateRequest, workflowDefaults } from './mutate/index.js';
import { decodeReview, tooDeepAt, MAX_OBJECT_DEPTH, type AdmissionRequest } from './review.js';
import { validateRequest } from './validate/index.js';

const req = (over: Partial<AdmissionRequest> = {}): AdmissionRequest => ({
  uid: 'u-1',
  kind: { group: 'kruntimes.io', version: 'v1alpha1', kind: 'WorkflowRun' },
  operation: 'CREATE',
  namespace: 'ns',
  name: 'r',
  userInfo: { username: 'alice', groups: ['system:authenticated'] },
  object: {
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'WorkflowRun',
    metadata: { name: 'r' },
    spec: { jobs: { a: { 'runs-on': 'bash', steps: [{ name: 's', run: 'true' }] } } },
  },
  ...over,
});
const envelope = (request: unknown) => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request,
});

describe('decodeReview', () => {
  it.each([
    [null, 'the body is not an AdmissionReview object'],
    [[], 'the body is not an AdmissionReview object'],
    [
      { apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', request: { uid: 'x' } },
      'unsupported apiVersion "admission.k8s.io/v1beta1"',
    ],
    [{ apiVersion: 'admission.k8s.io/v1', kind: 'Pod' }, 'unsupported kind "Pod"'],
    [envelope(undefined), 'request is missing'],
    [envelope({ kind: {} }), 'request.uid is missing'],
    [envelope({ uid: 'x' }), 'request.kind is missing'],
    [
      envelope({ uid: 'x', kind: { group: 'g', kind: 'K' }, operation: 'PATCH' }),
      'request.operation "PATCH" is not one of',
    ],
    [
      envelope({
        uid: 'x',
        kind: { group: 'g', kind: 'K' },
        operation: 'CREATE',
        userInfo: { groups: 'system:masters' },
      }),
      'request.userInfo.groups must be a list of strings',
    ],
    [
      envelope({ uid: 'x', kind: { group: 'g', kind: 'K' }, operation: 'CREATE', name: 7 }),
      'request.name must be a string',
    ],
    [
      envelope({
        uid: 'x',
        kind: { group: 'g', kind: 'K' },
        operation: 'CREATE',
        object: { metadata: { annotations: { a: 1 } } },
      }),
      'request.object.metadata.annotations must map strings to strings',
    ],
    [
      envelope({ uid: 'x', kind: { group: 'g', kind: 'K' }, operation: 'CREATE', oldObject: [] }),
      'request.oldObject must be an object',
    ],
  ])('refuses %j', (body, message) => {
    const d = decodeReview(body);
    expect(d.ok).toBe(false);
    if (!d.ok) expect(d.message).toContain(message);
  });

  it('keeps the uid it could read for the denial', () => {
    const d = decodeReview({ apiVersion: 'x', kind: 'AdmissionReview', request: { uid: 'keep-me' } });
    expect(d).toMatchObject({ ok: false, uid: 'keep-me' });
  });

  it(`refuses objects nested deeper than ${MAX_OBJECT_DEPTH} without recursion`, () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 200000; i++) deep = { a: deep };
    expect(tooDeepAt(deep, MAX_OBJECT_DEPTH)).toBe('a.a.a.a.a');
    const object = { spec: { jobs: { c: { with: { msg: deep, ok: 'x' } } } } };
    const d = decodeReview(envelope({ ...req(), object }));
    // The review is well-formed: the denial names the field and the limit, not a malformed request.
    expect(d).toEqual({
      ok: false,
      uid: 'u-1',
      invalid: true,
      message: `spec.jobs.c.with.msg: nests deeper than ${MAX_OBJECT_DEPTH} levels`,
    });
    expect(tooDeepAt({ steps: [[[deep]]] }, MAX_OBJECT_DEPTH)).toBe('steps[0][0][0].a');
    let ok: unknown = 'leaf';
    for (let i = 0; i < MAX_OBJECT_DEPTH - 1; i++) ok = [ok];
    expect(tooDeepAt(ok, MAX_OBJECT_DEPTH)).toBeUndefined();
  });
});

describe('decodeReview: userInfo.extra', () => {
  it('accepts a map of string lists and refuses anything else', () => {
    const with_ = (extra: unknown) =>
      decodeReview(envelope({ ...req(), userInfo: { username: 'a', extra } }));
    expect(with_({ 'authentication.kubernetes.io/pod-name': ['p'] }).ok).toBe(true);
    for (const bad of ['x', ['p'], { k: 'p' }, { k: [1] }])
      expect(with_(bad)).toMatchObject({
        ok: false,
        message: 'request.userInfo.extra must map strings to lists of strings',
      });
  });
});

describe('validateRequest', () => {
  it('allows a valid WorkflowRun', () => {
    expect(validateRequest(req()).response).toEqual({ uid: 'u-1', allowed: true });
  });

  it('denies with every error, naming the field and the rule', () => {
    const r = validateRequest(
      req({
        object: {
          metadata: { name: 'r' },
          spec: {
            jobs: {
              a: {
                'runs-on': 'bash',
                steps: [{ name: 's', run: 'echo ${{ jobs.zz.outputs.o }}' }],
                needs: ['q'],
              },
            },
          },
        },
      }),
    );
    expect(r.response).toEqual({
      uid: 'u-1',
      allowed: false,
      status: {
        code: 422,
        reason: 'Invalid',
        message: 'WorkflowRun "r" is invalid: spec.jobs.a.needs: job "q" does not exist',
      },
    });
  });

  it('refuses kinds it does not own', () => {
    const r = validateRequest(req({ kind: { group: '', version: 'v1', kind: 'Pod' } }));
    expect(r.response.status?.message).toBe('this webhook does not validate Pod.');
  });

  it('lets only admins and the controller create Runs', () => {
    const run = { metadata: { name: 'x' }, spec: { runtime: 'bash', script: 'true' } };
    const kind = { group: 'kruntimes.io', version: 'v1alpha1', kind: 'Run' };
    expect(validateRequest(req({ kind, object: run })).response).toMatchObject({
      allowed: false,
      status: {
        code: 403,
        message: 'Runs are created by the kruntimes controller: user "alice" may not create Run "x"',
      },
    });
    expect(
      validateRequest(req({ kind, object: run, userInfo: { username: 'root', groups: ['system:masters'] } }))
        .response.allowed,
    ).toBe(true);
  });

  it('lets an agent write only the status of the Runs it holds', () => {
    const kind = { group: 'kruntimes.io', version: 'v1alpha1', kind: 'Run' };
    const run = (status: object) => ({
      metadata: { name: 'x' },
      spec: { runtime: 'bash', script: 'true' },
      status,
    });
    const agent = (name: string) => ({
      username: 'system:serviceaccount:kruntimes-system:kruntimes-runtimed',
      extra: { 'authentication.kubernetes.io/pod-name': [name] },
    });
    const held = run({
      phase: 'Running',
      assignedTo: 'a',
      attempts: 1,
      heartbeatTime: '2026-12-03T10:00:00Z',
    });
    const write = (userInfo: object, object: object, subResource = 'status') =>
      validateRequest(req({ kind, operation: 'UPDATE', subResource, userInfo, oldObject: held, object }), {
        now: () => new Date('2026-12-03T10:00:10Z'),
      }).response;
    expect(write(agent('b'), run({ phase: 'Succeeded', assignedTo: 'a' }))).toMatchObject({
      allowed: false,
      status: {
        code: 403,
        message: 'Run "x": status: Run is held by agent "a": agent "b" may not write its status',
      },
    });
    expect(write(agent('a'), run({ phase: 'Succeeded', assignedTo: 'a' })).allowed).toBe(true);
    expect(write({ username: 'admin', groups: ['system:masters'] }, run({ phase: 'Failed' })).allowed).toBe(
      true,
    );
    // The rule is about the status subresource; the main resource cannot change status at all.
    expect(write(agent('b'), run({ phase: 'Succeeded', assignedTo: 'a' }), '').allowed).toBe(true);
  });

  it('warns when a Workflow that others call is deleted', () => {
    const wf = (name: string, uses?: string) =>
      ({
        metadata: { name, namespace: 'ns' },
        spec: { jobs: { j: uses ? { uses } : { 'runs-on': 'bash', steps: [{ name: 's', run: 'x' }] } } },
      }) as unknown as Workflow;
    const all = new Map([
      ['a', wf('a', 'b')],
      ['b', wf('b')],
      ['c', wf('c', 'b')],
    ]);
    const workflows = { get: (_ns: string, n: string) => all.get(n), inNamespace: () => all };
    const r = validateRequest(
      req({
        operation: 'DELETE',
        kind: { group: 'kruntimes.io', version: 'v1alpha1', kind: 'Workflow' },
        name: 'b',
        object: undefined,
      }),
      { workflows },
    );
    expect(r.response).toEqual({
      uid: 'u-1',
      allowed: true,
      warnings: ['workflow "b" is still called by "a", "c": their call jobs will fail until it exists again'],
    });
  });
});

describe('mutateRequest', () => {
  const wf = { metadata: { name: 'w' }, spec: { inputs: { a: {}, 'b/c': { type: 'number' } }, jobs: {} } };
  it('defaults an input type to string, as a JSON patch', () => {
    const r = mutateRequest(
      req({ kind: { group: 'kruntimes.io', version: 'v1alpha1', kind: 'Workflow' }, object: wf }),
    );
    expect(r.response.patchType).toBe('JSONPatch');
    expect(JSON.parse(Buffer.from(r.response.patch as string, 'base64').toString())).toEqual([
      { op: 'add', path: '/spec/inputs/a/type', value: 'string' },
    ]);
  });
  it('is idempotent: a second pass adds nothing', () => {
    expect(workflowDefaults({ ...wf, spec: { ...wf.spec, inputs: { a: { type: 'string' } } } })).toEqual([]);
    const first = mutateRequest(req()).response;
    const ops = JSON.parse(Buffer.from(first.patch ?? '', 'base64').toString()) as { value: object }[];
    const object = { ...(req().object as object), metadata: { name: 'r', annotations: ops[0]?.value } };
    expect(mutateRequest(req({ object })).response).toEqual({ uid: 'u-1', allowed: true });
  });
});

describe('what only the controller writes', () => {
  const controller = { username: 'system:serviceaccount:kruntimes-system:kruntimes-controller' };
  const pipelineRun = {
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'WorkflowRun',
    metadata: { name: 'r', labels: { 'kruntimes.io/resource-uid': 'u1', 'kruntimes.io/pipeline': 'p' } },
    spec: { jobs: { a: { 'runs-on': 'bash', steps: [{ name: 's', run: 'true' }] } } },
  };

  it('refuses a pipeline run forged by a user, naming the label, and lets the controller make it', () => {
    expect(validateRequest(req({ object: pipelineRun })).response).toMatchObject({
      allowed: false,
      status: {
        code: 403,
        message:
          'user "alice" may not write WorkflowRun "r": metadata.labels[kruntimes.io/resource-uid]: set by the kruntimes controller only: it marks what the controller made and trusts; metadata.labels[kruntimes.io/pipeline]: set by the kruntimes controller only: it marks what the controller made and trusts',
      },
    });
    expect(validateRequest(req({ object: pipelineRun, userInfo: controller })).response.allowed).toBe(true);
  });

  it('refuses a user writing a Work', () => {
    const kind = { group: 'kruntimes.io', version: 'v1alpha1', kind: 'Work' };
    const work = { metadata: { name: 'w' }, spec: { objects: [] } };
    expect(validateRequest(req({ kind, object: work })).response).toMatchObject({
      allowed: false,
      status: {
        code: 403,
        message: 'Works are written by the kruntimes controller: user "alice" may not write Work "w"',
      },
    });
    expect(validateRequest(req({ kind, object: work, userInfo: controller })).response.allowed).toBe(true);
  });

  it("refuses a user changing a Run's env", () => {
    const kind = { group: 'kruntimes.io', version: 'v1alpha1', kind: 'Run' };
    const run = (env: object[]) => ({
      metadata: { name: 'x' },
      spec: { runtime: 'bash', script: 'true', env },
    });
    const r = validateRequest(
      req({ kind, operation: 'UPDATE', oldObject: run([]), object: run([{ name: 'A', value: 'b' }]) }),
    );
    expect(r.response).toMatchObject({
      allowed: false,
      status: {
        code: 403,
        message:
          'user "alice" may not write Run "x": spec: a Run is written by the kruntimes controller: only spec.cancelRequested may change',
      },
    });
  });
});

describe('the creator of a WorkflowRun', () => {
  it('is recorded by the mutating webhook for a user, and left to the controller for its own runs', () => {
    const body = {
      metadata: { name: 'r', annotations: { 'kruntimes.io/created-by': 'forged' } },
      spec: { jobs: {} },
    };
    const patch = (userInfo: object) => {
      const r = mutateRequest(req({ object: body, userInfo })).response;
      return r.patch ? JSON.parse(Buffer.from(r.patch, 'base64').toString()) : [];
    };
    expect(patch({ username: 'alice', groups: ['team'] })).toEqual([
      {
        op: 'add',
        path: '/metadata/annotations/kruntimes.io~1created-by',
        value: '{"username":"alice","groups":["team"]}',
      },
    ]);
    // The controller (and an admin) may hand over a run's creator; an admin's own run records them.
    expect(patch({ username: 'system:serviceaccount:kruntimes-system:kruntimes-controller' })).toEqual([]);
    const admin = { username: 'root', groups: ['system:masters'] };
    const plain = { metadata: { name: 'r' }, spec: { jobs: {} } };
    const r = mutateRequest(req({ object: plain, userInfo: admin })).response;
    expect(JSON.parse(Buffer.from(r.patch ?? '', 'base64').toString())).toEqual([
      {
        op: 'add',
        path: '/metadata/annotations',
        value: { 'kruntimes.io/created-by': '{"username":"root","groups":["system:masters"]}' },
      },
    ]);
    const pipelineRun = {
      metadata: { name: 'p', labels: { 'kruntimes.io/resource-uid': 'u' } },
      spec: { jobs: {} },
    };
    const controller = { username: 'system:serviceaccount:kruntimes-system:kruntimes-controller' };
    expect(mutateRequest(req({ object: pipelineRun, userInfo: controller })).response.patch).toBeUndefined();
  });
});
