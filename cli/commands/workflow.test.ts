import type { Workflow } from '../../src/api/types.js';
import { table } from '../output.js';
import { WORKFLOW_COLUMNS, workflowRow } from './workflow.js';

const wf = (name: string, ready?: string): Workflow =>
  ({
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'Workflow',
    metadata: { name, creationTimestamp: '2026-12-03T10:00:00Z' },
    spec: {
      inputs: { environment: { type: 'string' } },
      jobs: { a: { uses: 'b' }, c: { uses: 'd' } },
    },
    ...(ready ? { status: { conditions: [{ type: 'Ready', status: ready }] } } : {}),
  }) as unknown as Workflow;

describe('krt workflow list', () => {
  it('has the READY column that kubectl get wf has', () => {
    const now = new Date('2026-12-03T10:01:00Z');
    expect(
      table(
        WORKFLOW_COLUMNS,
        [wf('good', 'True'), wf('broken', 'False'), wf('new')].map((w) => workflowRow(w, now)),
      ),
    ).toEqual([
      'NAME     READY   JOBS   INPUTS        OUTPUTS   AGE',
      'good     True    2      environment   -         60s',
      'broken   False   2      environment   -         60s',
      'new              2      environment   -         60s',
    ]);
  });
});
