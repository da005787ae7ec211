import { describe, expect, it } from '@jest/globals';
import type { Run } from '../api/types.js';
import { runAsObserved } from './run-plan.js';

describe('runAsObserved', () => {
  it('keeps metadata, status, runtime and the cancel request; drops the script, env, files and managedFields', () => {
    const run = {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'Run',
      metadata: {
        name: 'r',
        namespace: 'ns',
        labels: { a: 'b' },
        ownerReferences: [{ apiVersion: 'v', kind: 'WorkflowRun', name: 'w', uid: 'u', controller: true }],
        managedFields: [{ manager: 'kubectl' }],
      },
      spec: {
        runtime: 'bash',
        script: 'echo hi',
        env: { A: 'x'.repeat(1000) },
        inputFiles: { 'object.yaml': 'y'.repeat(10_000) },
        cancelRequested: true,
      },
      status: { phase: 'Succeeded', outputs: { k: 'v' }, outputFiles: { f: 'z' } },
    } as unknown as Run;
    expect(runAsObserved(run)).toEqual({
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'Run',
      metadata: {
        name: 'r',
        namespace: 'ns',
        labels: { a: 'b' },
        ownerReferences: run.metadata.ownerReferences,
      },
      spec: { runtime: 'bash', cancelRequested: true },
      status: run.status,
    });
    const uncancelled = { ...run.spec };
    delete uncancelled.cancelRequested;
    expect(runAsObserved({ ...run, spec: uncancelled }).spec).toEqual({ runtime: 'bash' });
  });
});
