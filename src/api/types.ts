// Whole objects of kruntimes.io/v1alpha1. Their spec and status types are generated from the
// schemas (types.generated.ts), so the TypeScript view and the CRDs cannot drift apart.
import type { V1ObjectMeta } from '@kubernetes/client-node';
import type * as G from './types.generated.js';

export type {
  StepSpec,
  JobSpec,
  Condition,
  JobStatus,
  WorkflowSpec,
  WorkflowStatus,
  WorkflowRunSpec,
  WorkflowRunStatus,
  RunSpec,
  RunStatus,
  Pipeline,
  PipelineContainer,
  PromiseSpec,
  PromiseStatus,
  WorkSpec,
  WorkStatus,
  AppliedObject,
  PipelineStatus,
  ResourceWorkflows,
  ResourceDelete,
  ResourceStatus,
} from './types.generated.js';

export type ObjectMeta = V1ObjectMeta;

interface Resource<K extends string, Spec, Status> {
  apiVersion: 'kruntimes.io/v1alpha1';
  kind: K;
  metadata: ObjectMeta;
  spec: Spec;
  status?: Status;
}

export type Workflow = Resource<'Workflow', G.WorkflowSpec, G.WorkflowStatus>;
export type WorkflowRun = Resource<'WorkflowRun', G.WorkflowRunSpec, G.WorkflowRunStatus>;
export type Run = Resource<'Run', G.RunSpec, G.RunStatus>;
export type PromiseObject = Resource<'Promise', G.PromiseSpec, G.PromiseStatus>;
export type Work = Resource<'Work', G.WorkSpec, G.WorkStatus>;

/** A resource of a Promise's API: any kind, with the status kruntimes writes. */
export interface ResourceObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: Record<string, unknown>;
  status?: G.ResourceStatus;
}
