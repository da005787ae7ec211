// The Promise's own workflows (spec.workflows.promise: configure when it is created or changed,
// delete when it is deleted), planned by the resource planners: the Promise is the object the
// pipelines work on, and a Promise view whose resource workflows are the Promise's ones says what
// runs. So a Promise's pipelines have every rule a resource's have (serial order, suspend,
// retryAfter, backoffLimit, Works, delete gating) from one implementation.
import { API_VERSION } from '../api/crds.js';
import type { Condition, PromiseObject, ResourceObject, ResourceStatus } from '../api/types.js';
import { planResourceDeletion } from './resource-delete.js';
import { planResourceWorkflow, type ResourceObserved, type ResourcePlan } from './resource.js';

/** The conditions of the Promise's own workflow that its status carries beside Available and Ready. */
export const PROMISE_WORKFLOW_CONDITIONS = [
  'ConfigureWorkflowCompleted',
  'WorksSucceeded',
  'DeleteWorkflowCompleted',
];

/** Whether the Promise has workflows of its own (or had: its Works and finalizers outlive them). */
export function hasPromiseWorkflows(promise: PromiseObject): boolean {
  const w = promise.spec.workflows?.promise;
  return (w?.configure ?? []).length > 0 || (w?.delete ?? []).length > 0;
}

/** The Promise as the object its pipelines work on: $KRT_INPUT/object.yaml, its Works' owner. */
export function promiseAsResource(promise: PromiseObject): ResourceObject {
  const status = promise.status;
  return {
    apiVersion: API_VERSION,
    kind: 'Promise',
    metadata: promise.metadata,
    spec: promise.spec as unknown as Record<string, unknown>,
    status: {
      ...(status?.kruntimes ? { kruntimes: status.kruntimes } : {}),
      ...(status?.conditions ? { conditions: status.conditions } : {}),
      ...(status?.observedGeneration !== undefined ? { observedGeneration: status.observedGeneration } : {}),
    },
  } as ResourceObject;
}

/** A Promise whose resource workflows are this Promise's own, run in its workflowNamespace. */
export function promiseWorkflowPromise(promise: PromiseObject): PromiseObject {
  const own = promise.spec.workflows?.promise ?? {};
  return {
    ...promise,
    spec: {
      ...promise.spec,
      workflows: { resource: { configure: own.configure ?? [], delete: own.delete ?? [] } },
    },
  };
}

export type PromiseObserved = Omit<ResourceObserved, 'resource' | 'promise'> & { promise: PromiseObject };

/** The plan of the Promise's own configure workflow, or of its delete workflow once it is deleted. */
export function planPromiseWorkflow(o: PromiseObserved): ResourcePlan {
  const observed = {
    ...o,
    resource: promiseAsResource(o.promise),
    promise: promiseWorkflowPromise(o.promise),
  };
  return (o.promise.metadata.deletionTimestamp ? planResourceDeletion : planResourceWorkflow)(observed);
}

/**
 * What the plan's status gives the Promise's: its workflows' record and their conditions. A Promise
 * with a delete workflow and no configure pipelines has nothing to wait for before it serves.
 */
export function promiseWorkflowStatus(
  status: ResourceStatus,
  promise?: PromiseObject,
): {
  kruntimes?: ResourceStatus['kruntimes'];
  conditions: Condition[];
  message?: string;
  succeeded: boolean;
} {
  const conditions = (status.conditions ?? []).filter((c) => PROMISE_WORKFLOW_CONDITIONS.includes(c.type));
  return {
    ...(status.kruntimes ? { kruntimes: status.kruntimes } : {}),
    conditions,
    ...(status.message ? { message: status.message } : {}),
    succeeded:
      status.kruntimes?.workflows?.phase === 'Succeeded' ||
      (promise !== undefined && (promise.spec.workflows?.promise?.configure ?? []).length === 0),
  };
}
