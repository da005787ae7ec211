// The mutating processor: defaults as a JSON patch. Idempotent, so it is safe under
// reinvocationPolicy: IfNeeded (a second pass finds nothing to add).
import { allow, deny, type AdmissionRequest, type AdmissionReview } from '../review.js';
import { isObject } from '../../src/helpers.js';
import { ANNOTATION_CREATOR, creatorAnnotation } from '../../src/validate/creator.js';
import { madeByController } from '../../src/validate/controller-fields.js';
import { DEFAULT_RUN_CREATORS, mayCreateRun, type RunCreators } from '../../src/validate/run.js';

type PatchOp = { op: 'add'; path: string; value: unknown };

const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** The defaults docs/design.md §2 fixes: an input without a type is a string. */
export function workflowDefaults(obj: unknown): PatchOp[] {
  const ops: PatchOp[] = [];
  if (!isObject(obj) || !isObject(obj.spec) || !isObject(obj.spec.inputs)) return ops;
  for (const [name, input] of Object.entries(obj.spec.inputs)) {
    if (isObject(input) && input.type === undefined)
      ops.push({ op: 'add', path: `/spec/inputs/${escape(name)}/type`, value: 'string' });
  }
  return ops;
}

/**
 * A WorkflowRun records its creator, whatever the object said (src/validate/creator.ts). Only the
 * controller and admins may hand one over as made: the controller's children carry their root's
 * creator, and its runs for a Promise (with the labels only it sets) carry none.
 */
export function creatorRecord(req: AdmissionRequest, creators: RunCreators): PatchOp[] {
  if (req.operation !== 'CREATE' || req.kind.kind !== 'WorkflowRun') return [];
  const value = creatorAnnotation(req.userInfo);
  const metadata = isObject(req.object) && isObject(req.object.metadata) ? req.object.metadata : {};
  const annotations = isObject(metadata.annotations) ? metadata.annotations : undefined;
  const labels = isObject(metadata.labels) ? metadata.labels : {};
  if (mayCreateRun(req.userInfo, creators)) {
    if (madeByController(labels) || annotations?.[ANNOTATION_CREATOR] !== undefined) return [];
  }
  if (annotations?.[ANNOTATION_CREATOR] === value) return [];
  if (!annotations)
    return [{ op: 'add', path: '/metadata/annotations', value: { [ANNOTATION_CREATOR]: value } }];
  return [{ op: 'add', path: `/metadata/annotations/${escape(ANNOTATION_CREATOR)}`, value }];
}

export function mutateRequest(
  req: AdmissionRequest,
  creators: RunCreators = DEFAULT_RUN_CREATORS,
): AdmissionReview {
  if (req.operation !== 'CREATE' && req.operation !== 'UPDATE') return allow(req.uid);
  if (!isObject(req.object)) return deny(req.uid, 400, 'BadRequest', 'request.object is missing');
  if (req.kind.kind === 'WorkflowRun') return allow(req.uid, [], creatorRecord(req, creators));
  return allow(req.uid, [], req.kind.kind === 'Workflow' ? workflowDefaults(req.object) : []);
}
