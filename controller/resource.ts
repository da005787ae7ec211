// The reconciler of one Promise's resources: load the resource, its pipeline WorkflowRuns and Works
// from the caches, plan with planResourceWorkflow, apply the actions, write status only when it
// changed. One instance per Promise, added and removed while the controller runs.
import type { ObservedRun } from '../src/plan/run-plan.js';
import type { Result } from '../src/kube/controller/controller.js';
import { reconcilePlanned, type Failure } from '../src/kube/controller/planned.js';
import type { PromiseObject, ResourceObject, Work, Workflow, WorkflowRun } from '../src/api/types.js';
import { API_VERSION } from '../src/api/crds.js';
import { controlledBy, madeFor } from '../src/api/objects.js';
import { crd, statusCode, statusMessage, type KubeClient } from '../src/kube/rest.js';
import type { ResilientInformer } from '../src/kube/informer.js';
import { isDeterministicRefusal, isNamespaceGone, isNamespaceTerminating } from '../src/kube/retry.js';
import { LABEL_RESOURCE_UID, LABEL_SUSPENDED, LABEL_WORKFLOWRUN_UID } from '../src/labels.js';
import { planResourceWorkflow, type ResourceAction, type ResourceObserved } from '../src/plan/resource.js';
import { planResourceDeletion } from '../src/plan/resource-delete.js';
import { writtenStatus } from '../src/plan/run-outputs.js';
import type { ResourceApi } from '../src/promise/api.js';
import { workflowRunFiles } from '../src/promise/files.js';
import { pipelineNamespace } from '../src/promise/pipeline.js';
import { patchResource, replaceResourceStatus } from './resource-client.js';
import type { EventRecorder } from './events.js';
import { retryForCacheLag } from './missing.js';

export interface ResourceDeps {
  api: ResourceApi;
  promise: () => PromiseObject | undefined;
  resources: ResilientInformer<ResourceObject>;
  workflowRuns: ResilientInformer<WorkflowRun>;
  runs: ResilientInformer<ObservedRun>;
  works: ResilientInformer<Work>;
  workflows: ResilientInformer<Workflow>;
  kube: KubeClient;
  events: EventRecorder;
  defaultInterval?: string;
  /** The planner's clock (tests inject one). */
  clock?: () => Date;
}

export async function reconcileResource(key: string, deps: ResourceDeps): Promise<Result | undefined> {
  const [namespace, name] = key.split('/') as [string, string];
  const resource = deps.resources.get(namespace, name);
  const promise = deps.promise();
  if (!resource || !promise) return undefined;
  const deleting = Boolean(resource.metadata.deletionTimestamp);
  const uid = resource.metadata.uid ?? '';
  const refusals = new Refusals();
  return reconcilePlanned({
    object: resource,
    statusOf: (r) => r.status,
    plan: (now) =>
      (deleting ? planResourceDeletion : planResourceWorkflow)({
        resource,
        promise,
        ...observedFor(uid, deps),
        refused: refusals.refused,
        namespaceTerminating: refusals.namespaceTerminating,
        now,
      }),
    confirmMissing: (plan) => retryForCacheLag(deps.kube, plan.missingWorkflows ?? [], { resource: key }),
    afterStatus: (a) => a.type === 'event',
    id: actionId,
    apply: (action, target) => applyResourceAction(action, target, deps),
    failed: (action, e) => refusals.failed(action, e),
    // A resource whose last finalizer came off is gone: there is no status left to write.
    gone: (plan) => deleting && plan.actions.some((a) => a.type === 'setFinalizers'),
    writeStatus: (target, status) =>
      replaceResourceStatus(deps.kube, deps.api, target, { ...target, status }),
    clock: deps.clock,
  });
}

/**
 * What the API server refused in one reconcile of a resource's (or a Promise's own) pipelines, as
 * the next plan reads it: a refused run fails its pipeline, a namespace being deleted halts them.
 */
export class Refusals {
  readonly refused: Record<string, string> = {};
  namespaceTerminating = false;

  /** How a failed action counts (the planned loop's Failure). */
  failed(action: ResourceAction, e: unknown): Failure {
    // Labels and finalizers come first: without them nothing else is done.
    if (action.type === 'setLabels' || action.type === 'setFinalizers') return 'fatal';
    if (action.type !== 'createRun') return 'transient';
    if (e instanceof NameTaken) this.refused[action.pipeline] = e.message;
    else if (isNamespaceTerminating(e) || isNamespaceGone(e)) this.namespaceTerminating = true;
    else if (isDeterministicRefusal(e))
      this.refused[action.pipeline] =
        `the API server refused to create WorkflowRun "${action.run.metadata.name}": ${statusMessage(e)}`;
    else return 'transient';
    return 'replan';
  }
}

/** Names an action, so one applied in a reconcile is not applied again when it plans anew. */
export function actionId(a: ResourceAction): string {
  switch (a.type) {
    case 'createRun':
      return `run/${a.run.metadata.name}`;
    case 'cancelRun':
    case 'resumeRun':
    case 'deleteWork':
      return `${a.type}/${a.name}`;
    case 'writeWork':
      return `work/${a.work.metadata.name}`;
    case 'setLabels':
      return `labels/${JSON.stringify(a.labels)}`;
    case 'setFinalizers':
      return `finalizers/${a.finalizers.join(',')}`;
    case 'event':
      return `event/${a.reason}/${a.message}`;
  }
}

/** What the caches hold of the object with this uid, as the resource planners read it. */
export function observedFor(
  uid: string,
  deps: Pick<ResourceDeps, 'workflowRuns' | 'runs' | 'works' | 'workflows' | 'defaultInterval'>,
): Pick<ResourceObserved, 'runs' | 'works' | 'workflow' | 'statusMessageOf' | 'filesOf' | 'defaultInterval'> {
  // Only what the controller made for this owner: its labels and its controller reference.
  const made = <T extends WorkflowRun | Work>(all: T[]) => all.filter((o) => controlledBy(o, uid));
  return {
    runs: made(deps.workflowRuns.withLabel(LABEL_RESOURCE_UID, uid)),
    works: made(deps.works.withLabel(LABEL_RESOURCE_UID, uid)),
    workflow: (ns, n) => deps.workflows.get(ns, n),
    statusMessageOf: (run) =>
      writtenStatus(deps.runs.withLabel(LABEL_WORKFLOWRUN_UID, run.metadata.uid ?? '')).message,
    filesOf: (run) =>
      workflowRunFiles(run, run.spec.jobs, (n) => deps.runs.get(run.metadata.namespace ?? '', n)),
    defaultInterval: deps.defaultInterval,
  };
}

/** What applying a resource plan's actions needs (a Promise's own workflow has the same). */
export type ActionDeps = Pick<ResourceDeps, 'api' | 'promise' | 'kube' | 'events'>;

/** One action; a metadata patch returns the resource as patched, for the status write that follows. */
export async function applyResourceAction(
  action: ResourceAction,
  resource: ResourceObject,
  deps: ActionDeps,
): Promise<ResourceObject | void> {
  // Where the resource's runs and Works live (the workflowNamespace for a cluster-scoped one).
  const namespace = pipelineNamespace(resource, deps.promise() ?? { spec: {} });
  switch (action.type) {
    case 'setLabels':
      return patchMetadata(resource, { labels: action.labels }, deps);
    case 'setFinalizers':
      return patchMetadata(resource, { finalizers: action.finalizers }, deps);
    case 'createRun':
      return createPipelineRun(action.run, resource, namespace, deps);
    case 'cancelRun':
    case 'resumeRun':
      await deps.kube.patch(
        { ...crd('workflowruns', namespace), name: action.name },
        action.type === 'cancelRun'
          ? { spec: { cancelRequested: true } }
          : { metadata: { labels: { [LABEL_SUSPENDED]: null } } },
      );
      return;
    case 'writeWork':
      await deps.kube.apply(
        { ...crd('works', namespace), name: action.work.metadata.name ?? '' },
        { ...action.work, apiVersion: API_VERSION },
      );
      return;
    case 'event':
      deps.events.record(resource, action.eventType, action.reason, action.message);
      return;
    case 'deleteWork':
      try {
        await deps.kube.delete({ ...crd('works', namespace), name: action.name });
      } catch (e) {
        if (statusCode(e) !== 404) throw e;
      }
      return;
  }
}

/** A pipeline run's deterministic name is taken by a WorkflowRun the controller did not make for this owner. */
export class NameTaken extends Error {}

/**
 * Creates a pipeline run. The name is deterministic: after a crash the run is there already, and is
 * adopted when it is ours (made for this owner, with its labels); one made by anyone else under that
 * name is never adopted, and the pipeline fails with the reason.
 */
async function createPipelineRun(
  run: WorkflowRun,
  owner: ResourceObject,
  namespace: string,
  deps: ActionDeps,
): Promise<void> {
  try {
    await deps.kube.create(crd('workflowruns', namespace), run);
    return;
  } catch (e) {
    if (statusCode(e) !== 409) throw e;
  }
  const name = run.metadata.name ?? '';
  const found = await deps.kube.get<WorkflowRun>({ ...crd('workflowruns', namespace), name });
  const uid = owner.metadata.uid ?? '';
  if (madeFor(found, uid, LABEL_RESOURCE_UID)) return;
  throw new NameTaken(
    `WorkflowRun "${name}" exists and was not made by the kruntimes controller for this ${owner.kind ?? 'resource'}: it is not adopted (delete it, and the pipeline runs again)`,
  );
}

/**
 * A merge patch of the resource's metadata; returns it as patched, for the status write that follows.
 * Finalizers go as the whole list with the observed resourceVersion: a concurrent change conflicts
 * and is retried.
 */
async function patchMetadata(
  resource: ResourceObject,
  metadata: { labels: Record<string, string | null> } | { finalizers: string[] },
  deps: ActionDeps,
): Promise<ResourceObject> {
  const guard = 'finalizers' in metadata ? { resourceVersion: resource.metadata.resourceVersion } : {};
  return patchResource(deps.kube, deps.api, resource, { metadata: { ...metadata, ...guard } });
}
