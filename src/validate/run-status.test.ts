import type { Run } from '../api/types.js';
import { formatFieldError } from '../fielderror.js';
import { AGENT_EXTRA, runStatusWriteError, type Writer } from './run-status.js';

const SA = 'system:serviceaccount:kruntimes-system:kruntimes-runtimed';
const now = new Date('2026-12-03T10:00:00Z');
const rules = { runtimedUsers: [SA], staleMs: 30_000, now };
const agent = (name: string): Writer => ({ username: SA, extra: { [AGENT_EXTRA]: [name] } });
const run = (status?: Run['status']): Run =>
  ({
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'Run',
    metadata: { name: 'r' },
    spec: { runtime: 'bash', script: 'x' },
    ...(status ? { status } : {}),
  }) as Run;
const ago = (s: number) => new Date(now.getTime() - s * 1000).toISOString();
const held = (by: string, beat = ago(1)) =>
  run({ phase: 'Running', assignedTo: by, attempts: 1, heartbeatTime: beat });
const check = (old: Run, next: Run, w: Writer) => {
  const e = runStatusWriteError(old, next, w, rules);
  return e && formatFieldError(e);
};

describe('runStatusWriteError', () => {
  it('leaves users other than runtimed alone (the controller, admins)', () => {
    expect(
      check(held('a'), run({ phase: 'Failed' }), {
        username: 'system:serviceaccount:kruntimes-system:kruntimes-controller',
      }),
    ).toBeUndefined();
    expect(check(held('a'), run({ phase: 'Failed' }), { username: 'admin' })).toBeUndefined();
  });

  it('lets an agent claim a waiting Run for itself only', () => {
    expect(check(run(), held('a'), agent('a'))).toBeUndefined();
    expect(check(run({ phase: 'Pending', attempts: 1 }), held('a'), agent('a'))).toBeUndefined();
    expect(check(run(), held('b'), agent('a'))).toBe(
      'status.assignedTo: agent "a" may not claim a Run for "b"',
    );
  });

  it('lets the holder write its Run: heartbeats, the end, a hand-back', () => {
    expect(check(held('a'), held('a', ago(0)), agent('a'))).toBeUndefined();
    expect(
      check(held('a'), run({ phase: 'Succeeded', assignedTo: 'a', outputs: { v: '1' } }), agent('a')),
    ).toBeUndefined();
    expect(check(held('a'), run({ phase: 'Pending', attempts: 1 }), agent('a'))).toBeUndefined();
  });

  it('refuses another agent writing a held Run', () => {
    expect(
      check(held('a'), run({ phase: 'Succeeded', assignedTo: 'a', outputs: { v: 'forged' } }), agent('b')),
    ).toBe('status: Run is held by agent "a": agent "b" may not write its status');
    expect(
      check(
        run({ phase: 'Succeeded', assignedTo: 'a' }),
        run({ phase: 'Succeeded', assignedTo: 'a', outputs: { v: 'x' } }),
        agent('b'),
      ),
    ).toBe('status: Run is held by agent "a": agent "b" may not write its status');
  });

  it('lets another agent re-queue a held Run only once its heartbeat is stale', () => {
    const requeue = run({ phase: 'Pending', attempts: 1, message: 'stale' });
    expect(check(held('a', ago(31)), requeue, agent('b'))).toBeUndefined();
    expect(check(held('a', ago(5)), requeue, agent('b'))).toBe(
      'status: Run is held by agent "a", whose last heartbeat is not 30s old: agent "b" may not re-queue it yet',
    );
    // Its last attempt spent, the Run may be ended as lost instead, and only as lost.
    const lost = run({ phase: 'Failed', reason: 'AgentLost', attempts: 3, message: 'lost' });
    expect(check(held('a', ago(31)), lost, agent('b'))).toBeUndefined();
    expect(check(held('a', ago(5)), lost, agent('b'))).toBe(
      'status: Run is held by agent "a", whose last heartbeat is not 30s old: agent "b" may not re-queue it yet',
    );
    expect(check(held('a', ago(31)), run({ phase: 'Failed', reason: 'Error' }), agent('b'))).toBe(
      'status: Run is held by agent "a": agent "b" may not write its status',
    );
    // Re-queueing and claiming in one write is a claim of a held Run.
    expect(check(held('a', ago(31)), held('b'), agent('b'))).toBe(
      'status: Run is held by agent "a": agent "b" may not write its status',
    );
  });

  it('refuses a runtimed write without an agent identity', () => {
    const extras: (Record<string, string[]> | undefined)[] = [
      undefined,
      {},
      { [AGENT_EXTRA]: [] },
      { [AGENT_EXTRA]: ['a', 'b'] },
    ];
    for (const extra of extras)
      expect(check(run(), held('a'), { username: SA, ...(extra ? { extra } : {}) })).toMatch(
        /^status: a runtimed agent writes Run status with a token bound to its Pod/,
      );
  });
});
