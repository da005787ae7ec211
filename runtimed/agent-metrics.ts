// runtimed's own metrics (beside the process defaults and its caches' krt_informer_watching).
import { Counter, Gauge, type Registry } from 'prom-client';

export type AgentMetrics = ReturnType<typeof agentMetrics>;

export function agentMetrics(registry: Registry, running: () => number, concurrency: number) {
  return {
    ended: new Counter({
      name: 'krt_runtimed_runs_total',
      help: 'Executions ended, by phase.',
      labelNames: ['phase'],
      registers: [registry],
    }),
    claims: new Counter({
      name: 'krt_runtimed_claims_total',
      help: 'Claim attempts, by result (won; lost: another agent was first; error; late: won, but answered too late to start the step).',
      labelNames: ['result'],
      registers: [registry],
    }),
    requeued: new Counter({
      name: 'krt_runtimed_requeued_total',
      help: 'Runs put back to Pending, by why.',
      labelNames: ['why'],
      registers: [registry],
    }),
    concurrency: new Gauge({
      name: 'krt_runtimed_concurrency',
      help: 'Steps this agent runs at once at most (--concurrency, lowered to what its memory holds).',
      registers: [registry],
      collect() {
        this.set(concurrency);
      },
    }),
    running: new Gauge({
      name: 'krt_runtimed_running',
      help: 'Executions running now.',
      registers: [registry],
      collect() {
        this.set(running());
      },
    }),
  };
}
