import { ApiException } from '@kubernetes/client-node';
import {
  isAuthorizationDenial,
  isDeterministicRefusal,
  isNamespaceGone,
  isNamespaceTerminating,
  isQuotaExceeded,
  isTransient,
  retryTransient,
} from './retry.js';

const api = (code: number) => new ApiException(code, 'x', '', {});

describe('retryTransient', () => {
  function clock() {
    let t = 0;
    const slept: number[] = [];
    return {
      slept,
      now: () => t,
      sleep: async (ms: number) => {
        slept.push(ms);
        t += ms;
      },
    };
  }

  it('retries network errors, 429 and 5xx with doubling pauses, then returns the result', async () => {
    const c = clock();
    const errors = [new Error('ECONNREFUSED'), api(503), api(429)];
    const r = await retryTransient(
      async () => {
        const e = errors.shift();
        if (e) throw e;
        return 'done';
      },
      { deadlineMs: 10_000, minDelayMs: 100, ...c },
    );
    expect(r).toBe('done');
    expect(c.slept).toEqual([100, 200, 400]);
  });

  it('gives up with the last error once the next pause would pass the deadline', async () => {
    const c = clock();
    await expect(
      retryTransient(
        async () => {
          throw api(500);
        },
        { deadlineMs: 1000, minDelayMs: 100, maxDelayMs: 300, ...c },
      ),
    ).rejects.toMatchObject({ code: 500 });
    expect(c.slept).toEqual([100, 200, 300, 300]);
  });

  it.each([404, 409, 422, 403])('does not retry %i: the answer is about the object', async (code) => {
    const c = clock();
    let calls = 0;
    await expect(
      retryTransient(
        async () => {
          calls++;
          throw api(code);
        },
        { deadlineMs: 10_000, ...c },
      ),
    ).rejects.toMatchObject({ code });
    expect(calls).toBe(1);
  });

  it('retries what it is told to, says so before each pause, and stops when the work is abandoned', async () => {
    const c = clock();
    const quota = new ApiException(
      403,
      'Forbidden',
      JSON.stringify({ message: 'pods "p" is forbidden: exceeded quota: q, requested: pods=1' }),
      {},
    );
    const told: [number, number][] = [];
    let calls = 0;
    let cancelled = false;
    await expect(
      retryTransient(
        async () => {
          if (++calls === 3) cancelled = true;
          throw quota;
        },
        {
          deadlineMs: 60_000,
          minDelayMs: 1000,
          ...c,
          retryable: (e) => isQuotaExceeded(e),
          onRetry: (e, delay) => told.push([(e as ApiException<unknown>).code, delay]),
          abandoned: () => cancelled,
        },
      ),
    ).rejects.toBe(quota);
    expect(calls).toBe(3);
    expect(told).toEqual([
      [403, 1000],
      [403, 2000],
    ]);
    expect(c.slept).toEqual([1000, 2000]);
  });

  it('tells a full quota from other refusals', () => {
    const forbidden = (message: string) =>
      new ApiException(403, 'Forbidden', JSON.stringify({ message }), {});
    expect(
      isQuotaExceeded(
        forbidden(
          'pods "p" is forbidden: exceeded quota: q, requested: pods=1, used: pods=0, limited: pods=0',
        ),
      ),
    ).toBe(true);
    expect(isQuotaExceeded(forbidden('User "u" cannot create resource "pods"'))).toBe(false);
    expect(isQuotaExceeded(api(409))).toBe(false);
  });

  it('classifies errors', () => {
    expect([
      isTransient(new Error('x')),
      isTransient(api(502)),
      isTransient(api(429)),
      isTransient(api(400)),
    ]).toEqual([true, true, true, false]);
  });
});

describe('isDeterministicRefusal', () => {
  const status = (code: number, message: string) =>
    new ApiException(code, 'x', JSON.stringify({ kind: 'Status', code, message }), {});
  it('is true for admission denials, invalid and too large objects', () => {
    for (const code of [400, 403, 413, 422]) expect(isDeterministicRefusal(api(code))).toBe(true);
    expect(
      isDeterministicRefusal(status(400, 'admission webhook "validate.kruntimes.io" denied the request')),
    ).toBe(true);
  });
  it('is false for what may change: network, 409, 429, 5xx, a namespace being deleted', () => {
    for (const e of [new Error('ECONNRESET'), api(404), api(409), api(429), api(500), api(504)])
      expect(isDeterministicRefusal(e)).toBe(false);
    const message =
      'runs "x" is forbidden: unable to create new content in namespace n because it is being terminated';
    const terminating = new ApiException(
      403,
      'x',
      JSON.stringify({
        kind: 'Status',
        code: 403,
        reason: 'Forbidden',
        message,
        details: {
          name: 'x',
          kind: 'runs',
          causes: [{ reason: 'NamespaceTerminating', message, field: 'metadata.namespace' }],
        },
      }),
      {},
    );
    expect(isNamespaceTerminating(terminating)).toBe(true);
    expect(isDeterministicRefusal(terminating)).toBe(false);
    // The words alone, without the Status's cause, are not read.
    expect(isNamespaceTerminating(status(403, message))).toBe(false);
  });
  it('tells a namespace being deleted or gone from the Status details, not its words alone', () => {
    const body = (code: number, details: object) =>
      new ApiException(code, 'x', JSON.stringify({ kind: 'Status', code, message: 'm', details }), {});
    expect(isNamespaceTerminating(body(403, { causes: [{ reason: 'NamespaceTerminating' }] }))).toBe(true);
    expect(isNamespaceTerminating(body(403, { causes: [{ reason: 'FieldValueInvalid' }] }))).toBe(false);
    expect(isNamespaceGone(body(404, { kind: 'namespaces', name: 'gone' }))).toBe(true);
    expect(isNamespaceGone(body(404, { kind: 'workflowruns', name: 'x' }))).toBe(false);
    expect(isNamespaceGone(api(404))).toBe(false);
  });
  it('is false for an authorization denial: an API server just started answers so until its RBAC caches fill', () => {
    const rbac = status(
      403,
      'runs.kruntimes.io is forbidden: User "system:serviceaccount:kruntimes-system:kruntimes-controller" cannot create resource "runs" in API group "kruntimes.io" in the namespace "n"',
    );
    expect(isAuthorizationDenial(rbac)).toBe(true);
    expect(isDeterministicRefusal(rbac)).toBe(false);
    const webhook = status(
      403,
      'admission webhook "validate.kruntimes.io" denied the request: spec.jobs: bad',
    );
    expect(isAuthorizationDenial(webhook)).toBe(false);
    expect(isDeterministicRefusal(webhook)).toBe(true);
  });
});
