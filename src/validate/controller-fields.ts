// What only the controller may write (docs/security.md, "Who may do what"): the labels that make a
// WorkflowRun a resource's pipeline run or a call job's child, the spec and frozen contract of the
// runs it made, a Run's spec, and Works. The controller trusts these objects because nobody else can
// make or change them: a tenant who copied a pipeline run's labels onto a run of its own would
// otherwise have the controller apply that run's output with the controller's rights.
import type { FieldError } from '../fielderror.js';
import { fieldError } from '../fielderror.js';
import { isObject } from '../helpers.js';
import {
  LABEL_CALL_JOB,
  LABEL_DELETE_ATTEMPT,
  LABEL_JOB,
  LABEL_PARENT_UID,
  LABEL_PIPELINE,
  LABEL_PIPELINE_ATTEMPT,
  LABEL_PROMISE,
  LABEL_RESOURCE_UID,
  LABEL_STEP,
  LABEL_SUSPENDED,
  LABEL_WORKFLOW_HASH,
  LABEL_WORKFLOW_ROUND,
  LABEL_WORKFLOW_TYPE,
  LABEL_WORKFLOWRUN_UID,
} from '../labels.js';
import { OUTPUT_ANNOTATION_PREFIX } from '../limits.js';
import type { WorkflowRun } from '../api/types.js';
import { creatorAnnotationErrors } from './creator.js';

/** Labels the controller sets on what it makes, and trusts when it reads them back. */
export const CONTROLLER_LABELS: readonly string[] = [
  LABEL_RESOURCE_UID,
  LABEL_PIPELINE,
  LABEL_PROMISE,
  LABEL_WORKFLOW_HASH,
  LABEL_WORKFLOW_ROUND,
  LABEL_WORKFLOW_TYPE,
  LABEL_DELETE_ATTEMPT,
  LABEL_PIPELINE_ATTEMPT,
  LABEL_PARENT_UID,
  LABEL_CALL_JOB,
  LABEL_WORKFLOWRUN_UID,
  LABEL_JOB,
  LABEL_STEP,
];

type Meta = { labels?: Record<string, string>; annotations?: Record<string, string> };
interface Obj {
  metadata?: Meta;
  spec?: unknown;
}

const labelsOf = (o: Obj | undefined) => o?.metadata?.labels ?? {};
/** Whether an object carries a label only the controller sets: it was made by the controller. */
export const madeByController = (labels: Record<string, unknown> | undefined) =>
  CONTROLLER_LABELS.some((l) => l in (labels ?? {}));
const made = (o: Obj | undefined) => madeByController(labelsOf(o));
const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

function labelErrors(object: Obj, old: Obj | undefined): FieldError[] {
  const now = labelsOf(object);
  const before = labelsOf(old);
  return CONTROLLER_LABELS.filter((l) => now[l] !== before[l]).map((l) =>
    fieldError(
      `metadata.labels[${l}]`,
      old && l in before
        ? 'set by the kruntimes controller: it may not be changed or removed'
        : 'set by the kruntimes controller only: it marks what the controller made and trusts',
    ),
  );
}

/** The spec of `object` without its cancel request, which anyone who may update it may make. */
function withoutCancel(spec: unknown): unknown {
  if (!isObject(spec)) return spec;
  const { cancelRequested: _c, ...rest } = spec;
  void _c;
  return rest;
}

/**
 * Why a user who is not the controller may not write this WorkflowRun: a controller label set or
 * changed, or, on a run the controller made, anything but a cancel request and the resume of a
 * suspended job (the suspended label removed).
 */
export function workflowRunControllerFieldErrors(
  object: Obj,
  old: Obj | undefined,
  user: { username?: string; groups?: string[] } | undefined,
): FieldError[] {
  const errors = [
    ...labelErrors(object, old),
    ...creatorAnnotationErrors(
      object as Pick<WorkflowRun, 'metadata'>,
      old as Pick<WorkflowRun, 'metadata'> | undefined,
      user,
    ),
  ];
  if (!old || !made(old)) return errors;
  if (!same(withoutCancel(object.spec), withoutCancel(old.spec)))
    errors.push(
      fieldError(
        'spec',
        'this run was made by the kruntimes controller: only spec.cancelRequested may change',
      ),
    );
  const contract = (o: Obj) =>
    Object.entries(o.metadata?.annotations ?? {}).filter(([k]) => k.startsWith(OUTPUT_ANNOTATION_PREFIX));
  if (!same(contract(object), contract(old)))
    errors.push(
      fieldError(
        'metadata.annotations',
        `the output contract (${OUTPUT_ANNOTATION_PREFIX}*) of a run the controller made may not change`,
      ),
    );
  if (
    labelsOf(object)[LABEL_SUSPENDED] !== undefined &&
    labelsOf(object)[LABEL_SUSPENDED] !== labelsOf(old)[LABEL_SUSPENDED]
  )
    errors.push(
      fieldError(
        `metadata.labels[${LABEL_SUSPENDED}]`,
        'set by the kruntimes controller: it may only be removed, to resume',
      ),
    );
  return errors;
}

/** Why a user who is not the controller may not update this Run: only a cancel request may change. */
export function runControllerFieldErrors(object: Obj, old: Obj): FieldError[] {
  const errors = labelErrors(object, old);
  if (!same(withoutCancel(object.spec), withoutCancel(old.spec)))
    errors.push(
      fieldError(
        'spec',
        'a Run is written by the kruntimes controller: only spec.cancelRequested may change',
      ),
    );
  return errors;
}
