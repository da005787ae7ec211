// Reads of the cluster shared by the krt commands.
import type { Run, WorkflowRun } from '../../src/api/types.js';
import { crd, statusCode } from '../../src/kube/rest.js';
import { LABEL_PARENT_UID, LABEL_WORKFLOWRUN_UID } from '../../src/labels.js';
import { UsageError, type Connection } from '../connect.js';
import { buildTree, type RunNode } from '../tree.js';

export async function getObject<T>(
  c: Connection,
  plural: 'workflows' | 'workflowruns' | 'runs',
  name: string,
): Promise<T | undefined> {
  try {
    return await c.kube.get<T>({ ...crd(plural, c.namespace), name });
  } catch (e) {
    if (statusCode(e) === 404) return undefined;
    throw e;
  }
}

export async function listObjects<T>(
  c: Connection,
  plural: 'workflows' | 'workflowruns' | 'runs',
  labelSelector?: string,
): Promise<T[]> {
  const list = await c.kube.list<T>(crd(plural, c.namespace), labelSelector ? { labelSelector } : {});
  return list.items ?? [];
}

const KIND_NAMES = { workflows: 'workflow', workflowruns: 'workflowrun', runs: 'run' } as const;

export async function mustGet<T>(
  c: Connection,
  plural: 'workflows' | 'workflowruns' | 'runs',
  name: string,
): Promise<T> {
  const found = await getObject<T>(c, plural, name);
  if (!found) throw new UsageError(`${KIND_NAMES[plural]} "${name}" not found in namespace "${c.namespace}"`);
  return found;
}

/**
 * The nested tree of one WorkflowRun: the namespace's WorkflowRuns (to find the child runs), then
 * only the Runs of the runs in the tree, by their owner-UID label.
 */
export async function loadTree(c: Connection, name: string): Promise<RunNode> {
  const all = await listObjects<WorkflowRun>(c, 'workflowruns');
  const root = all.find((w) => w.metadata.name === name);
  if (!root) throw new UsageError(`workflowrun "${name}" not found in namespace "${c.namespace}"`);
  const uids = treeUids(root, all);
  const runs = await listObjects<Run>(c, 'runs', `${LABEL_WORKFLOWRUN_UID} in (${uids.join(',')})`);
  return buildTree(root, all, runs);
}

/** The tree of a WorkflowRun from what a cache holds: its child runs and their Runs only. */
export function treeOf(root: WorkflowRun, all: WorkflowRun[], runs: Run[]): RunNode {
  const uids = new Set(treeUids(root, all));
  return buildTree(
    root,
    all,
    runs.filter((r) => uids.has(r.metadata.labels?.[LABEL_WORKFLOWRUN_UID] ?? '')),
  );
}

/** The UIDs of a WorkflowRun and of its child runs, down the tree. */
function treeUids(root: WorkflowRun, all: WorkflowRun[]): string[] {
  const uids = [root.metadata.uid ?? ''];
  for (let i = 0; i < uids.length; i++)
    for (const w of all)
      if (w.metadata.labels?.[LABEL_PARENT_UID] === uids[i]) uids.push(w.metadata.uid ?? '');
  return uids;
}
