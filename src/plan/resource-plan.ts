// What the resource planners (configure and delete) read and answer: the observed objects, the
// actions the controller applies, and the lookup wrapper that notes Workflows a plan missed.
import type { PromiseObject, ResourceObject, ResourceStatus, Work, WorkflowRun } from '../api/types.js';
import type { Files } from '../promise/files.js';
import type { WorkflowLookup } from '../promise/pipeline.js';

export interface ResourceObserved {
  resource: ResourceObject;
  promise: PromiseObject;
  /** WorkflowRuns the resource owns (label kruntimes.io/resource-uid). */
  runs: WorkflowRun[];
  /** Works of the resource (same label). */
  works: Work[];
  /** Workflows by namespace and name, for pipelines that name one (uses). */
  workflow?: WorkflowLookup;
  /** The last message a pipeline run's steps wrote to status.yaml (from its Runs). */
  statusMessageOf?: (run: WorkflowRun) => string | undefined;
  /** The files a finished pipeline run wrote to $KRT_OUTPUT_DIR (from its Runs). */
  filesOf: (run: WorkflowRun) => Files;
  /**
   * Pipelines whose run the API server refused to create in this reconcile, with its reason: they
   * fail (a refusal is not retried), as a WorkflowRun's refused job does.
   */
  refused?: Record<string, string>;
  /** The namespace refused a new run because it is being deleted: no pipeline can run there. */
  namespaceTerminating?: boolean;
  /** The controller's reconciliation interval, when the Promise does not set one. */
  defaultInterval?: string;
  now: Date;
}

export type ResourceAction =
  /** Labels of the resource to set (a value) or remove (null); applied before the status. */
  | { type: 'setLabels'; labels: Record<string, string | null> }
  /** The resource's whole finalizer list, written with its resourceVersion; before anything it guards. */
  | { type: 'setFinalizers'; finalizers: string[] }
  /** Deletes a Work (its own finalizer removes what it applied first). */
  | { type: 'deleteWork'; name: string }
  | { type: 'createRun'; pipeline: string; run: WorkflowRun }
  | { type: 'cancelRun'; name: string }
  /** Removes the suspended label of a pipeline run: its suspended job runs again. */
  | { type: 'resumeRun'; name: string }
  | { type: 'writeWork'; work: Work }
  | { type: 'event'; eventType: 'Normal' | 'Warning'; reason: string; message: string };

export interface ResourcePlan {
  status: ResourceStatus;
  actions: ResourceAction[];
  /** Plan again after this many ms: the periodic reconciliation. */
  requeueAfter?: number;
  /**
   * Workflows a pipeline failed on because the lookup did not find them. A lookup is a cache that
   * can lag a Workflow created just before, so the caller confirms with the API server first.
   */
  missingWorkflows?: { namespace: string; name: string }[];
}

/** Plans with a lookup that notes the Workflows it did not find, and names them in the plan. */
export function notingMissingWorkflows(
  plan: (o: ResourceObserved) => ResourcePlan,
): (o: ResourceObserved) => ResourcePlan {
  return (o) => {
    const missed: { namespace: string; name: string }[] = [];
    const workflow: WorkflowLookup = (namespace, name) => {
      const wf = o.workflow?.(namespace, name);
      if (!wf) missed.push({ namespace, name });
      return wf;
    };
    const out = plan({ ...o, workflow });
    return missed.length > 0 ? { ...out, missingWorkflows: missed } : out;
  };
}

/** Keys of the status kruntimes owns; status.yaml's other keys are merged beside them. */
export const RESERVED_STATUS_KEYS = new Set(['kruntimes', 'conditions', 'message', 'observedGeneration']);
/** The condition types the controller sets on a resource; a pipeline's condition of one is ignored. */
export const CONTROLLER_CONDITIONS = new Set([
  'ConfigureWorkflowCompleted',
  'WorksSucceeded',
  'Reconciled',
  'Ready',
  'Paused',
  'DeleteWorkflowCompleted',
]);

/** Where a configure workflow stands, from its pipelines' phases. */
export type State = 'none' | 'running' | 'suspended' | 'failed' | 'succeeded';
