// A job whose runtime no live agent serves would wait in silence: admission says so, as a warning
// (agents come and go, and GitOps tools apply before the agents may be up).
import type { JobSpec } from '../api/types.js';
import { noAgentMessage } from '../runtime/agents.js';

/** Whether a live runtimed serves a runtime in the namespace of the object being admitted. */
export type ServesRuntime = (runtime: string) => boolean;

export function unservedRuntimeWarnings(
  jobs: Record<string, JobSpec>,
  namespace: string,
  serves: ServesRuntime,
  base = 'spec.jobs',
): string[] {
  const out: string[] = [];
  for (const [name, job] of Object.entries(jobs).sort(([a], [b]) => a.localeCompare(b))) {
    const runtime = job['runs-on'];
    if (job.uses !== undefined || typeof runtime !== 'string' || serves(runtime)) continue;
    out.push(
      `${base}.${name}.runs-on: ${noAgentMessage(runtime, namespace)} now; its steps will wait until one does (krt agent list shows the agents)`,
    );
  }
  return out;
}
