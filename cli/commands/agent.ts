// `krt agent list`: the runtimed agents and what they serve, from the Leases they hold.
import type { Command } from 'commander';
import { leases } from '../../src/kube/rest.js';
import { LABEL_AGENT } from '../../src/labels.js';
import {
  AGENT_LEASE_NAMESPACE,
  agentFromLease,
  isLive,
  liveUntil,
  type LeaseLike,
} from '../../src/runtime/agents.js';
import { connect } from '../connect.js';
import { age, outputOption, printStructured, table, type Format } from '../output.js';

export const AGENT_COLUMNS = ['IDENTITY', 'RUNTIMES', 'NAMESPACES', 'LIVE', 'RENEWED', 'AGE'];

/** One row of `krt agent list`, or undefined for a Lease that is not an agent's. */
export function agentRow(lease: LeaseLike, now = new Date()): string[] | undefined {
  const a = agentFromLease(lease);
  if (!a) return undefined;
  const live = isLive(a, now.getTime());
  return [
    a.identity,
    a.runtimes.join(',') || '-',
    a.namespaces.join(',') || '*',
    live ? 'yes' : `no (expired ${age(new Date(liveUntil(a)).toISOString(), now)} ago)`,
    Number.isFinite(a.renewedAt) ? `${age(new Date(a.renewedAt).toISOString(), now)} ago` : '-',
    age(lease.metadata?.creationTimestamp, now),
  ];
}

export function agentCommands(
  program: Command,
  globals: () => { namespace?: string; kubeconfig?: string; context?: string },
): void {
  const agent = program.command('agent').description('the runtimed agents that run steps');
  agent
    .command('list')
    .description('agents with the runtimes and namespaces they serve, live or not (from their Leases)')
    .option('--agent-namespace <namespace>', 'where agents hold their Leases', AGENT_LEASE_NAMESPACE)
    .addOption(outputOption())
    .action(async (opts: { output: Format; agentNamespace: string }) => {
      const c = connect(globals());
      const list = await c.kube.list<LeaseLike>(leases(opts.agentNamespace), { labelSelector: LABEL_AGENT });
      const items = list.items ?? [];
      if (printStructured(opts.output, { apiVersion: 'v1', kind: 'List', items })) return;
      const rows = items.flatMap((l) => {
        const r = agentRow(l);
        return r ? [r] : [];
      });
      if (rows.length === 0) {
        console.error(`no runtimed agents hold a Lease in namespace "${opts.agentNamespace}"`);
        return;
      }
      for (const line of table(AGENT_COLUMNS, rows)) console.log(line);
    });
}
