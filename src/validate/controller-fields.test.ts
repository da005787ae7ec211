import { describe, expect, it } from '@jest/globals';
import { LABEL_PIPELINE, LABEL_RESOURCE_UID, LABEL_SUSPENDED, LABEL_WORKFLOW } from '../labels.js';
import {
  CONTROLLER_LABELS,
  runControllerFieldErrors,
  workflowRunControllerFieldErrors,
} from './controller-fields.js';
import { ANNOTATION_CREATOR, creatorAnnotation } from './creator.js';

const run = (labels: Record<string, string> = {}, spec: object = { jobs: { a: {} } }, annotations = {}) => ({
  metadata: { labels, annotations },
  spec,
});
const alice = { username: 'alice', groups: ['team'] };
const wfrErrors = (
  object: Parameters<typeof workflowRunControllerFieldErrors>[0],
  old?: Parameters<typeof workflowRunControllerFieldErrors>[1],
) => workflowRunControllerFieldErrors(object, old, alice);
const pipeline = { [LABEL_RESOURCE_UID]: 'u1', [LABEL_PIPELINE]: 'p' };

describe('WorkflowRuns: what only the controller writes', () => {
  it('a user may create a run with labels of its own, and with the template label krt sets', () => {
    expect(wfrErrors(run({ team: 'a', [LABEL_WORKFLOW]: 'release' }), undefined)).toEqual([]);
  });

  it.each(CONTROLLER_LABELS)('refuses %s on a run a user creates', (label) => {
    expect(wfrErrors(run({ [label]: 'x' }), undefined)).toEqual([
      {
        field: `metadata.labels[${label}]`,
        message: 'set by the kruntimes controller only: it marks what the controller made and trusts',
      },
    ]);
  });

  it('refuses adding, changing or removing a controller label', () => {
    const errors = (now: Record<string, string>, before: Record<string, string>) =>
      wfrErrors(run(now), run(before)).map((e) => e.field);
    expect(errors({ [LABEL_RESOURCE_UID]: 'u1' }, {})).toEqual([`metadata.labels[${LABEL_RESOURCE_UID}]`]);
    expect(errors({ ...pipeline, [LABEL_RESOURCE_UID]: 'u2' }, pipeline)).toEqual([
      `metadata.labels[${LABEL_RESOURCE_UID}]`,
    ]);
    expect(errors({ [LABEL_PIPELINE]: 'p' }, pipeline)).toEqual([`metadata.labels[${LABEL_RESOURCE_UID}]`]);
  });

  it('on a run the controller made: a cancel request and a resume only', () => {
    const made = run({ ...pipeline, [LABEL_SUSPENDED]: 'true' }, { jobs: { a: {} }, inputFiles: [] });
    const cancelled = run(
      { ...pipeline, [LABEL_SUSPENDED]: 'true' },
      { jobs: { a: {} }, inputFiles: [], cancelRequested: true },
    );
    expect(wfrErrors(cancelled, made)).toEqual([]);
    expect(wfrErrors(run(pipeline, { jobs: { a: {} }, inputFiles: [] }), made)).toEqual([]);
    expect(
      wfrErrors(
        run({ ...pipeline, [LABEL_SUSPENDED]: 'true' }, { jobs: { a: {} }, inputFiles: [{ x: 1 }] }),
        made,
      ),
    ).toEqual([
      {
        field: 'spec',
        message: 'this run was made by the kruntimes controller: only spec.cancelRequested may change',
      },
    ]);
    expect(
      wfrErrors(run({ ...pipeline, [LABEL_SUSPENDED]: 'no' }, made.spec), made).map((e) => e.field),
    ).toEqual([`metadata.labels[${LABEL_SUSPENDED}]`]);
    const withContract = run(pipeline, made.spec, {
      'kruntimes.io/workflow-output.url': '${{ jobs.a.outputs.u }}',
    });
    expect(
      wfrErrors(run(pipeline, made.spec, { 'kruntimes.io/workflow-output.url': 'evil' }), withContract).map(
        (e) => e.field,
      ),
    ).toEqual(['metadata.annotations']);
    // Other annotations and labels of its own are the user's.
    expect(
      wfrErrors(run({ ...pipeline, team: 'a' }, made.spec, { note: 'x' }), run(pipeline, made.spec)),
    ).toEqual([]);
  });

  it('a run a user made stays the user’s to change', () => {
    expect(wfrErrors(run({}, { jobs: { b: {} } }), run())).toEqual([]);
  });
});

describe('Runs: only a cancel request', () => {
  const spec = { runtime: 'bash', script: 'true', env: [{ name: 'A', value: '1' }] };
  it('allows cancelRequested', () => {
    expect(runControllerFieldErrors(run({}, { ...spec, cancelRequested: true }), run({}, spec))).toEqual([]);
  });
  it('refuses env, output files and labels', () => {
    expect(runControllerFieldErrors(run({}, { ...spec, env: [] }), run({}, spec))).toEqual([
      {
        field: 'spec',
        message: 'a Run is written by the kruntimes controller: only spec.cancelRequested may change',
      },
    ]);
    expect(runControllerFieldErrors(run({}, { ...spec, outputFiles: ['x'] }), run({}, spec))).toHaveLength(1);
    expect(
      runControllerFieldErrors(
        run({ 'kruntimes.io/workflowrun-uid': 'other' }, spec),
        run({ 'kruntimes.io/workflowrun-uid': 'u' }, spec),
      ),
    ).toEqual([
      {
        field: 'metadata.labels[kruntimes.io/workflowrun-uid]',
        message: 'set by the kruntimes controller: it may not be changed or removed',
      },
    ]);
  });
});

describe('the creator admission records', () => {
  const at = (creator: string | undefined) =>
    run({}, { jobs: { a: {} } }, creator === undefined ? {} : { [ANNOTATION_CREATOR]: creator });
  it('may be the requester, or left for the mutating webhook to add', () => {
    expect(wfrErrors(at(creatorAnnotation(alice)))).toEqual([]);
    expect(wfrErrors(at(undefined))).toEqual([]);
  });
  it('may not name someone else, nor change later', () => {
    expect(wfrErrors(at(creatorAnnotation({ username: 'admin', groups: ['system:masters'] })))).toEqual([
      {
        field: `metadata.annotations[${ANNOTATION_CREATOR}]`,
        message: 'recorded by admission: it names who creates the run',
      },
    ]);
    expect(wfrErrors(at(undefined), at(creatorAnnotation(alice)))).toEqual([
      {
        field: `metadata.annotations[${ANNOTATION_CREATOR}]`,
        message: 'recorded at creation by admission: it may not change',
      },
    ]);
  });
});
