// Following a WorkflowRun to its end with a line per change of any job in the nested tree (a
// running job says so), not silence. Progress goes to stderr; the outputs to stdout.
import type { Connection } from '../connect.js';
import { jobsInOrder, progressLine } from '../tree.js';
import { workflowRunEnded } from '../../src/api/phases.js';
import { loadTree } from './fetch.js';

export async function waitForRun(c: Connection, name: string, pollMs = 500): Promise<number> {
  const seen = new Map<string, string>();
  for (;;) {
    const tree = await loadTree(c, name);
    for (const j of jobsInOrder(tree)) {
      const line = progressLine(j);
      const path = j.path.join('/');
      if (seen.get(path) !== line) {
        seen.set(path, line);
        console.error(`  ${path}: ${line}`);
      }
    }
    const run = tree.run;
    const phase = run.status?.phase ?? '';
    if (workflowRunEnded(phase)) {
      console.error(`${name}: ${phase}${run.status?.message ? ` (${run.status.message})` : ''}`);
      for (const [k, v] of Object.entries(run.status?.outputs ?? {})) console.log(`${k}=${v}`);
      return phase === 'Succeeded' ? 0 : 1;
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
