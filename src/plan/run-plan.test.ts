import { describe, expect, it } from '@jest/globals';
import type { Run } from '../api/types.js';
import { runAsObserved } from './run-plan.js';
import { sharedValues } from './shared-values.testing.js';

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

  it("keeps of a claimed Run's status what the planners read, not the log tail, heartbeat, assignee or start", () => {
    const at = '2026-12-05T10:00:00Z';
    const kept = {
      phase: 'Succeeded',
      attempts: 2,
      completionTime: at,
      exitCode: 0,
      reason: 'Completed',
      message: 'done',
      outputs: { k: 'v' },
      control: { suspend: true },
      stepStatus: { message: 'hi' },
      outputFiles: { f: 'z' },
    };
    const claimed = {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'Run',
      metadata: { name: 'r', namespace: 'ns' },
      spec: { runtime: 'bash' },
      status: { ...kept, logTail: 'x'.repeat(4096), heartbeatTime: at, assignedTo: 'agent', startTime: at },
    } as unknown as Run;
    expect(runAsObserved(claimed).status).toEqual(kept);
    const running = { ...claimed, status: { ...claimed.status, phase: 'Running' as const } };
    expect(runAsObserved(running).status).toEqual({ ...kept, phase: 'Running' });
    // Unclaimed, its status is kept whole: the controller writes it (reason NoAgent) from this copy.
    const pending = { ...claimed, status: { ...claimed.status, phase: 'Pending' as const } };
    expect(runAsObserved(pending).status).toEqual(pending.status);
  });

  it('shares the spec of ended Runs; a Run still running keeps its own', () => {
    const values = sharedValues();
    const run = (name: string, phase: string) =>
      ({
        apiVersion: 'kruntimes.io/v1alpha1',
        kind: 'Run',
        metadata: { name, namespace: 'ns', creationTimestamp: '2026-12-06T10:00:00Z' },
        spec: { runtime: 'bash', script: `echo ${name}` },
        status: { phase, exitCode: 0 },
      }) as unknown as Run;
    const a = runAsObserved(run('a', 'Succeeded'), values);
    const b = runAsObserved(run('b', 'Failed'), values);
    expect(b.spec).toBe(a.spec);
    expect(b).toEqual({ ...runAsObserved(run('b', 'Failed')), status: { phase: 'Failed', exitCode: 0 } });
    // Nothing reads when an ended Run was made; one still running keeps it.
    expect(b.metadata).toEqual({ name: 'b', namespace: 'ns' });
    const running = runAsObserved(run('c', 'Running'), values);
    expect(running.metadata.creationTimestamp).toBe('2026-12-06T10:00:00Z');
    expect(running.spec).toEqual({ runtime: 'bash' });
    expect(running.spec).not.toBe(a.spec);
  });
});
