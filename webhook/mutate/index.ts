// The mutating processor: defaults as a JSON patch. Idempotent, so it is safe under
// reinvocationPolicy: IfNeeded (a second pass finds nothing to add).
import { allow, deny, type AdmissionRequest, type AdmissionReview } from '../review.js';
import { isObject } from '../../src/helpers.js';
import { ANNOTATION_CREATOR, creatorAnnotation } from '../../src/validate/creator.js';
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
 * A WorkflowRun someone other than the controller creates records its creator, whatever the object
 * said (src/validate/creator.ts); the controller's own (child runs) carry their root's.
 */
export function creatorRecord(req: AdmissionRequest, creators: RunCreators): PatchOp[] {
  if (req.operation !== 'CREATE' || req.kind.kind !== 'WorkflowRun' || mayCreateRun(req.userInfo, creators))
    return [];
  const value = creatorAnnotation(req.userInfo);
  const metadata = isObject(req.object) && isObject(req.object.metadata) ? req.object.metadata : {};
  if (isObject(metadata.annotations) && metadata.annotations[ANNOTATION_CREATOR] === value) return [];
  if (!isObject(metadata.annotations))
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
