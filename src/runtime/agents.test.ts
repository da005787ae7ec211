import {
  servedUntilByLeases,
  servingChanged,
  agentFromLease,
  agentLease,
  agentLeaseName,
  isLive,
  noAgentMessage,
  servedUntil,
  type AgentInfo,
} from './agents.js';

const T0 = Date.parse('2026-12-03T10:00:00Z');

describe('agents from their Leases', () => {
  it('writes and reads back a Lease naming identity, runtimes and namespaces', () => {
    const lease = agentLease(
      { identity: 'node-1', runtimes: ['bash', 'python'], namespaces: ['a', 'b'], durationSeconds: 15 },
      new Date(T0),
    );
    expect(lease.metadata).toEqual({
      name: 'runtimed-node-1',
      labels: { 'kruntimes.io/agent': 'runtimed' },
      annotations: { 'kruntimes.io/runtimes': 'bash,python', 'kruntimes.io/namespaces': 'a,b' },
    });
    expect(agentFromLease(lease)).toEqual({
      identity: 'node-1',
      runtimes: ['bash', 'python'],
      namespaces: ['a', 'b'],
      renewedAt: T0,
      durationMs: 15_000,
    });
  });

  it('ignores Leases that are not an agent’s, and names odd identities validly', () => {
    expect(agentFromLease({ metadata: { name: 'kruntimes-controller' }, spec: {} })).toBeUndefined();
    expect(agentLeaseName('Node_1.Example')).toMatch(/^runtimed-node-1-example-[0-9a-f]{8}$/);
  });

  it('counts an agent live until its Lease expires, and one never renewed as gone', () => {
    const a = agentFromLease(
      agentLease({ identity: 'x', runtimes: ['bash'], namespaces: [], durationSeconds: 15 }, new Date(T0)),
    ) as AgentInfo;
    expect(isLive(a, T0 + 14_999)).toBe(true);
    expect(isLive(a, T0 + 15_000)).toBe(false);
    expect(isLive({ ...a, renewedAt: NaN }, T0)).toBe(false);
  });

  it('tells until when a runtime is served in a namespace', () => {
    const agent = (
      identity: string,
      runtimes: string[],
      namespaces: string[],
      renewedAt: number,
    ): AgentInfo => ({
      identity,
      runtimes,
      namespaces,
      renewedAt,
      durationMs: 15_000,
    });
    const agents = [
      agent('all', ['bash'], [], T0),
      agent('later', ['bash'], [], T0 + 5000),
      agent('only-a', ['python'], ['a'], T0),
      agent('dead', ['ruby'], [], T0 - 60_000),
    ];
    expect(servedUntil(agents, 'bash', 'x', T0 + 1000)).toBe(T0 + 20_000);
    expect(servedUntil(agents, 'python', 'a', T0 + 1000)).toBe(T0 + 15_000);
    expect(servedUntil(agents, 'python', 'b', T0 + 1000)).toBeUndefined();
    expect(servedUntil(agents, 'ruby', 'a', T0)).toBeUndefined();
    expect(servedUntil([], 'bash', 'a', T0)).toBeUndefined();
    expect(noAgentMessage('python', 'x')).toBe('no runtimed serves runtime "python" in namespace "x"');
  });

  it('reads who serves what straight from Leases, and tells a renewal from a change that matters', () => {
    const lease = (runtimes: string[], at: number) =>
      agentLease({ identity: 'n', runtimes, namespaces: [], durationSeconds: 15 }, new Date(at));
    expect(servedUntilByLeases([lease(['bash'], T0), { metadata: { name: 'other' } }], 'bash', 'x', T0)).toBe(
      T0 + 15_000,
    );
    expect(servingChanged(lease(['bash'], T0), lease(['bash'], T0 + 5000), T0 + 5000)).toBe(false);
    expect(servingChanged(lease(['bash'], T0), lease(['bash', 'py'], T0 + 5000), T0 + 5000)).toBe(true);
    // An expired agent that renews again is back: that matters.
    expect(servingChanged(lease(['bash'], T0), lease(['bash'], T0 + 60_000), T0 + 60_000)).toBe(true);
  });
});
