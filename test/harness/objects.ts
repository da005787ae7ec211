// Runs and WorkflowRuns through the real API server, and the processes on this machine: shared by
// the integration and end-to-end suites.
import { execFileSync } from 'node:child_process';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { Run, WorkflowRun } from '../../src/api/types.js';
import { type Clients } from '../../src/kube/client.js';
import { crd } from '../../src/kube/rest.js';
import { eventually, type TestCluster } from './cluster.js';

export async function createRun(c: TestCluster, name: string, spec: Partial<Run['spec']>): Promise<Run> {
  return (await c.admin.custom.createNamespacedCustomObject({
    ...crd('runs', c.namespace),
    body: {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'Run',
      metadata: { name },
      spec: { runtime: 'bash', ...spec },
    },
  })) as Run;
}

export async function getRun(c: TestCluster, name: string): Promise<Run> {
  return (await c.admin.custom.getNamespacedCustomObject({ ...crd('runs', c.namespace), name })) as Run;
}

export async function getWorkflowRun(c: TestCluster, name: string): Promise<WorkflowRun> {
  return (await c.admin.custom.getNamespacedCustomObject({
    ...crd('workflowruns', c.namespace),
    name,
  })) as WorkflowRun;
}

/** A merge patch of a Run (or its status), as admin unless `as` says who. */
export async function patchRun(
  c: TestCluster,
  name: string,
  body: object,
  status = false,
  as: Clients = c.admin,
): Promise<Run> {
  const args = { ...crd('runs', c.namespace), name, body };
  const opts = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  return (await (status
    ? as.custom.patchNamespacedCustomObjectStatus(args, opts)
    : as.custom.patchNamespacedCustomObject(args, opts))) as Run;
}

/** Polls `get` until the object exists and is in one of the phases; returns it. */
async function inPhase<T extends { status?: { phase?: string } }>(
  get: () => Promise<T>,
  what: string,
  phases: string[],
  timeoutMs: number,
): Promise<T> {
  let last: T | undefined;
  await eventually(
    async () => {
      last = await get().catch(() => undefined);
      return phases.includes(last?.status?.phase ?? '');
    },
    timeoutMs,
    () => `${what} to reach ${phases.join('|')} (last: ${JSON.stringify(last?.status ?? {})})`,
  );
  return last as T;
}

export const runInPhase = (
  c: TestCluster,
  name: string,
  phases: string[],
  timeoutMs = 30_000,
): Promise<Run> => inPhase(() => getRun(c, name), `run ${name}`, phases, timeoutMs);

export const workflowRunInPhase = (
  c: TestCluster,
  name: string,
  phases: string[],
  timeoutMs = 30_000,
): Promise<WorkflowRun> => inPhase(() => getWorkflowRun(c, name), `workflowrun ${name}`, phases, timeoutMs);

/** Processes on this machine whose command line contains `marker`. */
export function processesWith(marker: string): string[] {
  return execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.includes(marker) && !l.includes('ps -eo'));
}

/** krt as a child process with the admin kubeconfig in the suite's namespace. */

/** Waits until the Workflow reports Ready=True (its call graph checked by the controller). */
export async function workflowReady(c: TestCluster, name: string, timeoutMs = 20_000): Promise<void> {
  await eventually(
    async () => {
      const w = (await c.admin.custom.getNamespacedCustomObject({
        ...crd('workflows', c.namespace),
        name,
      })) as {
        status?: { conditions?: { type: string; status: string }[] };
      };
      return w.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True') ?? false;
    },
    timeoutMs,
    `Workflow ${name} to be Ready`,
  );
}
