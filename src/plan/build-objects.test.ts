import type { WorkflowRun } from '../api/types.js';
import { LABEL_WORKFLOWRUN_UID } from '../labels.js';
import { buildSnapshot } from './build-objects.js';

const run: WorkflowRun = {
  apiVersion: 'kruntimes.io/v1alpha1',
  kind: 'WorkflowRun',
  metadata: { name: 'release', namespace: 'ns', uid: 'u-1' },
  spec: { jobs: { build: { 'runs-on': 'bash', steps: [{ name: 'make', run: 'make' }] } } },
};

describe('buildSnapshot', () => {
  it('freezes the spec in a ControllerRevision the run controls and its uid label finds', () => {
    const s = buildSnapshot(run, 'release-snapshot-0a1b2c3d', run.spec);
    expect(s).toEqual({
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: {
        name: 'release-snapshot-0a1b2c3d',
        labels: { [LABEL_WORKFLOWRUN_UID]: 'u-1' },
        ownerReferences: [
          {
            apiVersion: 'kruntimes.io/v1alpha1',
            kind: 'WorkflowRun',
            name: 'release',
            uid: 'u-1',
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      data: { spec: run.spec },
      revision: 1,
    });
  });
});
