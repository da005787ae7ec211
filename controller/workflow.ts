// Workflow readiness: the `Ready` condition from the shared call-graph check over the informer
// cache, written only when it changed.
import type * as k8s from '@kubernetes/client-node';
import type { Workflow } from '../src/api/types.js';
import { crd } from '../src/kube/client.js';
import { writeStatusIfChanged } from '../src/kube/controller/planned.js';
import { workflowStatus } from '../src/plan/workflow.js';
import type { EventRecorder } from './events.js';
import type { Caches } from './workflowrun.js';

export async function reconcileWorkflow(
  key: string,
  deps: {
    caches: Caches;
    custom: k8s.CustomObjectsApi;
    events: EventRecorder;
    writes?: { inc(labels: { verb: string; resource: string }): void };
  },
): Promise<void> {
  const [namespace, name] = key.split('/') as [string, string];
  const wf = deps.caches.workflows.get(namespace, name);
  if (!wf || wf.metadata.deletionTimestamp) return;
  const status = workflowStatus(wf, (n) => deps.caches.workflows.get(namespace, n), new Date().toISOString());
  const written = await writeStatusIfChanged(wf.status, status, deps.writes, 'workflows/status', () =>
    deps.custom.replaceNamespacedCustomObjectStatus({
      ...crd('workflows', namespace),
      name,
      body: { ...wf, status } satisfies Workflow,
    }),
  );
  if (!written) return;
  const was = wf.status?.conditions?.find((c) => c.type === 'Ready');
  const now = status.conditions?.[0];
  if (now && was?.status !== now.status)
    deps.events.record(
      wf,
      now.status === 'True' ? 'Normal' : 'Warning',
      now.reason ?? 'Ready',
      now.message ?? '',
    );
}
