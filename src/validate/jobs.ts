// The rules of a job map, shared by Workflow and WorkflowRun (docs/specifications.md W3, W12):
// job shape, names, the job graph, and what each expression may read.
import { MSG } from '../api/messages.js';
import { CONTAINER_RUNTIME, LABEL_KEY_PATTERN } from '../api/patterns.js';
import { ENV_NAME_PATTERN, JOB_NAME_PATTERN, matches, STEP_NAME_PATTERN } from '../api/patterns.js';
import { CONTAINER_STEP_FIELDS, POD_FIELDS } from '../api/container-schema.js';
import type { JobSpec, StepSpec } from '../api/types.js';
import { fieldError, type FieldError } from '../fielderror.js';
import { isUpstream, jobGraphErrors } from '../graph/jobs.js';
import { MAX_LABEL_VALUE_LENGTH } from '../limits.js';
import { withValueErrors } from '../render/inputs.js';
import { checkExpressions, type ExpressionScope } from './expressions.js';
import { scriptPlaceProblems } from '../shell/render.js';
import { isObject } from '../helpers.js';

export interface JobsContext {
  /** Declared inputs (Workflow), or why inputs cannot be read (WorkflowRun). */
  inputs: Set<string> | { unavailable: string };
  base?: string;
  /** In a Promise pipeline: `resource` is readable, checked against this schema. */
  resource?: { schema?: unknown };
}

export interface JobsFindings {
  errors: FieldError[];
  warnings: string[];
  inputsRead: Set<string>;
}

export function labelValueNameError(kind: 'job' | 'step', name: string): string | null {
  if (name.length > MAX_LABEL_VALUE_LENGTH)
    return `${kind} name "${name}" is longer than ${MAX_LABEL_VALUE_LENGTH} characters`;
  const pattern = kind === 'job' ? JOB_NAME_PATTERN : STEP_NAME_PATTERN;
  return matches(pattern, name) ? null : `${kind} name "${name}" must match ${pattern}`;
}

/** Shape of one job: the CRD's CEL rules, said the same way. */
export function jobShapeErrors(job: JobSpec, field: string): FieldError[] {
  const errors: FieldError[] = [];
  if (job.uses !== undefined) {
    if (job.steps !== undefined) errors.push(fieldError(field, 'a call job cannot have steps'));
    if (job['runs-on'] !== undefined) errors.push(fieldError(field, 'a call job cannot have runs-on'));
    if (job.outputs !== undefined)
      errors.push(fieldError(field, 'a call job cannot have outputs: they come from the called Workflow'));
    if (isObject(job.with))
      for (const [k, v] of Object.entries(job.with)) errors.push(...withValueErrors(v, `${field}.with.${k}`));
  } else {
    if (job['runs-on'] === undefined || job.steps === undefined)
      errors.push(fieldError(field, MSG.inlineJobShape));
    if (job.with !== undefined) errors.push(fieldError(`${field}.with`, MSG.withOnlyOnCall));
  }
  errors.push(...containerShapeErrors(job, field));
  const seen = new Set<string>();
  (job.steps ?? []).forEach((step, i) => {
    if (!isObject(step) || typeof step.name !== 'string') return;
    const nameError = labelValueNameError('step', step.name);
    if (nameError) errors.push(fieldError(`${field}.steps[${i}].name`, nameError));
    if (seen.has(step.name))
      errors.push(fieldError(`${field}.steps[${i}].name`, `duplicate step name "${step.name}"`));
    seen.add(step.name);
    // The CRD's keysMatch rules, said here too: a Promise's pipelines carry no CEL.
    for (const map of ['env', 'secretEnv'] as const)
      for (const k of Object.keys(isObject(step[map]) ? step[map] : {}))
        if (!matches(ENV_NAME_PATTERN, k))
          errors.push(
            fieldError(
              `${field}.steps[${i}].${map}.${k}`,
              `environment variable names must match ${ENV_NAME_PATTERN}`,
            ),
          );
    if (isObject(step.env) && isObject(step.secretEnv))
      for (const k of Object.keys(step.secretEnv))
        if (Object.hasOwn(step.env, k))
          errors.push(
            fieldError(`${field}.steps[${i}].secretEnv.${k}`, 'is also set in env: give it one source'),
          );
  });
  return errors;
}

/** Which steps run in a container and what a container job may set: the CRD's CEL rules, said here too. */
function containerShapeErrors(job: JobSpec, field: string): FieldError[] {
  if (job.uses !== undefined || !Array.isArray(job.steps)) return [];
  const errors: FieldError[] = [];
  const containers = job['runs-on'] === CONTAINER_RUNTIME;
  if (!containers)
    for (const f of POD_FIELDS)
      if (job[f] !== undefined) errors.push(fieldError(`${field}.${f}`, MSG.podFieldsRuntime));
  const volumes = volumeNames(job, field, errors);
  for (const k of Object.keys(isObject(job.nodeSelector) ? job.nodeSelector : {}))
    if (!matches(LABEL_KEY_PATTERN, k))
      errors.push(fieldError(`${field}.nodeSelector.${k}`, 'node selector keys must be label keys'));
  job.steps.forEach((step, i) => {
    if (isObject(step))
      errors.push(...stepContainerErrors(step, `${field}.steps[${i}]`, containers, volumes));
  });
  return errors;
}

/** The names of a job's volumes, each checked: one source, not ours, not twice. */
function volumeNames(job: JobSpec, field: string, errors: FieldError[]): Set<string> {
  const volumes = new Set<string>();
  (Array.isArray(job.volumes) ? job.volumes : []).forEach((v, i) => {
    if (!isObject(v)) return;
    const sources = (['configMap', 'secret', 'emptyDir'] as const).filter((k) => v[k] !== undefined);
    if (sources.length !== 1)
      errors.push(
        fieldError(`${field}.volumes[${i}]`, 'a volume has exactly one of configMap, secret, emptyDir'),
      );
    if (v.name === 'krt' || v.name === 'kratix')
      errors.push(
        fieldError(`${field}.volumes[${i}].name`, `"${v.name}" is a volume of the step Pod itself`),
      );
    if (volumes.has(v.name))
      errors.push(fieldError(`${field}.volumes[${i}].name`, `duplicate volume name "${v.name}"`));
    volumes.add(v.name);
  });
  return volumes;
}

/** A step's container fields against its job's runtime, and its mounts against the job's volumes. */
function stepContainerErrors(
  step: StepSpec,
  at: string,
  containers: boolean,
  volumes: Set<string>,
): FieldError[] {
  const errors: FieldError[] = [];
  if (containers && step.image === undefined)
    errors.push(fieldError(`${at}.image`, `required with runs-on: ${CONTAINER_RUNTIME}`));
  if (!containers)
    for (const f of CONTAINER_STEP_FIELDS)
      if (step[f] !== undefined)
        errors.push(fieldError(`${at}.${f}`, `only a step of runs-on: ${CONTAINER_RUNTIME} may have ${f}`));
  if (step.run === undefined && step.image === undefined)
    errors.push(fieldError(`${at}.run`, 'required value'));
  if (step.run !== undefined && step.command !== undefined)
    errors.push(fieldError(`${at}.command`, MSG.runOrCommand));
  const mounted = new Set<string>();
  (Array.isArray(step.volumeMounts) ? step.volumeMounts : []).forEach((m, n) => {
    if (!isObject(m)) return;
    const mf = `${at}.volumeMounts[${n}]`;
    if (!volumes.has(m.name))
      errors.push(fieldError(`${mf}.name`, `no volume "${m.name}" in the job's volumes`));
    if (typeof m.mountPath === 'string' && /^\/(krt|kratix)(\/|$)/.test(m.mountPath))
      errors.push(fieldError(`${mf}.mountPath`, 'is where the step finds its own files: mount elsewhere'));
    if (mounted.has(m.mountPath))
      errors.push(fieldError(`${mf}.mountPath`, `"${m.mountPath}" is mounted twice`));
    mounted.add(m.mountPath);
  });
  (Array.isArray(step.envFrom) ? step.envFrom : []).forEach((e, n) => {
    if (isObject(e) && (e.configMapRef === undefined) === (e.secretRef === undefined))
      errors.push(fieldError(`${at}.envFrom[${n}]`, 'a source has exactly one of configMapRef, secretRef'));
  });
  if (step.limits !== undefined && containers)
    errors.push(fieldError(`${at}.limits`, 'is for sandboxed runtimes; a container step sets resources'));
  return errors;
}

export function validateJobs(jobs: Record<string, JobSpec>, ctx: JobsContext): JobsFindings {
  const base = ctx.base ?? 'spec.jobs';
  const out: JobsFindings = { errors: [], warnings: [], inputsRead: new Set() };
  const names = Object.keys(jobs).sort();
  for (const name of names) {
    const nameError = labelValueNameError('job', name);
    if (nameError) out.errors.push(fieldError(`${base}.${name}`, nameError));
    out.errors.push(...jobShapeErrors(jobs[name] as JobSpec, `${base}.${name}`));
  }
  const graphErrors = jobGraphErrors(jobs, base);
  out.errors.push(...graphErrors);
  // Reference checks need an acyclic graph to know what is upstream.
  if (graphErrors.length > 0) return out;
  for (const name of names) checkJobExpressions(name, jobs, ctx, `${base}.${name}`, out);
  return out;
}

function checkJobExpressions(
  name: string,
  jobs: Record<string, JobSpec>,
  ctx: JobsContext,
  field: string,
  out: JobsFindings,
): void {
  const job = jobs[name] as JobSpec;
  const upstream = (target: string) => isUpstream(jobs, name, target);
  const scope = (steps: ExpressionScope['steps']): ExpressionScope => ({
    inputs: ctx.inputs,
    ...(ctx.resource ? { resource: ctx.resource } : {}),
    jobs: upstream,
    steps,
    allJobs: jobs,
    job: name,
  });
  const record = (value: unknown, at: string, s: ExpressionScope) => {
    const f = checkExpressions(value, at, s);
    out.errors.push(...f.errors);
    f.inputsRead.forEach((i) => out.inputsRead.add(i));
    return f;
  };
  if (job.uses !== undefined) {
    const s = scope({ unavailable: 'a call job has no steps' });
    for (const [k, v] of Object.entries(job.with ?? {})) record(v, `${field}.with.${k}`, s);
    return;
  }
  const earlier: string[] = [];
  (job.steps ?? []).forEach((step, i) => {
    const s = scope(earlier.slice());
    record(step.run, `${field}.steps[${i}].run`, s);
    if (step.workingDir !== undefined) record(step.workingDir, `${field}.steps[${i}].workingDir`, s);
    for (const f of ['command', 'args'] as const)
      (Array.isArray(step[f]) ? step[f] : []).forEach((w, n) =>
        record(w, `${field}.steps[${i}].${f}[${n}]`, s),
      );
    if (typeof step.run === 'string')
      for (const p of scriptPlaceProblems(step.run))
        out.errors.push(fieldError(`${field}.steps[${i}].run`, p));
    for (const [k, v] of Object.entries(step.env ?? {})) record(v, `${field}.steps[${i}].env.${k}`, s);
    earlier.push(step.name);
  });
  const all = scope(earlier);
  for (const [k, v] of Object.entries(job.outputs ?? {})) record(v, `${field}.outputs.${k}`, all);
}
