// Following a WorkflowRun to its end with a line per change of a job, not silence.
import type { WorkflowRun } from '../../src/api/types.js';
import { crd } from '../../src/kube/client.js';
import type { Connection } from '../connect.js';

export async function waitForRun(c: Connection, name: string, pollMs = 500): Promise<number> {
  const seen = new Map<string, string>();
  for (;;) {
    const run = (await c.clients.custom.getNamespacedCustomObject({
      ...crd('workflowruns', c.namespace),
      name,
    })) as WorkflowRun;
    for (const [job, s] of Object.entries(run.status?.jobs ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
      const line = `${s.phase}${s.workflowRunName ? ` (${s.workflowRunName})` : ''}${s.message ? `: ${s.message}` : ''}`;
      if (seen.get(job) !== line) {
        seen.set(job, line);
        console.error(`  ${job}: ${line}`);
      }
    }
    const phase = run.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed' || phase === 'Cancelled') {
      console.error(`${name}: ${phase}${run.status?.message ? ` (${run.status.message})` : ''}`);
      for (const [k, v] of Object.entries(run.status?.outputs ?? {})) console.log(`${k}=${v}`);
      return phase === 'Succeeded' ? 0 : 1;
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
