// The Promise's own workflows in the Promise reconciler: plan them (src/plan/promise-workflow.ts),
// apply the plan's actions as a resource's are applied, and hand back what the Promise's status
// shows of them. A run the API server refuses outright fails its pipeline, as a resource's does.
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
import { statusMessage } from '../src/kube/rest.js';
import type { ResilientInformer } from '../src/kube/informer.js';
import { isDeterministicRefusal, isNamespaceGone, isNamespaceTerminating } from '../src/kube/retry.js';
import { FINALIZER_DELETE_WORKFLOW, FINALIZER_WORKS_CLEANUP } from '../src/labels.js';
import {
  hasPromiseWorkflows,
  planPromiseWorkflow,
  promiseAsResource,
  promiseWorkflowPromise,
  promiseWorkflowStatus,
} from '../src/plan/promise-workflow.js';
import type { ResourceApi } from '../src/promise/api.js';
import { actionId, applyResourceAction, NameTaken, observedFor, type ActionDeps } from './resource.js';

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
}

/** Plans and applies the Promise's own workflow; undefined when it has none and nothing of one. */
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
  const refused: Record<string, string> = {};
  let namespaceTerminating = false;
  const plan = () => planPromiseWorkflow({ promise, ...observed, refused, namespaceTerminating, now });
  const actionDeps: ActionDeps = { ...deps, api: PROMISES, promise: () => promiseWorkflowPromise(promise) };
  let target = promiseAsResource(promise);
  let planned = plan();
  let patched = false;
  // A refusal plans again; what was applied already is not applied twice (Events, patches).
  const applied = new Set<string>();
  for (let pass = 0; pass < 2; pass++) {
    let replan = false;
    for (const action of planned.actions) {
      if (applied.has(actionId(action))) continue;
      applied.add(actionId(action));
      try {
        target = (await applyResourceAction(action, target, actionDeps)) ?? target;
        patched ||= action.type === 'setLabels' || action.type === 'setFinalizers';
      } catch (e) {
        // Its workflow namespace is being deleted, or is gone: no pipeline can run there any more
        // (the delete pipeline is skipped, with an Event), rather than retried for ever.
        const gone = isNamespaceTerminating(e) || isNamespaceGone(e);
        if (action.type === 'createRun' && promise.metadata.deletionTimestamp && gone) {
          namespaceTerminating = replan = true;
          break;
        }
        if (action.type !== 'createRun' || !(e instanceof NameTaken || isDeterministicRefusal(e))) throw e;
        refused[action.pipeline] =
          e instanceof NameTaken
            ? e.message
            : `the API server refused to create WorkflowRun "${action.run.metadata.name}": ${statusMessage(e)}`;
        replan = true;
        break;
      }
    }
    if (!replan) break;
    planned = plan();
  }
  return {
    ...promiseWorkflowStatus(planned.status, promise),
    holding: Boolean(promise.metadata.deletionTimestamp) && ours.length > 0,
    patched,
    ...(planned.requeueAfter !== undefined ? { requeueAfter: planned.requeueAfter } : {}),
  };
}
