// The specs of WorkflowRun snapshots (ControllerRevisions). The controller does not watch them: a
// snapshot's spec never changes and only a run still running reads its own, so the spec is kept in
// a bounded memo, filled as the controller writes each one, and read from the API server when a
// running run's is not there (after a restart), and forgotten when the run settles. A cluster of
// finished runs costs no memory for them.
import type { WorkflowRun, WorkflowRunSpec } from '../src/api/types.js';
import { statusCode, type KubeClient } from '../src/kube/rest.js';
import { snapshotName } from '../src/names.js';
import type { Snapshot } from '../src/plan/build-objects.js';

export type { Snapshot };

/** Where a namespace's snapshots live: ControllerRevisions. */
export const snapshotsIn = (namespace: string) =>
  ({ group: 'apps', version: 'v1', plural: 'controllerrevisions', namespace }) as const;

/** Specs of this many runs are kept: well above the runs a controller has running at once. */
export const SNAPSHOT_MEMO_SIZE = 4096;

export class SnapshotSpecs {
  /** By the UID of the run each is the snapshot of, the least recently used first. */
  private readonly memo = new Map<string, WorkflowRunSpec>();

  constructor(
    private readonly kube: KubeClient,
    private readonly size = SNAPSHOT_MEMO_SIZE,
  ) {}

  /** The spec of a snapshot this controller just wrote for the run with UID `runUid`. */
  remember(runUid: string, spec: WorkflowRunSpec): void {
    if (runUid) this.keep(runUid, spec);
  }

  /** The spec of the run's snapshot if the memo has it (one this controller wrote or read). */
  known(runUid: string): WorkflowRunSpec | undefined {
    return this.memo.get(runUid);
  }

  /** The run with UID `runUid` will not read its snapshot again (it settled). */
  forget(runUid: string): void {
    this.memo.delete(runUid);
  }

  /** The spec in the run's own snapshot: the memo's, else the API server's; none while there is none. */
  async spec(run: WorkflowRun): Promise<WorkflowRunSpec | undefined> {
    const uid = run.metadata.uid ?? '';
    const known = this.memo.get(uid);
    if (known) {
      this.keep(uid, known);
      return known;
    }
    try {
      const live = await this.kube.get<Snapshot>({
        ...snapshotsIn(run.metadata.namespace ?? ''),
        name: snapshotName(run.metadata.name ?? '', uid),
      });
      // An object of that name that is not this run's (left by a run of the same name): not its snapshot.
      if (!live.metadata.ownerReferences?.some((o) => o.uid === uid) || !live.data?.spec) return undefined;
      this.keep(uid, live.data.spec);
      return live.data.spec;
    } catch (e) {
      if (statusCode(e) === 404) return undefined;
      throw e;
    }
  }

  private keep(uid: string, spec: WorkflowRunSpec): void {
    this.memo.delete(uid);
    this.memo.set(uid, spec);
    if (this.memo.size > this.size) this.memo.delete(this.memo.keys().next().value as string);
  }
}
