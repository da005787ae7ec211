// The Promise's own workflows in the Promise reconciler: plan them (src/plan/promise-workflow.ts),
// apply the plan's actions in the planned loop as a resource's are applied, and hand back what the
// Promise's status shows of them. A run the API server refuses outright fails its pipeline, as a
// resource's does.
import type { ObservedRun } from '../src/plan/run-plan.js';
import type {
  Condition,
  PromiseObject,
  ResourceStatus,
  Work,
  Workflow,
  WorkflowRun,
} from '../src/api/types.js';
import { GROUP, VERSION } from '../src/api/crds.js';
import { applyPlanned } from '../src/kube/controller/planned.js';
import type { ResilientInformer } from '../src/kube/informer.js';
import { FINALIZER_DELETE_WORKFLOW, FINALIZER_WORKS_CLEANUP } from '../src/labels.js';
import {
  hasPromiseWorkflows,
  planPromiseWorkflow,
  promiseAsResource,
  promiseWorkflowPromise,
  promiseWorkflowStatus,
} from '../src/plan/promise-workflow.js';
import type { ResourceApi } from '../src/promise/api.js';
import { retryForCacheLag } from './missing.js';
import { actionId, applyResourceAction, observedFor, Refusals, type ActionDeps } from './resource.js';

/** Promises themselves, as the resource client names an API. */
const PROMISES: ResourceApi = {
  group: GROUP,
  version: VERSION,
  kind: 'Promise',
  plural: 'promises',
  schema: undefined,
  namespaced: false,
};

export interface PromiseWorkflowDeps extends Omit<ActionDeps, 'api' | 'promise'> {
  workflowRuns: ResilientInformer<WorkflowRun>;
  runs: ResilientInformer<ObservedRun>;
  works: ResilientInformer<Work>;
  workflows: ResilientInformer<Workflow>;
  defaultInterval?: string;
}

export interface PromiseWorkflowOutcome {
  kruntimes?: ResourceStatus['kruntimes'];
  conditions: Condition[];
  message?: string;
  /** The configure workflow's current round succeeded. */
  succeeded: boolean;
  /** Deleting: the delete workflow or the Works' cleanup still holds the Promise. */
  holding: boolean;
  /** Its labels or finalizers were patched: the status waits for that update in the cache. */
  patched: boolean;
  requeueAfter?: number;
  /** A Workflow the plan missed may be cache lag: nothing was done, plan again after requeueAfter. */
  lag?: boolean;
  /** An action failed in a way worth retrying: thrown once the Promise's status is written. */
  transient?: unknown;
}

/**
 * Plans and applies the Promise's own workflow through the planned loop, as a resource's pipelines
 * are (the same refusal rules); undefined when it has none and nothing of one. Its status goes into
 * the Promise's, which the Promise reconciler writes, and then throws `transient` if there is one.
 */
export async function reconcilePromiseWorkflow(
  promise: PromiseObject,
  deps: PromiseWorkflowDeps,
  now: Date,
): Promise<PromiseWorkflowOutcome | undefined> {
  const uid = promise.metadata.uid ?? '';
  const ours = (promise.metadata.finalizers ?? []).filter(
    (f) => f === FINALIZER_DELETE_WORKFLOW || f === FINALIZER_WORKS_CLEANUP,
  );
  const observed = observedFor(uid, deps);
  if (!hasPromiseWorkflows(promise) && ours.length === 0 && observed.works.length === 0) return undefined;
  const refusals = new Refusals();
  const actionDeps: ActionDeps = { ...deps, api: PROMISES, promise: () => promiseWorkflowPromise(promise) };
  let patched = false;
  const done = await applyPlanned({
    object: promiseAsResource(promise),
    plan: () =>
      planPromiseWorkflow({
        promise,
        ...observed,
        refused: refusals.refused,
        namespaceTerminating: refusals.namespaceTerminating,
        now,
      }),
    confirmMissing: (plan) =>
      retryForCacheLag(deps.kube, plan.missingWorkflows ?? [], { promise: promise.metadata.name ?? '' }),
    id: actionId,
    apply: (action, target) => {
      patched ||= action.type === 'setLabels' || action.type === 'setFinalizers';
      return applyResourceAction(action, target, actionDeps);
    },
    failed: (action, e) => refusals.failed(action, e),
    clock: () => now,
  });
  // No action ends this reconcile: only a Workflow not cached yet stops it before it applies anything.
  if (done.kind !== 'applied')
    return {
      conditions: [],
      succeeded: false,
      holding: true,
      patched: false,
      lag: true,
      requeueAfter: done.kind === 'lag' ? done.ms : 0,
    };
  const { plan, transient } = done;
  return {
    ...promiseWorkflowStatus(plan.status, promise),
    holding: Boolean(promise.metadata.deletionTimestamp) && ours.length > 0,
    patched,
    ...(plan.requeueAfter !== undefined ? { requeueAfter: plan.requeueAfter } : {}),
    ...(transient !== undefined ? { transient } : {}),
  };
}
