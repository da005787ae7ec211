// One partial rendering pass over a job map (inputs at materialisation, `resource` in a Promise
// pipeline): every string gets the known values as data, and a step's `run` script gets them
// escaped for the shell context each stands in (src/shell/render.ts).
import type { JobSpec } from '../api/types.js';
import { renderPartial, type ContextName, type Contexts } from '../expr/index.js';
import { renderScriptPartial } from '../shell/render.js';

function renderStrings<T>(value: T, contexts: Contexts, only: readonly ContextName[]): T {
  if (typeof value === 'string') return renderPartial(value, contexts, only) as T;
  if (Array.isArray(value)) return value.map((v) => renderStrings(v, contexts, only)) as T;
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, renderStrings(v, contexts, only)]),
    ) as T;
  return value;
}

function renderJob(job: JobSpec, contexts: Contexts, only: readonly ContextName[]): JobSpec {
  const { steps, ...rest } = job;
  const out = renderStrings(rest, contexts, only) as JobSpec;
  if (steps)
    out.steps = steps.map(({ run, ...step }) => ({
      ...renderStrings(step, contexts, only),
      ...(typeof run === 'string' ? { run: renderScriptPartial(run, contexts, only) } : {}),
    })) as JobSpec['steps'];
  return out;
}

/** Throws ExprError when a reference cannot render, ShellValueError when a value cannot be placed. */
export function renderJobs(
  jobs: Record<string, JobSpec>,
  contexts: Contexts,
  only: readonly ContextName[],
): Record<string, JobSpec> {
  return Object.fromEntries(Object.entries(jobs).map(([k, j]) => [k, renderJob(j, contexts, only)]));
}

/** The same pass over any other value (strings rendered as data). */
export { renderStrings };
