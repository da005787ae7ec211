// The files of a pipeline (docs/design.md §4): $KRT_INPUT holds the resource as object.yaml and what
// earlier pipelines wrote under <pipeline>/; $KRT_OUTPUT_DIR starts with what earlier steps of the
// same run wrote. Each step's Run carries them, so steps on different agents see the same files.
import { stringify } from 'yaml';
import type { JobSpec, Run, WorkflowRun } from '../api/types.js';
import { topologicalOrder, upstreamJobs } from '../graph/jobs.js';
import { MAX_FILES, MAX_FILES_BYTES } from '../limits.js';
import { FILE_PATH_PATTERN, matches } from '../api/patterns.js';
import { fieldError, type FieldError } from '../fielderror.js';

export type Files = Record<string, string>;

export function filesBytes(files: Files): number {
  let n = 0;
  for (const [k, v] of Object.entries(files)) n += Buffer.byteLength(k) + Buffer.byteLength(v);
  return n;
}

/** Why a set of files given in an object is not acceptable: bad paths, too many, too large. */
export function fileSetErrors(files: Files, field: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const path of Object.keys(files))
    if (!matches(FILE_PATH_PATTERN, path))
      errors.push(fieldError(`${field}.${path}`, `file paths must match ${FILE_PATH_PATTERN}`));
  const count = Object.keys(files).length;
  if (count > MAX_FILES) errors.push(fieldError(field, `holds ${count} files, more than ${MAX_FILES}`));
  const bytes = filesBytes(files);
  if (bytes > MAX_FILES_BYTES)
    errors.push(fieldError(field, `holds ${bytes} bytes, more than the limit of ${MAX_FILES_BYTES}`));
  return errors;
}

/**
 * The resource as a step reads it: as the API server holds it while the pipeline runs, managedFields
 * aside. A configure round gives the generation it works on as the status's observedGeneration (the
 * controller writes it with the round's first run), so a pipeline tells a create (1) from an update
 * (more) the way Kratix documents it (docs/specifications.md R13).
 */
export function objectYaml(
  resource: { metadata?: Record<string, unknown>; status?: Record<string, unknown> } & Record<
    string,
    unknown
  >,
  observedGeneration?: number,
): string {
  const metadata = { ...(resource.metadata ?? {}), managedFields: undefined };
  const status = {
    ...(resource.status ?? {}),
    ...(observedGeneration !== undefined ? { observedGeneration } : {}),
  };
  return stringify(
    { ...resource, metadata, status: Object.keys(status).length > 0 ? status : undefined },
    { lineWidth: 0 },
  );
}

type RunsByName = (name: string) => Run | undefined;
type JobSteps = (job: string) => { runName?: string }[] | undefined;

/** The files a job's final Run left in $KRT_OUTPUT_DIR (its last step's, which began with the rest). */
function jobFiles(job: string, steps: JobSteps, runs: RunsByName): Files {
  const list = steps(job) ?? [];
  const last = list[list.length - 1];
  return (last?.runName && runs(last.runName)?.status?.outputFiles) || {};
}

/**
 * What $KRT_OUTPUT_DIR starts with for a step: the files of the step before it in its job, or for a
 * job's first step, of every job upstream of it (in topological order, a later job's file winning).
 */
export function seedFiles(
  jobs: Record<string, JobSpec>,
  job: string,
  previousStepRun: Run | undefined,
  steps: JobSteps,
  runs: RunsByName,
): Files {
  if (previousStepRun) return previousStepRun.status?.outputFiles ?? {};
  const upstream = upstreamJobs(jobs, job);
  const out: Files = {};
  for (const j of topologicalOrder(jobs)) if (upstream.has(j)) Object.assign(out, jobFiles(j, steps, runs));
  return out;
}

/** Everything a finished pipeline run wrote: every job's files, in topological order. */
export function workflowRunFiles(run: WorkflowRun, jobs: Record<string, JobSpec>, runs: RunsByName): Files {
  const out: Files = {};
  const steps: JobSteps = (j) => run.status?.jobs?.[j]?.steps;
  for (const j of topologicalOrder(jobs)) Object.assign(out, jobFiles(j, steps, runs));
  return out;
}
