// The specs of WorkflowRun snapshots (ControllerRevisions). The controller's cache keeps only a
// snapshot's metadata: that it exists and whose it is. Its spec, which never changes, is read when a
// run still running needs it and kept in a bounded memo, filled as the controller writes each one,
// so a cluster of finished runs costs the controller no memory for their specs.
import type { ObjectMeta, WorkflowRunSpec } from '../src/api/types.js';
import { statusCode, type KubeClient } from '../src/kube/rest.js';

export interface Snapshot {
  apiVersion: 'apps/v1';
  kind: 'ControllerRevision';
  metadata: ObjectMeta;
  data?: { spec?: WorkflowRunSpec };
  revision: number;
}

/** What the cache keeps of a snapshot: no data. */
export function snapshotAsCached(s: Snapshot): Snapshot {
  const { name, namespace, uid, resourceVersion, labels, ownerReferences, deletionTimestamp } = s.metadata;
  return {
    apiVersion: s.apiVersion,
    kind: s.kind,
    metadata: { name, namespace, uid, resourceVersion, labels, ownerReferences, deletionTimestamp },
    revision: s.revision,
  };
}

/** Specs of this many snapshots are kept: well above the runs a controller has running at once. */
export const SNAPSHOT_MEMO_SIZE = 4096;

export class SnapshotSpecs {
  /** By snapshot UID, the least recently used first. */
  private readonly memo = new Map<string, WorkflowRunSpec>();

  constructor(
    private readonly kube: KubeClient,
    private readonly size = SNAPSHOT_MEMO_SIZE,
  ) {}

  /** A snapshot this controller just wrote (the API server's answer: its UID and spec). */
  remember(written: Snapshot): void {
    const uid = written.metadata.uid;
    if (uid && written.data?.spec) this.keep(uid, written.data.spec);
  }

  /** The spec of a cached snapshot: its own data when the cache kept it, the memo, else the API server's. */
  async spec(s: Snapshot): Promise<WorkflowRunSpec | undefined> {
    if (s.data?.spec) return s.data.spec;
    const uid = s.metadata.uid ?? '';
    const known = this.memo.get(uid);
    if (known) {
      this.keep(uid, known);
      return known;
    }
    try {
      const live = await this.kube.get<Snapshot>({
        group: 'apps',
        version: 'v1',
        plural: 'controllerrevisions',
        namespace: s.metadata.namespace ?? '',
        name: s.metadata.name ?? '',
      });
      // Another snapshot of the same name (deleted and made again): not the one the cache shows.
      if (live.metadata.uid !== uid || !live.data?.spec) return undefined;
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
