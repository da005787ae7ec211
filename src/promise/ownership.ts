// Whose a resource API's CRD is. A Promise installs, changes and deletes only a CRD made for it (it
// is the CRD's controller owner); any other CRD of the same name is another's API, which the
// controller leaves alone (Available=False, reason APIConflict) and admission warns about.
import type { PromiseObject } from '../api/types.js';

export interface CrdMeta {
  metadata: {
    uid?: string;
    ownerReferences?: { kind: string; name: string; uid: string; controller?: boolean }[];
    managedFields?: { manager?: string; subresource?: string }[];
  };
}

export function crdOwnedBy(crd: CrdMeta, promise: PromiseObject): boolean {
  const uid = promise.metadata.uid;
  return uid !== undefined && (crd.metadata.ownerReferences ?? []).some((o) => o.controller && o.uid === uid);
}

/** Who holds a CRD that is not the Promise's: its controller owner, else the managers of its fields. */
export function crdConflict(crdName: string, crd: CrdMeta): string {
  const refs = crd.metadata.ownerReferences ?? [];
  const owner = refs.find((o) => o.controller) ?? refs[0];
  // Who wrote the CRD, not the API server that keeps its status.
  const written = (crd.metadata.managedFields ?? []).filter((f) => f.subresource !== 'status');
  const managers = [...new Set(written.map((f) => f.manager ?? '').filter(Boolean))];
  const who = owner
    ? `${owner.kind} "${owner.name}" (uid ${owner.uid})`
    : managers.length > 0
      ? `no Promise (its fields are managed by ${managers.join(', ')})`
      : 'no Promise';
  return `the API ${crdName} exists and belongs to ${who}: it is left as it is and nothing is applied`;
}

/**
 * What a cache of CRDs keeps of each (webhook and controller alike): who owns it and whether it is
 * served, not its schemas, which are most of a CRD's bytes. Every CRD is seen, so another's API is
 * found in the cache rather than by a refused create.
 */
export function crdSummary(o: {
  metadata: CrdMeta['metadata'] & {
    name?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    deletionTimestamp?: unknown;
  };
  status?: { conditions?: { type: string; status: string; message?: string }[] };
}) {
  const m = o.metadata;
  return {
    metadata: {
      name: m.name,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      labels: m.labels,
      annotations: m.annotations,
      ownerReferences: m.ownerReferences,
      deletionTimestamp: m.deletionTimestamp,
      managedFields: m.managedFields?.map((f) => ({ manager: f.manager, subresource: f.subresource })),
    },
    status: {
      conditions: o.status?.conditions?.map(({ type, status, message }) => ({ type, status, message })),
    },
  };
}
