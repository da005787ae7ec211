// Objects etcd can store: the admitted object, and for a Workflow the WorkflowRun a call or a
// trigger makes from it, are bounded in bytes, so a too large object is refused at apply time with
// the limit named, not by etcd after admission (`etcdserver: request is too large`).
import type { Workflow } from '../api/types.js';
import { ExprError } from '../expr/index.js';
import { fieldError, type FieldError } from '../fielderror.js';
import { MAX_ADMITTED_OBJECT_BYTES, MAX_OBJECT_NAME_LENGTH } from '../limits.js';
import { materialize } from '../render/materialize.js';

export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '');
}

const limitText = `at most ${MAX_ADMITTED_OBJECT_BYTES} bytes (1 MiB), which leaves room within etcd's 1.5 MiB request limit for its status`;

/** The object without its status: a status that grew must never stop a change such as a cancel. */
export function objectSizeError(kind: string, obj: { status?: unknown }): FieldError | null {
  const bytes = jsonBytes({ ...obj, status: undefined });
  return bytes > MAX_ADMITTED_OBJECT_BYTES
    ? fieldError('', `the ${kind} takes ${bytes} bytes; an object must take ${limitText}`)
    : null;
}

/**
 * The WorkflowRun made from this Workflow with the inputs' defaults (what a call or a trigger that
 * gives no values makes), with room for its names, labels and owner reference.
 */
export function materializedSizeError(wf: Workflow): FieldError | null {
  const inputs = Object.fromEntries(
    Object.entries(wf.spec.inputs ?? {}).map(([k, i]) => [k, i.default ?? '']),
  );
  const metadata = 4 * MAX_OBJECT_NAME_LENGTH + 512;
  // Rendering only replaces placeholders with defaults (quoted with doubled quotes at worst, and JSON
  // escapes a character in at most 6 bytes), so a template that fits with every placeholder at its
  // largest needs no rendering: most do.
  const text = JSON.stringify(wf.spec);
  const placeholders = text.split('${{').length - 1;
  const longest = Math.max(0, ...Object.values(inputs).map((v) => Buffer.byteLength(v)));
  if (Buffer.byteLength(text) + placeholders * (12 * longest + 16) + metadata <= MAX_ADMITTED_OBJECT_BYTES)
    return null;
  let child;
  try {
    child = materialize(wf, inputs);
  } catch (e) {
    if (e instanceof ExprError) return null;
    throw e;
  }
  const bytes =
    jsonBytes({ metadata: { annotations: child.annotations }, spec: { jobs: child.jobs } }) + metadata;
  return bytes > MAX_ADMITTED_OBJECT_BYTES
    ? fieldError(
        'spec.jobs',
        `the WorkflowRun made from this Workflow with its inputs' defaults would take about ${bytes} bytes; a WorkflowRun must take ${limitText}`,
      )
    : null;
}
