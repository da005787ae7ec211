import type { Workflow, WorkflowRun } from '../api/types.js';
import { formatFieldError } from '../fielderror.js';
import { MAX_ADMITTED_OBJECT_BYTES, MAX_JOBS, MAX_STEPS_PER_JOB } from '../limits.js';
import { jsonBytes } from './size.js';
import { validateRun, validateWorkflow, validateWorkflowRun } from './index.js';

/** `jobs` jobs of `steps` steps, each script `bytes` long: every part within its own bound. */
function manyJobs(jobs: number, steps: number, bytes: number) {
  return Object.fromEntries(
    Array.from({ length: jobs }, (_, j) => [
      `job-${j}`,
      {
        'runs-on': 'bash',
        steps: Array.from({ length: steps }, (_, s) => ({ name: `s${s}`, run: 'x'.repeat(bytes) })),
      },
    ]),
  );
}
const wfr = (jobs: object, status?: object): WorkflowRun =>
  ({
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'WorkflowRun',
    metadata: { name: 'big' },
    spec: { jobs },
    ...(status ? { status } : {}),
  }) as WorkflowRun;

describe('objects etcd can store', () => {
  it('refuses a 1.5 MiB WorkflowRun of many small jobs, naming the limit', () => {
    const run = wfr(manyJobs(MAX_JOBS, MAX_STEPS_PER_JOB, 300));
    expect(jsonBytes(run)).toBeGreaterThan(1.5 * 1024 * 1024);
    const errors = validateWorkflowRun(run).errors.map(formatFieldError);
    expect(errors).toEqual([
      expect.stringMatching(
        new RegExp(
          `^the WorkflowRun takes \\d+ bytes; an object must take at most ${MAX_ADMITTED_OBJECT_BYTES} bytes \\(1 MiB\\)`,
        ),
      ),
    ]);
  });

  it('accepts one just under the limit, and does not count a grown status', () => {
    const run = wfr(manyJobs(MAX_JOBS, 20, 400));
    expect(jsonBytes(run)).toBeLessThan(MAX_ADMITTED_OBJECT_BYTES);
    expect(jsonBytes(run)).toBeGreaterThan(MAX_ADMITTED_OBJECT_BYTES * 0.8);
    expect(validateWorkflowRun(run).errors).toEqual([]);
    const grown = wfr(run.spec.jobs, { message: 'x'.repeat(MAX_ADMITTED_OBJECT_BYTES) });
    expect(
      validateWorkflowRun({ ...grown, spec: { ...grown.spec, cancelRequested: true } }, { old: grown })
        .errors,
    ).toEqual([]);
  });

  it('refuses a too large Run', () => {
    const env = Array.from({ length: 100 }, (_, i) => ({ name: `E${i}`, value: 'v'.repeat(8192) }));
    const run = {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'Run',
      metadata: { name: 'r' },
      spec: { runtime: 'bash', script: 'x'.repeat(65536), env },
    };
    expect(validateRun(run as never).errors).toEqual([]);
    const twice = { ...run, metadata: { name: 'r', annotations: { a: 'x'.repeat(200_000) } } };
    expect(validateRun(twice as never).errors.map(formatFieldError)).toEqual([
      expect.stringMatching(/^the Run takes \d+ bytes; an object must take at most 1048576 bytes/),
    ]);
  });

  it("refuses a small Workflow whose WorkflowRun, made with the inputs' defaults, could not be stored", () => {
    const jobs = Object.fromEntries(
      Array.from({ length: 20 }, (_, j) => [
        `j${j}`,
        {
          'runs-on': 'bash',
          steps: Array.from({ length: 10 }, (_, s) => ({ name: `s${s}`, run: 'echo "${{ inputs.big }}"' })),
        },
      ]),
    );
    const wf = {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'Workflow',
      metadata: { name: 'w' },
      spec: { inputs: { big: { type: 'string', default: 'b'.repeat(8000) } }, jobs },
    } as unknown as Workflow;
    expect(jsonBytes(wf)).toBeLessThan(64 * 1024);
    expect(validateWorkflow(wf).errors.map(formatFieldError)).toEqual([
      expect.stringMatching(
        /^spec\.jobs: the WorkflowRun made from this Workflow with its inputs' defaults would take about \d+ bytes; a WorkflowRun must take at most 1048576 bytes/,
      ),
    ]);
    const small = {
      ...wf,
      spec: { ...wf.spec, inputs: { big: { type: 'string', default: 'b' } } },
    } as Workflow;
    expect(validateWorkflow(small).errors).toEqual([]);
  });
});
