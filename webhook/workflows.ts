// What admission needs to know about the Workflows of a namespace, read from an informer cache so
// no review makes an API call.
import type { Workflow } from '../src/api/types.js';

export interface WorkflowIndex {
  get(namespace: string, name: string): Workflow | undefined;
  /** Every Workflow of the namespace, by name. */
  inNamespace(namespace: string): Map<string, Workflow>;
}
