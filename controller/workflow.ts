// Workflow readiness: the `Ready` condition from the shared call-graph check over the informer
// cache, through the one planned reconcile (a plan with no actions: its status only), written only
// when it changed, with an Event when readiness changes.
import type { Workflow, WorkflowStatus } from '../src/api/types.js';
import { crd, type KubeClient } from '../src/kube/rest.js';
import { reconcilePlanned } from '../src/kube/controller/planned.js';
import type { Result } from '../src/kube/controller/controller.js';
import { workflowStatus } from '../src/plan/workflow.js';
import type { EventRecorder } from './events.js';
import type { Caches } from './workflowrun.js';

export async function reconcileWorkflow(
  key: string,
  deps: {
    caches: Caches;
    kube: KubeClient;
    events: EventRecorder;
    clock?: () => Date;
  },
): Promise<Result | undefined> {
  const [namespace, name] = key.split('/') as [string, string];
  const wf = deps.caches.workflows.get(namespace, name);
  if (!wf || wf.metadata.deletionTimestamp) return undefined;
  return reconcilePlanned<Workflow, WorkflowStatus, never, { status: WorkflowStatus; actions: never[] }>({
    object: wf,
    statusOf: (w) => w.status,
    plan: (now) => ({
      status: workflowStatus(wf, (n) => deps.caches.workflows.get(namespace, n), now.toISOString()),
      actions: [],
    }),
    id: () => '',
    apply: async () => undefined,
    failed: () => 'fatal',
    writeStatus: (target, status) =>
      deps.kube.replaceStatus({ ...crd('workflows', namespace), name }, { ...target, status }),
    announce: (before, after) => {
      const was = before?.conditions?.find((c) => c.type === 'Ready');
      const now = after.conditions?.find((c) => c.type === 'Ready');
      if (now && was?.status !== now.status)
        deps.events.record(
          wf,
          now.status === 'True' ? 'Normal' : 'Warning',
          now.reason ?? 'Ready',
          now.message ?? '',
        );
    },
    clock: deps.clock,
  });
}
