// One entry point for every caller that validates objects: webhook, `krt validate`, controller.
export { validateWorkflow, type WorkflowContext } from './workflow.js';
export { validateWorkflowRun, type WorkflowRunContext } from './workflowrun.js';
export { validateRun, mayCreateRun, DEFAULT_RUN_CREATORS, type UserInfo, type RunCreators } from './run.js';
export { callInputErrors, inputErrors, valueMatchesType } from '../render/inputs.js';
export type { ValidationResult } from './result.js';
export { validatePromise } from './promise.js';
