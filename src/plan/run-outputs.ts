// What a WorkflowRun's jobs hand on: the run's outputs (its frozen output annotations evaluated over
// its jobs) and what its steps wrote to $KRT_STATUS.
import type { JobStatus, Run, WorkflowRun } from '../api/types.js';
import { renderTemplate, type Contexts } from '../expr/index.js';
import { OUTPUT_ANNOTATION_PREFIX } from '../limits.js';
import { mergeWrittenStatus } from '../runtime/statusfile.js';

/** Evaluates a run's frozen output annotations against job statuses (its own, or a child's). */
export function runOutputs(
  run: Pick<WorkflowRun, 'metadata'>,
  jobs: Record<string, JobStatus>,
): { values: Record<string, string> } | { error: string } {
  const values: Record<string, string> = {};
  const ctx: Contexts = {
    jobs: Object.fromEntries(Object.entries(jobs).map(([k, s]) => [k, { outputs: s.outputs ?? {} }])),
  };
  for (const [key, expr] of Object.entries(run.metadata.annotations ?? {}).sort(([a], [b]) =>
    a.localeCompare(b),
  )) {
    if (!key.startsWith(OUTPUT_ANNOTATION_PREFIX)) continue;
    const name = key.slice(OUTPUT_ANNOTATION_PREFIX.length);
    try {
      values[name] = renderTemplate(expr, ctx);
    } catch (e) {
      return {
        error: `output "${name}" of workflow run "${run.metadata.name}": ${e instanceof Error ? e.message : String(e)}`,
      };
    }
  }
  return { values };
}

/**
 * What the Runs of this run wrote to $KRT_STATUS, in the order they completed: the last `message`,
 * and the other keys, a later step's value winning.
 */
export function stepStatusOf(
  runs: Run[],
  statuses: Record<string, JobStatus>,
): { message?: string; values: Record<string, unknown> } {
  const current = new Set(Object.values(statuses).flatMap((s) => (s.steps ?? []).map((x) => x.runName)));
  return writtenStatus(runs.filter((r) => current.has(r.metadata.name)));
}

/** What these Runs wrote to $KRT_STATUS, in the order they completed, a later value winning. */
export function writtenStatus(runs: Run[]): { message?: string; values: Record<string, unknown> } {
  const written = runs
    .filter((r) => r.status?.stepStatus)
    .sort((a, b) => (a.status?.completionTime ?? '').localeCompare(b.status?.completionTime ?? ''));
  let message: string | undefined;
  const documents = written.map((r) => {
    const { message: m, ...rest } = r.status?.stepStatus ?? {};
    if (m !== undefined) message = typeof m === 'string' ? m : JSON.stringify(m);
    return rest;
  });
  return { message, values: mergeWrittenStatus(documents) };
}
