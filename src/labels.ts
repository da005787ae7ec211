// Labels and annotations that tie generated objects to their owners (docs/design.md §2), so an owner
// lists what it made with one label selector from the informer cache.
export const LABEL_WORKFLOWRUN_UID = 'kruntimes.io/workflowrun-uid';
export const LABEL_JOB = 'kruntimes.io/workflow-job';
export const LABEL_STEP = 'kruntimes.io/workflow-step';
export const LABEL_PARENT_UID = 'kruntimes.io/parent-uid';
export const LABEL_CALL_JOB = 'kruntimes.io/call-job';
/** On a run materialized from a template: the template's name. */
export const LABEL_WORKFLOW = 'kruntimes.io/workflow';
/** On the Lease each runtimed holds, so admission, the controller and krt can list the agents. */
export const LABEL_AGENT = 'kruntimes.io/agent';
/** On an agent's Lease: the runtimes it serves, comma-separated. */
export const ANNOTATION_AGENT_RUNTIMES = 'kruntimes.io/runtimes';
/** On an agent's Lease: the namespaces it serves, comma-separated; empty for all. */
export const ANNOTATION_AGENT_NAMESPACES = 'kruntimes.io/namespaces';
/** On an agent's Lease: the URL of its log endpoint, where another agent fetches the logs it holds. */
export const ANNOTATION_AGENT_LOG_URL = 'kruntimes.io/log-url';
/** On a WorkflowRun one of whose jobs is suspended (docs/specifications.md R5); removing it resumes the job. */
export const LABEL_SUSPENDED = 'kruntimes.io/workflow-suspended';
/** On a resource of a Promise's API: set to "true" to run its configure workflow again. */
export const LABEL_MANUAL_RECONCILIATION = 'kruntimes.io/manual-reconciliation';
/** On a resource: "true" pauses its reconciliation (Kratix: kratix.io/paused); a running pipeline goes on. */
export const LABEL_PAUSED = 'kruntimes.io/paused';
/** On a Promise: "true" runs the configure workflow of every resource again (Kratix: kratix.io/reconcile-resources). */
export const LABEL_RECONCILE_RESOURCES = 'kruntimes.io/reconcile-resources';
/** On what a Promise makes (its CRD, pipeline WorkflowRuns, Works): the Promise's name. */
export const LABEL_PROMISE = 'kruntimes.io/promise';
/** On a pipeline WorkflowRun and a Work: the resource they were made for. */
export const LABEL_RESOURCE_UID = 'kruntimes.io/resource-uid';
/** On a pipeline WorkflowRun and a Work: the pipeline's name. */
export const LABEL_PIPELINE = 'kruntimes.io/pipeline';
/** On a pipeline WorkflowRun: the hash of the resource spec and the Promise it ran for. */
export const LABEL_WORKFLOW_HASH = 'kruntimes.io/workflow-hash';
/** On a pipeline WorkflowRun: which start of the resource's configure workflow it belongs to. */
export const LABEL_WORKFLOW_ROUND = 'kruntimes.io/workflow-round';
/** On a pipeline WorkflowRun: "configure" or "delete", the workflow it belongs to. */
export const LABEL_WORKFLOW_TYPE = 'kruntimes.io/workflow-type';
/** On a delete pipeline's WorkflowRun: which attempt of its round it is. */
export const LABEL_DELETE_ATTEMPT = 'kruntimes.io/delete-attempt';
/** On a configure pipeline's WorkflowRun: its attempt in the round (jobOptions.backoffLimit retries). */
export const LABEL_PIPELINE_ATTEMPT = 'kruntimes.io/pipeline-attempt';
/** On a resource while its Promise has a delete pipeline: deletion waits for that pipeline. */
export const FINALIZER_DELETE_WORKFLOW = 'kruntimes.io/delete-workflow';
/** On a resource with Works: deletion removes them and what they applied first. */
export const FINALIZER_WORKS_CLEANUP = 'kruntimes.io/works-cleanup';
/** On each object a Work applied: the Work's uid. An object without it is not the Work's to change or delete. */
export const LABEL_WORK_UID = 'kruntimes.io/work-uid';
/** On a Work: its deletion removes the objects it applied first. */
export const FINALIZER_APPLIED_OBJECTS = 'kruntimes.io/applied-objects';
/** On a Promise: its deletion deletes its resources (through their delete pipelines), then its CRD. */
export const FINALIZER_PROMISE_RESOURCES = 'kruntimes.io/promise-resources';
/** On a step Pod: the name and uid of the Run it executes (`kubectl get pods -l kruntimes.io/run=<run>`). */
export const LABEL_RUN = 'kruntimes.io/run';
export const LABEL_RUN_UID = 'kruntimes.io/run-uid';
