// The `Ready` condition of a Workflow (kstatus style, with observedGeneration), so `kubectl get wf`,
// Flux and Argo CD report whether the template can run: Ready when its whole call graph resolves,
// with no cycle and within the depth limit; not Ready, with the shared error text, otherwise.
import type { Condition, Workflow, WorkflowStatus } from '../api/types.js';
import { validateCallGraphSync, type Lookup } from '../graph/callgraph.js';
import { condition } from '../api/objects.js';

const REASONS = { cycle: 'CallCycle', notFound: 'WorkflowNotFound', depth: 'CallDepthExceeded' } as const;

export function workflowStatus(wf: Workflow, lookup: Lookup<Workflow>, now: string): WorkflowStatus {
  const graph = validateCallGraphSync(wf.metadata.name ?? '', lookup);
  const ready = graph.error === null;
  const status: Condition['status'] = ready ? 'True' : 'False';
  const generation = wf.metadata.generation;
  return {
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    conditions: [
      condition(
        wf.status?.conditions,
        {
          type: 'Ready',
          status,
          reason: ready ? 'CallGraphResolved' : REASONS[graph.kind ?? 'notFound'],
          message: graph.error ?? 'every called Workflow exists; no cycle; depth within the limit',
        },
        generation,
        now,
      ),
    ],
  };
}
