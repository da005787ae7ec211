// A WorkflowRun deleted before it ended: what it started goes at once, not when the garbage
// collector gets to it. Under load the collector's graph can lag a minute behind the API server,
// and until it catches up the tree's steps go on running. So the controller deletes the tree of a
// run that is gone (or being deleted) itself, as soon as it sees the deletion or an object that
// names a gone run as its controller; the collector stays the backstop for what ended already.
import { controlledBy } from '../api/objects.js';
import { runEnded, workflowRunEnded } from '../api/phases.js';
import type { Run, WorkflowRun } from '../api/types.js';
import { snapshotName } from '../names.js';

/** A gone run, as the teardown controller's key: `namespace/name/uid`. */
export interface GoneRun {
  namespace: string;
  name: string;
  uid: string;
}

export const teardownKey = (r: GoneRun): string => `${r.namespace}/${r.name}/${r.uid}`;

export function parseTeardownKey(key: string): GoneRun | undefined {
  const [namespace, name, uid, ...rest] = key.split('/');
  if (rest.length > 0 || !namespace || !name || !uid) return undefined;
  return { namespace, name, uid };
}

type Meta = {
  metadata: {
    namespace?: string;
    name?: string;
    uid?: string;
    deletionTimestamp?: string | Date;
    ownerReferences?: {
      apiVersion?: string;
      kind?: string;
      name?: string;
      uid?: string;
      controller?: boolean;
    }[];
  };
};

/** Finds the WorkflowRun the cache holds under a name (undefined when none). */
export type Lookup = (namespace: string, name: string) => Meta | undefined;

/** Whether the run of this uid is the one alive under its name: there, same uid, not deleting. */
export function alive(current: Meta | undefined, uid: string): boolean {
  return current !== undefined && current.metadata.uid === uid && !current.metadata.deletionTimestamp;
}

/** The run `o` was made for, when it is not alive any more (deleted, deleting, or replaced). */
export function goneOwner(o: Meta, lookup: Lookup): GoneRun | undefined {
  const ref = o.metadata.ownerReferences?.find((r) => r.controller === true);
  if (ref?.kind !== 'WorkflowRun' || !ref.apiVersion?.startsWith('kruntimes.io/') || !ref.name || !ref.uid)
    return undefined;
  const namespace = o.metadata.namespace ?? '';
  return alive(lookup(namespace, ref.name), ref.uid)
    ? undefined
    : { namespace, name: ref.name, uid: ref.uid };
}

/**
 * The teardowns a WorkflowRun's event asks for: its own when it is not alive (the event of its
 * deletion, or its deletionTimestamp), and its parent's when the parent is not.
 */
export function teardownsFor(run: Meta, lookup: Lookup): GoneRun[] {
  const { namespace = '', name = '', uid = '' } = run.metadata;
  const own = uid && !alive(lookup(namespace, name), uid) ? [{ namespace, name, uid }] : [];
  const parent = goneOwner(run, lookup);
  return parent ? [...own, parent] : own;
}

export interface Doomed {
  resource: 'runs' | 'workflowruns' | 'controllerrevisions';
  name: string;
  /** The object as seen, for a delete precondition (a snapshot's name holds its run's uid already). */
  uid?: string;
}

/**
 * What deleting a gone run's tree deletes: its Runs, its child runs and its snapshot. Nothing when
 * all of it had ended: nothing runs, and the garbage collector removes it in its own time (a
 * finished run's retention deletes thousands, which need no second write each).
 */
export function teardown(gone: GoneRun, runs: Run[], children: WorkflowRun[]): Doomed[] {
  const mine = runs.filter((r) => controlledBy(r, gone.uid));
  const kids = children.filter((r) => controlledBy(r, gone.uid));
  const running =
    mine.some((r) => !runEnded(r.status?.phase)) || kids.some((r) => !workflowRunEnded(r.status?.phase));
  if (!running) return [];
  return [
    ...mine.map((r) => ({ resource: 'runs' as const, name: r.metadata.name ?? '', uid: r.metadata.uid })),
    ...kids.map((r) => ({
      resource: 'workflowruns' as const,
      name: r.metadata.name ?? '',
      uid: r.metadata.uid,
    })),
    { resource: 'controllerrevisions', name: snapshotName(gone.name, gone.uid) },
  ];
}
