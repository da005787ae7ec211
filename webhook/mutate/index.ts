// The mutating processor: defaults as a JSON patch. Idempotent, so it is safe under
// reinvocationPolicy: IfNeeded (a second pass finds nothing to add).
import { allow, deny, type AdmissionRequest, type AdmissionReview } from '../review.js';
import { isObject } from '../../src/helpers.js';

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

export function mutateRequest(req: AdmissionRequest): AdmissionReview {
  if (req.operation !== 'CREATE' && req.operation !== 'UPDATE') return allow(req.uid);
  if (!isObject(req.object)) return deny(req.uid, 400, 'BadRequest', 'request.object is missing');
  return allow(req.uid, [], req.kind.kind === 'Workflow' ? workflowDefaults(req.object) : []);
}
