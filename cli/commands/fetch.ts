// Reads of the cluster shared by the krt commands.
import type { Run, WorkflowRun } from '../../src/api/types.js';
import { crd, statusCode } from '../../src/kube/client.js';
import { UsageError, type Connection } from '../connect.js';
import { buildTree, type RunNode } from '../tree.js';

export async function getObject<T>(
  c: Connection,
  plural: 'workflows' | 'workflowruns' | 'runs',
  name: string,
): Promise<T | undefined> {
  try {
    return (await c.clients.custom.getNamespacedCustomObject({ ...crd(plural, c.namespace), name })) as T;
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
  const list = (await c.clients.custom.listNamespacedCustomObject({
    ...crd(plural, c.namespace),
    ...(labelSelector ? { labelSelector } : {}),
  })) as { items: T[] };
  return list.items;
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

/** The nested tree of one WorkflowRun from two list calls. */
export async function loadTree(c: Connection, name: string): Promise<RunNode> {
  const [all, runs] = await Promise.all([
    listObjects<WorkflowRun>(c, 'workflowruns'),
    listObjects<Run>(c, 'runs'),
  ]);
  const root = all.find((w) => w.metadata.name === name);
  if (!root) throw new UsageError(`workflowrun "${name}" not found in namespace "${c.namespace}"`);
  return buildTree(root, all, runs);
}
