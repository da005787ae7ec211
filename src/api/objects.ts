// Conventions every Kubernetes object follows, used by every layer that makes or reports on one:
// the controller owner reference, and a condition that moves its transition time only on a change.
import { deepEqual } from '../helpers.js';
import type { Condition } from './types.js';

/** The controller owner reference to `owner`: what the garbage collector and `owns` watches follow. */
export function controllerReference(owner: {
  apiVersion: string;
  kind: string;
  metadata: { name?: string; uid?: string };
}) {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/**
 * Whether `o` names `uid` as its controller owner. With the labels only the controller may set
 * (src/validate/controller-fields.ts), this is how the controller knows an object is one it made.
 */
export function controlledBy(
  o: { metadata: { ownerReferences?: { uid?: string; controller?: boolean }[] } },
  uid: string,
): boolean {
  return uid !== '' && (o.metadata.ownerReferences ?? []).some((r) => r.controller === true && r.uid === uid);
}

type Owned = {
  metadata: {
    labels?: Record<string, string>;
    deletionTimestamp?: string | Date;
    ownerReferences?: { uid?: string; controller?: boolean; kind?: string; name?: string }[];
  };
};

/** Made by the controller for the owner of this uid: its controller reference and its uid label. */
export function madeFor(o: Owned, uid: string, label: string): boolean {
  return controlledBy(o, uid) && o.metadata.labels?.[label] === uid;
}

/**
 * Who holds an object found under a deterministic name: this owner (`ours`); a previous owner of
 * the same kind and name, deleted or being deleted (`previous`: the garbage collector will remove
 * it, which is waited for; a forged reference to an owner that does not exist goes the same way);
 * or someone else (`other`).
 */
export function nameHolder(
  o: Owned,
  owner: { kind: string; name: string; uid: string },
  label: string,
): 'ours' | 'previous' | 'other' {
  if (madeFor(o, owner.uid, label)) return 'ours';
  const ref = o.metadata.ownerReferences?.find((r) => r.controller === true);
  if (o.metadata.deletionTimestamp) return 'previous';
  return ref?.kind === owner.kind && ref.name === owner.name && ref.uid !== owner.uid ? 'previous' : 'other';
}

/**
 * A condition as it stands now, in the Kubernetes convention (meta.SetStatusCondition):
 * lastTransitionTime moves only when the status does, so a status write that changes nothing else
 * is recognised as no change.
 */
export function condition(
  previous: Condition[] | undefined,
  c: { type: string; status: Condition['status']; reason: string; message: string },
  generation: number | undefined,
  now: string,
): Condition {
  const old = previous?.find((x) => x.type === c.type);
  return {
    ...c,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    lastTransitionTime: old && old.status === c.status ? (old.lastTransitionTime ?? now) : now,
  };
}

/**
 * Whether two statuses say the same, whatever the times their conditions moved: a status write
 * that would change only those is no change (and is not made).
 */
export function sameStatus(a: object | undefined, b: object | undefined): boolean {
  const withoutTimes = (s: object | undefined) =>
    JSON.parse(
      JSON.stringify(s ?? {}, (k, v: unknown) => (k === 'lastTransitionTime' ? undefined : v)),
    ) as unknown;
  return deepEqual(withoutTimes(a), withoutTimes(b));
}

/**
 * Metadata without managedFields, the field-manager bookkeeping of server-side apply, which no
 * component reads. Built anew rather than with `delete`, which would leave V8 a slow dictionary
 * object, several times larger, for every object a cache holds.
 */
export function metadataWithoutManagedFields<M extends object>(metadata: M): M {
  return Object.fromEntries(Object.entries(metadata).filter(([k]) => k !== 'managedFields')) as M;
}

/**
 * A deep copy of a JSON object as JSON.parse lays it out: without its undefined fields (a status
 * compared with the stored one), and with each object exactly the fields it has, where V8 keeps
 * room for more in one built by spreading or Object.fromEntries (a cached object kept for long).
 */
export function compactCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** Where a cache keeps one instance of each repeated small value (src/kube/intern.ts). */
export interface SharedValues {
  share<T extends object>(value: T): T;
}
