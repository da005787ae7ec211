// Workflow readiness: the `Ready` condition from the shared call-graph check over the informer
// cache, written only when it changed.
import type { Workflow } from '../src/api/types.js';
import { crd, type KubeClient } from '../src/kube/rest.js';
import { writeStatusIfChanged } from '../src/kube/controller/planned.js';
import { workflowStatus } from '../src/plan/workflow.js';
import type { EventRecorder } from './events.js';
import type { Caches } from './workflowrun.js';

export async function reconcileWorkflow(
  key: string,
  deps: {
    caches: Caches;
    kube: KubeClient;
    events: EventRecorder;
  },
): Promise<void> {
  const [namespace, name] = key.split('/') as [string, string];
  const wf = deps.caches.workflows.get(namespace, name);
  if (!wf || wf.metadata.deletionTimestamp) return;
  const status = workflowStatus(wf, (n) => deps.caches.workflows.get(namespace, n), new Date().toISOString());
  const written = await writeStatusIfChanged(wf.status, status, () =>
    deps.kube.replaceStatus({ ...crd('workflows', namespace), name }, { ...wf, status } satisfies Workflow),
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
