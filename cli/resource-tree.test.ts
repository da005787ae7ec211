import { describe, expect, it } from '@jest/globals';
import type { ResourceObject, WorkflowRun } from '../src/api/types.js';
import { renderResourceTree } from './resource-tree.js';
import { buildTree } from './tree.js';

const now = new Date('2026-01-01T00:01:00Z');
const run: WorkflowRun = {
  apiVersion: 'kruntimes.io/v1alpha1',
  kind: 'WorkflowRun',
  metadata: { name: 'db-b-1', uid: 'w1' },
  spec: { jobs: { main: { 'runs-on': 'bash', steps: [{ name: 'go', run: 'true' }] } } },
  status: {
    phase: 'Suspended',
    jobs: {
      main: { phase: 'Suspended', attempts: 2, nextRetryAt: '2026-01-01T00:01:30Z', message: 'not yet' },
    },
  },
};
const resource: ResourceObject = {
  apiVersion: 'test/v1',
  kind: 'Database',
  metadata: { name: 'db' },
  status: {
    message: 'pipeline "b" is suspended: not yet',
    kruntimes: {
      workflows: {
        phase: 'Suspended',
        round: 2,
        startedAt: '2026-01-01T00:00:00Z',
        pipelines: [
          { name: 'a', phase: 'Succeeded', workflowRunName: 'db-a-1' },
          {
            name: 'b',
            phase: 'Suspended',
            workflowRunName: 'db-b-1',
            attempts: 2,
            nextRetryAt: '2026-01-01T00:01:30Z',
            message: 'not yet',
          },
          { name: 'c', phase: 'Pending' },
        ],
      },
    },
  },
};

describe('renderResourceTree', () => {
  it('shows the resource, its pipelines with attempts and next retry, and each pipeline run as a tree', () => {
    const trees = new Map([['db-b-1', buildTree(run, [run], [])]]);
    expect(renderResourceTree(resource, trees, now)).toEqual([
      'Database/db  Suspended  round 2  1m00s  (pipeline "b" is suspended: not yet)',
      '├─ pipeline a  Succeeded',
      '├─ pipeline b  Suspended  attempt 2  retry in 30s  (not yet)',
      '│  └─ db-b-1  Suspended  -',
      '│     └─ main  Suspended  -  attempt 2  retry in 30s  (not yet)',
      '│        └─ step go  Pending  -',
      '└─ pipeline c  Pending',
    ]);
  });

  it('adds the delete pipeline of a resource being deleted', () => {
    const deleting: ResourceObject = {
      ...resource,
      status: {
        kruntimes: {
          workflows: { phase: 'Succeeded', pipelines: [{ name: 'a', phase: 'Succeeded' }] },
          delete: {
            phase: 'Failed',
            attempt: 2,
            message: 'delete pipeline failed after 2 attempt(s): exit 4',
          },
        },
      },
    };
    expect(renderResourceTree(deleting, new Map(), now)).toEqual([
      'Database/db  Succeeded  -',
      '├─ pipeline a  Succeeded',
      '└─ delete pipeline  Failed  attempt 2  (delete pipeline failed after 2 attempt(s): exit 4)',
    ]);
  });
});
