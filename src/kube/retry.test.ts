import { ApiException } from '@kubernetes/client-node';
import { isTransient, retryTransient } from './retry.js';

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

  it('classifies errors', () => {
    expect([
      isTransient(new Error('x')),
      isTransient(api(502)),
      isTransient(api(429)),
      isTransient(api(400)),
    ]).toEqual([true, true, true, false]);
  });
});
