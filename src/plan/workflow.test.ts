import type { Workflow } from '../api/types.js';
import { workflowStatus } from './workflow.js';

const wf = (name: string, calls: string[] = [], generation = 1, status?: Workflow['status']): Workflow => ({
  apiVersion: 'kruntimes.io/v1alpha1',
  kind: 'Workflow',
  metadata: { name, generation },
  spec: {
    jobs: calls.length
      ? Object.fromEntries(calls.map((c) => [`call-${c}`, { uses: c }]))
      : { main: { 'runs-on': 'bash', steps: [{ name: 's', run: 'true' }] } },
  },
  ...(status ? { status } : {}),
});
const lookupOf =
  (...all: Workflow[]) =>
  (n: string) =>
    all.find((w) => w.metadata.name === n);
const T0 = '2026-12-02T10:00:00Z';
const T1 = '2026-12-02T11:00:00Z';

describe('workflowStatus', () => {
  it('is Ready when the call graph resolves', () => {
    const a = wf('a', ['b'], 3);
    expect(workflowStatus(a, lookupOf(a, wf('b')), T0)).toEqual({
      observedGeneration: 3,
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'CallGraphResolved',
          message: 'every called Workflow exists; no cycle; depth within the limit',
          observedGeneration: 3,
          lastTransitionTime: T0,
        },
      ],
    });
  });

  it.each([
    ['a called Workflow is missing', [wf('a', ['b'])], 'WorkflowNotFound', 'workflow "b" not found: a -> b'],
    ['a cycle', [wf('a', ['b']), wf('b', ['a'])], 'CallCycle', 'workflow call cycle: a -> b -> a'],
    [
      'a chain over the depth limit',
      'abcdefghi'.split('').map((n, i, all) => wf(n, all[i + 1] ? [all[i + 1] as string] : [])),
      'CallDepthExceeded',
      'workflow call depth exceeds maximum 8: a -> b -> c -> d -> e -> f -> g -> h -> i',
    ],
  ])('is not Ready for %s, with the shared text', (_what, all, reason, message) => {
    const a = all[0] as Workflow;
    expect(workflowStatus(a, lookupOf(...all), T0).conditions?.[0]).toMatchObject({
      status: 'False',
      reason,
      message,
    });
  });

  it('keeps lastTransitionTime while the status stays, and moves it when it flips', () => {
    const before = workflowStatus(wf('a'), lookupOf(wf('a')), T0);
    const same = wf('a', [], 2, before);
    expect(workflowStatus(same, lookupOf(same), T1).conditions?.[0]?.lastTransitionTime).toBe(T0);
    const broken = wf('a', ['gone'], 3, before);
    expect(workflowStatus(broken, lookupOf(broken), T1).conditions?.[0]).toMatchObject({
      status: 'False',
      lastTransitionTime: T1,
      observedGeneration: 3,
    });
  });
});
