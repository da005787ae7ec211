// Container steps under churn on the one-node cluster (make chaos's faults, for the Pod executor):
// while ten two-step runs go, a step Pod is deleted, another evicted by a drain of the node (cordoned,
// its Pod evicted, uncordoned), and both executor Pods are killed at once. Every run ends; the two
// whose Pod went fail with PodDeleted naming it, and the rest succeed; no step ran in two Pods (its
// Pod's Events show one Pod uid); no Run was handed back more than the kill explains.
import { expect, it } from '@jest/globals';
import { ck } from '../harness/node-cluster.js';
import { podUids, until } from './helpers.js';
import {
  apply,
  ended,
  NS,
  podJob,
  podsOf,
  run,
  step,
  uniq,
  EXECUTOR_PODS,
  workflowRun,
  type RunObj,
} from './pod-runtime.js';

const RUNS = 10;

/** Waits until the step's Run runs in a Pod, and returns that Pod's name. */
const running = (runName: string) =>
  until(
    `${runName} running in its Pod`,
    120,
    () => run(runName).status?.phase === 'Running' && podsOf(runName).length === 1 && runName,
  );

export function podChurnTests(): void {
  it('ends every container step under churn: Pods deleted and evicted, the executor killed, the node drained', async () => {
    const base = uniq('churn');
    const names = Array.from({ length: RUNS }, (_, i) => `${base}-${i}`);
    for (const name of names)
      apply(
        workflowRun(name, {
          a: podJob([
            { name: 's1', image: step(), run: 'sleep 8; echo "v=1" >> "$KRT_OUTPUT"' },
            { name: 's2', image: step(), run: 'sleep 3; echo "v=2" >> "$KRT_OUTPUT"' },
          ]),
        }),
      );
    const deleted = await running(`${names[0]}-a-s1`);
    expect(ck(['delete', 'pod', '-n', NS, deleted, '--wait=false']).status).toBe(0);
    // A drain of the node: cordoned, the step Pod evicted through the Eviction API, uncordoned.
    const evicted = await running(`${names[1]}-a-s1`);
    const node = ck(['get', 'pod', '-n', NS, evicted, '-o', 'jsonpath={.spec.nodeName}']).stdout;
    const drain = ck([
      'drain',
      node,
      '--pod-selector',
      `kruntimes.io/run=${evicted}`,
      '--ignore-daemonsets',
      '--delete-emptydir-data',
      '--force',
      '--timeout=60s',
    ]);
    expect(ck(['uncordon', node]).status).toBe(0);
    expect(drain.status).toBe(0);
    // Both executor Pods killed at once, while the other steps run.
    const executors = ck([...EXECUTOR_PODS, '-o', 'name']);
    expect(
      ck([
        'delete',
        '-n',
        'kruntimes-system',
        '--wait=false',
        ...executors.stdout.split('\n').filter(Boolean),
      ]).status,
    ).toBe(0);

    const outcome: Record<string, string> = {};
    for (const name of names) {
      const wfr = await until(`WorkflowRun ${name} ended`, 300, () => {
        const p = ck(['get', '-n', NS, 'wfr', name, '-o', 'jsonpath={.status.phase}']).stdout;
        return ['Succeeded', 'Failed', 'Cancelled'].includes(p) && p;
      });
      outcome[name] = wfr;
    }
    const first = await ended(`${names[0]}-a-s1`);
    const second = await ended(`${names[1]}-a-s1`);
    expect([first.status?.reason, second.status?.reason]).toEqual(['PodDeleted', 'PodDeleted']);
    expect(first.status?.message).toContain(deleted);
    expect(second.status?.message).toContain(evicted);
    expect(outcome).toEqual(Object.fromEntries(names.map((n, i) => [n, i < 2 ? 'Failed' : 'Succeeded'])));
    // Each step ran in one Pod only: adopted after the kill, never made again; a step that was
    // claimed again says so in its attempts (the kill is the only reason here).
    const steps = names.flatMap((n, i) => [`${n}-a-s1`, ...(i < 2 ? [] : [`${n}-a-s2`])]);
    const twice: string[] = [];
    for (const s of steps) if ((await podUids(s)).size !== 1) twice.push(s);
    expect(twice).toEqual([]);
    const runs = steps.map((s) => run(s) as RunObj);
    expect(runs.filter((r) => (r.status?.attempts ?? 1) > 2).map((r) => r.metadata.name)).toEqual([]);
    for (const name of names) ck(['delete', '-n', NS, 'wfr', name, '--wait=false']);
  });
}
