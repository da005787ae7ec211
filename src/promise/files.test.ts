import { describe, expect, it } from '@jest/globals';
import type { JobSpec, Run, WorkflowRun } from '../api/types.js';
import { formatFieldError } from '../fielderror.js';
import { fileSetErrors, objectYaml, seedFiles, workflowRunFiles } from './files.js';

const run = (name: string, files?: Record<string, string>): Run => ({
  apiVersion: 'kruntimes.io/v1alpha1',
  kind: 'Run',
  metadata: { name },
  spec: { runtime: 'bash', script: 'true' },
  ...(files ? { status: { phase: 'Succeeded', outputFiles: files } } : {}),
});

const jobs: Record<string, JobSpec> = {
  a: {
    'runs-on': 'bash',
    steps: [
      { name: 's1', run: 'x' },
      { name: 's2', run: 'x' },
    ],
  },
  b: { 'runs-on': 'bash', steps: [{ name: 's', run: 'x' }] },
  c: { 'runs-on': 'bash', needs: ['a', 'b'], steps: [{ name: 's', run: 'x' }] },
};
const runs = new Map([
  ['a1', run('a1', { 'x.yaml': 'from a step 1' })],
  ['a2', run('a2', { 'x.yaml': 'from a', 'a.yaml': 'a' })],
  ['b1', run('b1', { 'x.yaml': 'from b', 'b.yaml': 'b' })],
  ['c1', run('c1', { 'c.yaml': 'c' })],
]);
const wfr: WorkflowRun = {
  apiVersion: 'kruntimes.io/v1alpha1',
  kind: 'WorkflowRun',
  metadata: { name: 'w' },
  spec: { jobs },
  status: {
    jobs: {
      a: {
        steps: [
          { name: 's1', runName: 'a1' },
          { name: 's2', runName: 'a2' },
        ],
      },
      b: { steps: [{ name: 's', runName: 'b1' }] },
      c: { steps: [{ name: 's', runName: 'c1' }] },
    },
  },
};
const steps = (j: string) => wfr.status?.jobs?.[j]?.steps;

describe('pipeline files', () => {
  it('a later step starts with the step before it; a first step with every upstream job, later job winning', () => {
    expect(seedFiles(jobs, 'a', runs.get('a1'), steps, (n) => runs.get(n))).toEqual({
      'x.yaml': 'from a step 1',
    });
    expect(seedFiles(jobs, 'c', undefined, steps, (n) => runs.get(n))).toEqual({
      'x.yaml': 'from b',
      'a.yaml': 'a',
      'b.yaml': 'b',
    });
    expect(seedFiles(jobs, 'a', undefined, steps, (n) => runs.get(n))).toEqual({});
  });

  it('a finished run wrote what every job final step left', () => {
    expect(workflowRunFiles(wfr, jobs, (n) => runs.get(n))).toEqual({
      'x.yaml': 'from b',
      'a.yaml': 'a',
      'b.yaml': 'b',
      'c.yaml': 'c',
    });
  });

  it('refuses paths that leave the folder or hide, and sets over the bounds', () => {
    expect(
      fileSetErrors({ '../etc/passwd': 'x', '.hidden': 'x', 'ok/a.yaml': 'x' }, 'spec.inputFiles').map(
        formatFieldError,
      ),
    ).toEqual([
      'spec.inputFiles.../etc/passwd: file paths must match ^[A-Za-z0-9_][A-Za-z0-9._-]*(/[A-Za-z0-9_][A-Za-z0-9._-]*){0,3}$',
      'spec.inputFiles..hidden: file paths must match ^[A-Za-z0-9_][A-Za-z0-9._-]*(/[A-Za-z0-9_][A-Za-z0-9._-]*){0,3}$',
    ]);
    const many = Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`f${i}`, '']));
    expect(fileSetErrors(many, 'f').map(formatFieldError)).toEqual(['f: holds 201 files, more than 200']);
    expect(fileSetErrors({ big: 'x'.repeat(256 * 1024) }, 'f').map(formatFieldError)).toEqual([
      'f: holds 262147 bytes, more than the limit of 262144',
    ]);
  });

  it('gives steps the resource with its status and without managedFields', () => {
    const text = objectYaml({
      apiVersion: 'v1',
      kind: 'X',
      metadata: { name: 'n', managedFields: [{ manager: 'm' }] },
      spec: { a: 1 },
      status: { written: 'by a pipeline', observedGeneration: 1 },
    });
    expect(text).toBe(
      'apiVersion: v1\nkind: X\nmetadata:\n  name: n\nspec:\n  a: 1\nstatus:\n  written: by a pipeline\n  observedGeneration: 1\n',
    );
  });

  it('gives a configure round its generation as observedGeneration: 1 on create, more on update', () => {
    const create = objectYaml({ apiVersion: 'v1', kind: 'X', metadata: { name: 'n', generation: 1 } }, 1);
    expect(create).toContain('status:\n  observedGeneration: 1\n');
    const update = objectYaml(
      {
        apiVersion: 'v1',
        kind: 'X',
        metadata: { name: 'n', generation: 3 },
        status: { observedGeneration: 2 },
      },
      3,
    );
    expect(update).toContain('status:\n  observedGeneration: 3\n');
    expect(objectYaml({ apiVersion: 'v1', kind: 'X', metadata: { name: 'n' } })).not.toContain('status');
  });
});
