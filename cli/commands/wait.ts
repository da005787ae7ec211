// Following a WorkflowRun to its end with a line per change of any job in the nested tree (a
// running job says so), not silence. Progress goes to stderr; the outputs to stdout. The namespace's
// WorkflowRuns and Runs are listed once and then watched (the project's resilient informer: a
// broken watch resumes, a compacted one relists), so following costs the API server one watch each.
import type { Run, WorkflowRun } from '../../src/api/types.js';
import { workflowRunEnded } from '../../src/api/phases.js';
import { ResilientInformer } from '../../src/kube/informer.js';
import { UsageError, type Connection } from '../connect.js';
import { jobsInOrder, progressLine } from '../tree.js';
import { loadTree, treeOf } from './fetch.js';

export async function waitForRun(c: Connection, name: string): Promise<number> {
  // One read first: a run that is not there, or a user who may not list Runs, gets the API
  // server's answer at once instead of a cache that keeps retrying.
  await loadTree(c, name);
  const base = `/apis/kruntimes.io/v1alpha1/namespaces/${c.namespace}`;
  const runs = new ResilientInformer<WorkflowRun>(c.kc, { path: `${base}/workflowruns` });
  const steps = new ResilientInformer<Run>(c.kc, { path: `${base}/runs` });
  const seen = new Map<string, string>();
  try {
    return await new Promise<number>((resolve, reject) => {
      let synced = 0;
      const show = () => {
        if (synced < 2) return;
        const all = runs.list(c.namespace);
        const root = all.find((w) => w.metadata.name === name);
        if (!root)
          return reject(new UsageError(`workflowrun "${name}" not found in namespace "${c.namespace}"`));
        const tree = treeOf(root, all, steps.list(c.namespace));
        for (const j of jobsInOrder(tree)) {
          const line = progressLine(j);
          const path = j.path.join('/');
          if (seen.get(path) !== line) {
            seen.set(path, line);
            console.error(`  ${path}: ${line}`);
          }
        }
        const phase = root.status?.phase ?? '';
        if (!workflowRunEnded(phase)) return;
        console.error(`${name}: ${phase}${root.status?.message ? ` (${root.status.message})` : ''}`);
        for (const [k, v] of Object.entries(root.status?.outputs ?? {})) console.log(`${k}=${v}`);
        resolve(phase === 'Succeeded' ? 0 : 1);
      };
      for (const i of [runs, steps] as const) {
        i.on('add', show).on('update', show).on('delete', show);
        i.once('synced', () => {
          synced++;
          show();
        });
        i.start().catch(reject);
      }
    });
  } finally {
    runs.stop();
    steps.stop();
  }
}
