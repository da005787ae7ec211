// Structural validation with the very schemas the CRDs are generated from (src/api/schema.ts), so
// the webhook and `krt validate` check types, patterns and bounds exactly as the API server does.
// The CRD's CEL rules are checked in TypeScript beside this (jobs.ts), with the same messages.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { Schema } from '../api/schema-helpers.js';
import { runSpecSchema, workflowRunSpecSchema, workflowSpecSchema } from '../api/schema.js';
import { fieldError, type FieldError } from '../fielderror.js';
import { promiseSpecSchema } from '../api/promise-schema.js';

const ajv = new Ajv({ allErrors: true, strict: true, validateFormats: false });
ajv.addVocabulary([
  'x-kubernetes-validations',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-preserve-unknown-fields',
]);

const compiled = new Map<Schema, ValidateFunction>();
function validator(schema: Schema): ValidateFunction {
  let v = compiled.get(schema);
  if (!v) compiled.set(schema, (v = ajv.compile(schema)));
  return v;
}

/** `/spec/jobs/build/steps/0/name` -> `spec.jobs.build.steps[0].name` */
export function jsonPointerToField(base: string, pointer: string): string {
  let out = base;
  for (const raw of pointer.split('/').slice(1)) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(seg) ? `[${seg}]` : out ? `.${seg}` : seg;
  }
  return out;
}

function describe(e: ErrorObject, base: string): FieldError {
  const field = jsonPointerToField(base, e.instancePath);
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return fieldError(`${field}.${String(p.missingProperty)}`, 'required value');
    case 'type':
      return fieldError(field, `must be of type ${String(p.type)}`);
    case 'pattern':
      return fieldError(field, `must match ${String(p.pattern)}`);
    case 'maxLength':
      return fieldError(field, `must be at most ${String(p.limit)} characters`);
    case 'minLength':
      return fieldError(
        field,
        p.limit === 1 ? 'must not be empty' : `must be at least ${String(p.limit)} characters`,
      );
    case 'maxProperties':
      return fieldError(field, `must have at most ${String(p.limit)} entries`);
    case 'minProperties':
      return fieldError(
        field,
        `must have at least ${String(p.limit)} ${p.limit === 1 ? 'entry' : 'entries'}`,
      );
    case 'maxItems':
      return fieldError(field, `must have at most ${String(p.limit)} ${p.limit === 1 ? 'item' : 'items'}`);
    case 'minItems':
      return fieldError(field, `must have at least ${String(p.limit)} ${p.limit === 1 ? 'item' : 'items'}`);
    case 'minimum':
      return fieldError(field, `must be greater than or equal to ${String(p.limit)}`);
    case 'maximum':
      return fieldError(field, `must be less than or equal to ${String(p.limit)}`);
    case 'enum':
      return fieldError(
        field,
        `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      );
    default:
      return fieldError(field, e.message ?? e.keyword);
  }
}

function check(schema: Schema, value: unknown, base: string): FieldError[] {
  const v = validator(schema);
  if (v(value)) return [];
  return (v.errors ?? []).map((e) => describe(e, base));
}

export const structural = {
  workflowSpec: (spec: unknown) => check(workflowSpecSchema, spec, 'spec'),
  workflowRunSpec: (spec: unknown) => check(workflowRunSpecSchema, spec, 'spec'),
  runSpec: (spec: unknown) => check(runSpecSchema, spec, 'spec'),
  promiseSpec: (spec: unknown) => check(promiseSpecSchema, spec, 'spec'),
};
