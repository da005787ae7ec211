import { agentLease } from '../../src/runtime/agents.js';
import { table } from '../output.js';
import { AGENT_COLUMNS, agentRow } from './agent.js';

describe('krt agent list', () => {
  it('shows each agent, what it serves, and whether its Lease is live', () => {
    const now = new Date('2026-12-03T10:01:00Z');
    const renewed = (s: number) => new Date(Date.parse('2026-12-03T10:01:00Z') - s * 1000);
    const lease = (identity: string, runtimes: string[], namespaces: string[], ago: number) => ({
      ...agentLease({ identity, runtimes, namespaces, durationSeconds: 15 }, renewed(ago)),
      metadata: {
        ...agentLease({ identity, runtimes, namespaces, durationSeconds: 15 }, renewed(ago)).metadata,
        creationTimestamp: '2026-12-03T10:00:00Z',
      },
    });
    const rows = [
      lease('node-1', ['bash'], [], 3),
      lease('node-2', ['bash', 'python'], ['team-a', 'team-b'], 45),
      { metadata: { name: 'kruntimes-controller' }, spec: {} },
    ].flatMap((l) => {
      const r = agentRow(l, now);
      return r ? [r] : [];
    });
    expect(table(AGENT_COLUMNS, rows)).toEqual([
      'IDENTITY   RUNTIMES      NAMESPACES      LIVE                   RENEWED   AGE',
      'node-1     bash          *               yes                    3s ago    60s',
      'node-2     bash,python   team-a,team-b   no (expired 30s ago)   45s ago   60s',
    ]);
  });
});
