// Liveness over a recording stand-in for the Run writes and the watch cache, on an injected clock:
// the fence stops only a step of this agent's whose heartbeats went unconfirmed past the fence, a
// heartbeat confirms as of when it was sent and gives up the step the API server says is not its
// own, and the sweep puts back only a Run that is stale and quiet on this agent's own clock.
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { Run } from '../src/api/types.js';
import type { ResilientInformer } from '../src/kube/informer.js';
import { HttpError } from '../src/kube/raw.js';
import { AgentState, type Active } from './agent-state.js';
import { Liveness } from './liveness.js';
import type { RunWrites } from './run-writes.js';

const T0 = Date.parse('2026-12-07T12:00:00Z');
const periods = { heartbeatMs: 1000, staleMs: 5000, graceMs: 1000 }; // fence: 3000 ms

function run(name: string, status: Run['status'] = {}): Run {
  return {
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'Run',
    metadata: { name, namespace: 'ns', uid: `uid-${name}` },
    spec: { runtime: 'bash' },
    status,
  } as Run;
}

function active(name: string, o: Partial<Active> = {}): Active & { stops: string[] } {
  const stops: string[] = [];
  return {
    exec: {
      done: new Promise(() => undefined),
      stopReason: undefined,
      stop: (r: string) => void stops.push(r),
    },
    outlives: false,
    run: run(name, { phase: 'Running', assignedTo: 'me', attempts: 1 }),
    attempts: 1,
    lost: false,
    ending: false,
    beat: T0,
    confirmed: T0,
    stops,
    ...o,
  } as Active & { stops: string[] };
}

/** Writes that record each call and answer as `answer` says (undefined: taken). */
function writes(answer?: (name: string) => Error | undefined) {
  const calls: string[] = [];
  const w = {
    owned: async (r: Run, attempts: number, ops: { path: string }[]) => {
      calls.push(`owned ${r.metadata.name} #${attempts} ${ops.map((o) => o.path).join(',')}`);
      const e = answer?.(r.metadata.name ?? '');
      if (e) throw e;
      return r;
    },
    lost: async (r: Run, message: string, why: string, max: number) =>
      void calls.push(`lost ${r.metadata.name} ${why} max=${max}: ${message}`),
  };
  return { w: w as unknown as RunWrites, calls };
}

function informer(runs: Run[], connectedSince = Number.NEGATIVE_INFINITY): ResilientInformer<Run> {
  return { list: () => runs, connectedSince: () => connectedSince } as unknown as ResilientInformer<Run>;
}

function liveness(
  state: AgentState,
  w: RunWrites,
  runs: Run[] = [],
  connectedSince = Number.NEGATIVE_INFINITY,
) {
  return new Liveness(state, w, [informer(runs, connectedSince)], {
    ...periods,
    maxAttempts: () => 3,
    serves: (r) => r.spec.runtime === 'bash',
  });
}

describe('the fence', () => {
  it('stops a step whose last confirmed heartbeat is older than the fence, and only that one', () => {
    const state = new AgentState();
    const silent = active('silent', { confirmed: T0 - 3001 });
    const recent = active('recent', { confirmed: T0 - 3000 });
    const pod = active('pod', { confirmed: T0 - 60_000, outlives: true });
    const ending = active('ending', { confirmed: T0 - 60_000, ending: true });
    for (const a of [silent, recent, pod, ending]) state.active.set(`ns/${a.run.metadata.name}`, a);
    const l = liveness(state, writes().w);
    expect(l.fenceMs).toBe(3000);
    l.fence(T0);
    expect([silent, recent, pod, ending].map((a) => [a.run.metadata.name, a.lost, a.stops])).toEqual([
      ['silent', true, ['release']],
      ['recent', false, []],
      ['pod', false, []],
      ['ending', false, []],
    ]);
  });
});

describe('heartbeats', () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: T0, doNotFake: ['nextTick', 'setImmediate'] });
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('writes one for each step whose last beat is due, and counts it confirmed as of when it was sent', async () => {
    const state = new AgentState();
    const due = active('due', { beat: T0 - 1000, confirmed: T0 - 1000 });
    const fresh = active('fresh', { beat: T0 - 100, confirmed: T0 - 100 });
    state.active.set('ns/due', due).set('ns/fresh', fresh);
    const { w, calls } = writes();
    await liveness(state, w).heartbeat();
    expect(calls).toEqual(['owned due #1 /status/heartbeatTime']);
    expect(due).toMatchObject({ beat: T0, confirmed: T0, lost: false });
    expect(fresh.confirmed).toBe(T0 - 100);
  });

  it('says in the Run why a step waits to start, once', async () => {
    const state = new AgentState();
    const waiting = active('quota', { beat: T0 - 1000 });
    (waiting.exec as { waiting?: string }).waiting = 'QuotaExceeded: waiting for the quota';
    state.active.set('ns/quota', waiting);
    const { w, calls } = writes();
    const l = liveness(state, w);
    await l.heartbeat();
    jest.setSystemTime(T0 + 1000);
    await l.heartbeat();
    expect(calls).toEqual([
      'owned quota #1 /status/heartbeatTime,/status/message',
      'owned quota #1 /status/heartbeatTime',
    ]);
  });

  it('gives up a step whose Run was deleted, re-queued or ended by someone else', async () => {
    for (const code of [404, 409, 422]) {
      const state = new AgentState();
      const a = active('taken', { beat: T0 - 1000 });
      state.active.set('ns/taken', a);
      await liveness(state, writes(() => new HttpError(code, '{}')).w).heartbeat();
      expect([code, a.lost, a.stops]).toEqual([code, true, ['release']]);
    }
  });

  it('keeps a step whose heartbeat failed for the API server: unconfirmed, until the fence', async () => {
    const state = new AgentState();
    const a = active('busy', { beat: T0 - 1000, confirmed: T0 - 1000 });
    state.active.set('ns/busy', a);
    const l = liveness(state, writes(() => new HttpError(503, '{}')).w);
    await l.heartbeat();
    expect(a).toMatchObject({ lost: false, confirmed: T0 - 1000, stops: [] });
    jest.setSystemTime(T0 + 2001);
    await l.heartbeat(); // the fence runs first on every heartbeat
    expect(a).toMatchObject({ lost: true, stops: ['release'] });
  });
});

describe('the stale sweep', () => {
  const stale = {
    phase: 'Running',
    assignedTo: 'other',
    attempts: 1,
    heartbeatTime: new Date(0).toISOString(),
  } as const;

  it('puts back a Run whose heartbeat is stale and that this agent saw quiet for the stale period', async () => {
    const quiet = run('quiet', stale);
    const justChanged = run('just-changed', stale);
    const mine = run('mine', stale);
    const reported = run('reported', stale);
    const other = { ...run('other-runtime', stale), spec: { runtime: 'pods' } } as Run;
    const live = run('live', { ...stale, heartbeatTime: new Date().toISOString() });
    const state = new AgentState();
    const here = performance.now();
    for (const r of [quiet, mine, reported, other, live])
      state.lastChange.set(`ns/${r.metadata.name}`, here - 6000);
    state.lastChange.set('ns/just-changed', here - 1000);
    state.active.set('ns/mine', active('mine'));
    state.reporting.add('ns/reported');
    const { w, calls } = writes();
    await liveness(state, w, [quiet, justChanged, mine, reported, other, live]).reapStale();
    expect(calls).toEqual(['lost quiet stale max=3: agent other sent no heartbeat for 5s']);
  });

  it("gives the holder a whole stale period after this agent's watch came back", async () => {
    const state = new AgentState();
    const here = performance.now();
    state.lastChange.set('ns/quiet', here - 60_000);
    const { w, calls } = writes();
    await liveness(state, w, [run('quiet', stale)], here - 1000).reapStale();
    expect(calls).toEqual([]);
  });
});
