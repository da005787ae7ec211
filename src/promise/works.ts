// What applying a Work means (docs/design.md §4): each object server-side applied in the Work's
// namespace unless it names one (or is cluster-scoped), what a newer Work no longer holds pruned.
import type {
  AppliedObject,
  Condition,
  PromiseObject,
  ResourceObject,
  Work,
  WorkflowRun,
  WorkStatus,
} from '../api/types.js';
import { API_VERSION } from '../api/crds.js';
import { condition, controllerReference } from '../api/objects.js';
import { LABEL_PIPELINE, LABEL_PROMISE, LABEL_RESOURCE_UID } from '../labels.js';
import { workName } from '../names.js';
import { manifestKey, parseManifests, type Manifest } from './documents.js';
import { pipelineNamespace } from './pipeline.js';
import type { Files } from './files.js';

/** The object as applied: its namespace filled in when its kind is namespaced and it names none. */
export function placed(o: Manifest, namespaced: boolean, workNamespace: string): Manifest {
  if (!namespaced) {
    const { namespace: _drop, ...metadata } = o.metadata;
    void _drop;
    return { ...o, metadata: metadata as Manifest['metadata'] };
  }
  return { ...o, metadata: { ...o.metadata, namespace: o.metadata.namespace || workNamespace } };
}

export function identity(o: Manifest): AppliedObject {
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
    name: o.metadata.name,
  };
}

/** What was applied before and is not applied now: to be deleted. */
export function toPrune(before: AppliedObject[], now: AppliedObject[]): AppliedObject[] {
  const keep = new Set(now.map(manifestKey));
  return before.filter((o) => !keep.has(manifestKey(o)));
}

/** The Work's status after one pass: what is applied, and the first failures by object. */
export function workStatus(
  generation: number | undefined,
  applied: AppliedObject[],
  failures: string[],
  previous: WorkStatus | undefined,
  now: string,
): WorkStatus {
  const ok = failures.length === 0;
  const message = ok ? `${applied.length} object(s) applied` : failures.slice(0, 5).join('; ');
  const status: Condition['status'] = ok ? 'True' : 'False';
  const reason = ok ? 'Applied' : 'ApplyFailed';
  return {
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    applied,
    message,
    conditions: [
      condition(previous?.conditions, { type: 'Applied', status, reason, message }, generation, now),
    ],
  };
}

/** The first and the longest wait before a failing Work is applied again. */
export const WORK_RETRY_MIN_MS = 5_000;
export const WORK_RETRY_MAX_MS = 5 * 60_000;

/**
 * When to apply a failing Work again: RBAC granted later, a namespace made later, a webhook back.
 * Each wait is as long as the Work has failed so far (so the waits double), kept within bounds; the
 * time comes from the Applied condition, so a restarted controller keeps its pace. A Work that
 * applied waits for a change.
 */
export function workRetryAfter(status: WorkStatus | undefined, now: Date): number | undefined {
  const applied = status?.conditions?.find((c) => c.type === 'Applied');
  if (!applied || applied.status !== 'False') return undefined;
  const failingFor = now.getTime() - (Date.parse(applied.lastTransitionTime ?? '') || now.getTime());
  return Math.min(WORK_RETRY_MAX_MS, Math.max(WORK_RETRY_MIN_MS, failingFor));
}

/** The Work of one pipeline: its objects, or why its files are not Kubernetes manifests. */
export function workFor(
  resource: ResourceObject,
  promise: PromiseObject,
  pipeline: string,
  run: WorkflowRun,
  files: Files,
): Work | { error: string } {
  const parsed = parseManifests(files);
  if ('error' in parsed) return { error: `it wrote an invalid document: ${parsed.error}` };
  return {
    apiVersion: API_VERSION,
    kind: 'Work',
    metadata: {
      name: workName(resource.metadata.name ?? '', pipeline),
      namespace: pipelineNamespace(resource, promise),
      labels: {
        [LABEL_PROMISE]: promise.metadata.name ?? '',
        [LABEL_RESOURCE_UID]: resource.metadata.uid ?? '',
        [LABEL_PIPELINE]: pipeline,
      },
      ownerReferences: [controllerReference(resource)],
    },
    spec: { pipeline, workflowRunName: run.metadata.name, objects: parsed.objects },
  };
}
