import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import type { Pipeline, PromiseObject, WorkflowRun } from '../api/types.js';
import { FINALIZER_DELETE_WORKFLOW, LABEL_RESOURCE_UID, LABEL_WORKFLOW_TYPE } from '../labels.js';
import type { Files } from '../promise/files.js';
import {
  hasPromiseWorkflows,
  planPromiseWorkflow as planner,
  promiseWorkflowStatus,
  type PromiseObserved,
} from './promise-workflow.js';
import type { ResourceAction } from './resource.js';
import { frozen } from './frozen.testing.js';

/** The planner, given its input frozen: one that changed what it was given would throw. */
const planPromiseWorkflow = (o: PromiseObserved) => planner(frozen(o));

const pipeline = (name: string, run = 'true'): Pipeline => ({
  apiVersion: 'kruntimes.io/v1alpha1',
  kind: 'Pipeline',
  metadata: { name },
  spec: { jobs: { main: { 'runs-on': 'bash', steps: [{ name: 'go', run }] } } },
});

const T0 = new Date('2026-01-01T00:00:00Z');

function promise(
  over: Partial<PromiseObject['metadata']> = {},
  status?: PromiseObject['status'],
): PromiseObject {
  return {
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'Promise',
    metadata: {
      name: 'db',
      uid: 'p-uid',
      generation: 3,
      finalizers: ['kruntimes.io/promise-resources'],
      ...over,
    },
    spec: {
      api: { kind: 'CustomResourceDefinition' },
      workflowNamespace: 'platform',
      workflows: {
        promise: { configure: [pipeline('install')], delete: [pipeline('uninstall')] },
        resource: { configure: [pipeline('per-resource')] },
      },
    },
    ...(status ? { status } : {}),
  };
}

function observe(o: Partial<PromiseObserved> = {}): PromiseObserved {
  return { promise: promise(), runs: [], works: [], filesOf: () => ({}), now: T0, ...o };
}

const creates = (actions: ResourceAction[]) =>
  actions.filter((a): a is Extract<ResourceAction, { type: 'createRun' }> => a.type === 'createRun');

const ran = (run: WorkflowRun, phase: string): WorkflowRun => ({
  ...run,
  metadata: { ...run.metadata, creationTimestamp: T0 as never },
  status: { phase: phase as never },
});

describe("the Promise's own workflows", () => {
  it('are there when spec.workflows.promise has a pipeline', () => {
    expect(hasPromiseWorkflows(promise())).toBe(true);
    const none = promise();
    none.spec.workflows = { resource: { configure: [pipeline('a')] } };
    expect(hasPromiseWorkflows(none)).toBe(false);
  });

  it('with a delete workflow and no configure pipelines, has nothing to wait for before it serves', () => {
    const p = promise();
    p.spec.workflows = {
      promise: { delete: [pipeline('uninstall')] },
      resource: { configure: [pipeline('a')] },
    };
    const plan = planPromiseWorkflow(observe({ promise: p }));
    expect(creates(plan.actions)).toEqual([]);
    expect(promiseWorkflowStatus(plan.status, p).succeeded).toBe(true);
    expect(promiseWorkflowStatus(plan.status, promise()).succeeded).toBe(false);
  });

  it('configure runs the Promise pipelines, not the resource ones, in the workflowNamespace, on the Promise', () => {
    const plan = planPromiseWorkflow(observe());
    const [c, ...rest] = creates(plan.actions);
    expect(rest).toHaveLength(0);
    expect(c?.pipeline).toBe('install');
    const run = c?.run as WorkflowRun;
    expect(run.metadata.namespace).toBe('platform');
    expect(run.metadata.labels?.[LABEL_RESOURCE_UID]).toBe('p-uid');
    expect(run.metadata.labels?.[LABEL_WORKFLOW_TYPE]).toBe('configure');
    expect(run.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Promise', name: 'db', uid: 'p-uid' });
    const step = run.spec.jobs.main?.steps?.[0];
    expect(step?.env).toMatchObject({ KRATIX_WORKFLOW_TYPE: 'promise', KRATIX_PROMISE_NAME: 'db' });
    const object = parse(run.spec.inputFiles?.['object.yaml'] ?? '') as PromiseObject;
    expect(object).toMatchObject({
      kind: 'Promise',
      metadata: { name: 'db' },
      status: { observedGeneration: 3 },
    });
    expect(plan.actions).toContainEqual({
      type: 'setFinalizers',
      finalizers: ['kruntimes.io/promise-resources', FINALIZER_DELETE_WORKFLOW],
    });
    const s = promiseWorkflowStatus(plan.status);
    expect(s.succeeded).toBe(false);
    expect(s.conditions.map((x) => `${x.type}=${x.status}`)).toEqual([
      'ConfigureWorkflowCompleted=False',
      'WorksSucceeded=True',
    ]);
    expect(s.kruntimes?.workflows?.pipelines?.[0]).toMatchObject({ name: 'install', phase: 'Running' });
  });

  it("a succeeded run's documents become a Work of the Promise in the workflowNamespace; then it has succeeded", () => {
    const first = planPromiseWorkflow(observe());
    const run = ran(creates(first.actions)[0]?.run as WorkflowRun, 'Succeeded');
    const p = promise({}, { kruntimes: first.status.kruntimes, conditions: first.status.conditions });
    const files: Files = { 'ns.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata: {name: db-system}\n' };
    const plan = planPromiseWorkflow(observe({ promise: p, runs: [run], filesOf: () => files }));
    const work = plan.actions.find((a) => a.type === 'writeWork');
    expect(work).toMatchObject({
      work: {
        metadata: { namespace: 'platform', ownerReferences: [{ kind: 'Promise', name: 'db' }] },
        spec: { pipeline: 'install', objects: [{ kind: 'Namespace' }] },
      },
    });
    expect(promiseWorkflowStatus(plan.status).succeeded).toBe(true);
  });

  it('delete runs the Promise delete pipeline once the Promise is deleted', () => {
    const deleted = promise({
      deletionTimestamp: T0 as never,
      finalizers: ['kruntimes.io/promise-resources', FINALIZER_DELETE_WORKFLOW],
    });
    const plan = planPromiseWorkflow(observe({ promise: deleted }));
    const [c] = creates(plan.actions);
    expect(c?.pipeline).toBe('uninstall');
    expect(c?.run.metadata.namespace).toBe('platform');
    expect(c?.run.metadata.labels?.[LABEL_WORKFLOW_TYPE]).toBe('delete');
    expect(c?.run.spec.jobs.main?.steps?.[0]?.env?.KRATIX_WORKFLOW_ACTION).toBe('delete');
  });
});
