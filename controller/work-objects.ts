// One object of a Work, applied or deleted as the Work's Promise (its service account, whose rights
// the Promise's author grants) and never the controller's own identity. An object is the Work's
// when it carries the Work's uid label: one that exists without it was made by someone else and is
// neither taken over nor deleted.
import type { AppliedObject, Work } from '../src/api/types.js';
import { Discovery, type ResourceInfo } from '../src/kube/discovery.js';
import { statusCode, type KubeClient, type ObjectCoordinates } from '../src/kube/rest.js';
import { LABEL_WORK_UID } from '../src/labels.js';
import type { Manifest } from '../src/promise/documents.js';

/** Why an object was left alone: it exists and is not this Work's. */
export class NotTheWorks extends Error {}

type Labelled = { metadata?: { labels?: Record<string, string> } };

/** The object as it is now, or undefined when there is none. */
async function current(as: KubeClient, at: ObjectCoordinates): Promise<Labelled | undefined> {
  try {
    return await as.get<Labelled>(at);
  } catch (e) {
    if (statusCode(e) === 404) return undefined;
    throw e;
  }
}

const ours = (o: Labelled, work: Work) => o.metadata?.labels?.[LABEL_WORK_UID] === work.metadata.uid;

/** Applies the object, labelled as the Work's; refuses one that exists and is someone else's. */
export async function applyObject(
  as: KubeClient,
  work: Work,
  info: ResourceInfo,
  obj: Manifest,
): Promise<void> {
  const at = Discovery.coordinates(info, obj.metadata.namespace, obj.metadata.name);
  const found = await current(as, at);
  if (found && !ours(found, work))
    throw new NotTheWorks('it exists and was not created by this Work: it is not taken over');
  const labels = { ...(obj.metadata.labels ?? {}), [LABEL_WORK_UID]: work.metadata.uid ?? '' };
  await as.apply(at, { ...obj, metadata: { ...obj.metadata, labels } });
}

/**
 * Deletes the object if it is the Work's. Returns false when nothing is left to wait for: gone, or
 * not the Work's (someone else made one of that name since).
 */
export async function deleteObject(
  as: KubeClient,
  work: Work,
  info: ResourceInfo,
  o: AppliedObject,
): Promise<boolean> {
  const at = Discovery.coordinates(info, o.namespace, o.name ?? '');
  const found = await current(as, at);
  if (!found || !ours(found, work)) return false;
  try {
    await as.delete(at, { propagationPolicy: 'Background' });
  } catch (e) {
    if (statusCode(e) !== 404) throw e;
    return false;
  }
  return true;
}
