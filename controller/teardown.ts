// The tree of a WorkflowRun deleted before it ended is deleted by the controller itself, so its
// steps stop when the run goes, not when the garbage collector catches up (src/plan/teardown.ts
// says why). Keys are `namespace/name/uid` of a gone run: queued by its deletion, by its
// deletionTimestamp, and by any event of an object that names it as its controller.
import { runEnded } from '../src/api/phases.js';
import type { Run, WorkflowRun } from '../src/api/types.js';
import { crd, statusCode, statusMessage, type KubeClient } from '../src/kube/rest.js';
import { defineController, type ControllerSpec } from '../src/kube/controller/controller.js';
import type { KubeObject } from '../src/kube/informer.js';
import { LABEL_PARENT_UID, LABEL_WORKFLOWRUN_UID } from '../src/labels.js';
import {
  alive,
  goneOwner,
  parseTeardownKey,
  teardown,
  teardownKey,
  teardownsFor,
  type Doomed,
  type Lookup,
} from '../src/plan/teardown.js';
import { log } from '../src/telemetry/log.js';
import type { Caches, ReconcileDeps } from './workflowrun.js';
import { snapshotsIn } from './snapshots.js';

type Deps = Pick<ReconcileDeps, 'caches' | 'kube'>;

/** The teardown controller: WorkflowRuns' deletions and the Runs and child runs they leave. */
export function teardownController(deps: Deps): ControllerSpec<WorkflowRun> {
  const { caches } = deps;
  const lookup: Lookup = (namespace, name) => caches.workflowRuns.get(namespace, name);
  return defineController<WorkflowRun>({
    name: 'teardown',
    for: caches.workflowRuns,
    key: (run) => teardownsFor(run, lookup).map(teardownKey),
    watches: [
      {
        source: caches.runs,
        // Only a Run still running matters; the heartbeats of one whose run is gone bring it here.
        map: (r: KubeObject) => {
          const run = r as Run;
          if (runEnded(run.status?.phase)) return [];
          const gone = goneOwner(run, lookup);
          return gone ? [teardownKey(gone)] : [];
        },
      },
    ],
    reconcile: (key) => reconcileTeardown(key, deps),
    workers: 2,
  });
}

export async function reconcileTeardown(key: string, deps: Deps): Promise<undefined> {
  const gone = parseTeardownKey(key);
  if (!gone) return undefined;
  const { caches } = deps;
  const doomed = teardown(
    gone,
    caches.runs.withLabel(LABEL_WORKFLOWRUN_UID, gone.uid),
    caches.workflowRuns.withLabel(LABEL_PARENT_UID, gone.uid),
  );
  if (doomed.length === 0) return undefined;
  if (!(await goneForSure(gone.namespace, gone.name, gone.uid, caches, deps.kube))) return undefined;
  for (const d of doomed) await remove(gone.namespace, d, deps);
  log.info(
    {
      run: `${gone.namespace}/${gone.name}`,
      uid: gone.uid,
      deleted: doomed.map((d) => `${d.resource}/${d.name}`),
    },
    'the run went before it ended; deleted what it started',
  );
  return undefined;
}

/** The cache may lag: a run it does not show alive is asked for before its tree is deleted. */
async function goneForSure(
  namespace: string,
  name: string,
  uid: string,
  caches: Caches,
  kube: KubeClient,
): Promise<boolean> {
  const cached = caches.workflowRuns.get(namespace, name);
  if (alive(cached, uid)) return false;
  if (cached?.metadata.uid === uid) return true; // being deleted
  try {
    const live = await kube.get<WorkflowRun>({ ...crd('workflowruns', namespace), name });
    return !alive(live, uid);
  } catch (e) {
    if (statusCode(e) === 404) return true;
    throw e;
  }
}

async function remove(namespace: string, d: Doomed, deps: Deps): Promise<void> {
  const where =
    d.resource === 'controllerrevisions'
      ? { ...snapshotsIn(namespace), name: d.name }
      : { ...crd(d.resource, namespace), name: d.name };
  try {
    // A Run or child is deleted only as the object seen (its uid): a run made again under the same
    // name may already hold the name.
    await deps.kube.delete(where, { propagationPolicy: 'Background', uid: d.uid });
  } catch (e) {
    // Gone already, or the name holds another object now.
    if (statusCode(e) === 404 || statusCode(e) === 409) return;
    throw new Error(`deleting ${d.resource} ${namespace}/${d.name}: ${statusMessage(e)}`, { cause: e });
  }
}
