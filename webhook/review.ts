// The AdmissionReview v1 envelope: decoding that never throws, and well-formed responses for every
// outcome, so the API server always gets an answer it can read.
import { isObject } from '../src/helpers.js';

export interface AdmissionRequest {
  uid: string;
  kind: { group: string; version: string; kind: string };
  resource?: { group: string; version: string; resource: string };
  subResource?: string;
  name?: string;
  namespace?: string;
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  userInfo?: { username?: string; groups?: string[]; extra?: Record<string, string[]> };
  object?: unknown;
  oldObject?: unknown;
  dryRun?: boolean;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: { code: number; message: string; reason?: string };
  warnings?: string[];
  patchType?: 'JSONPatch';
  patch?: string;
}

export interface AdmissionReview {
  apiVersion: 'admission.k8s.io/v1';
  kind: 'AdmissionReview';
  response: AdmissionResponse;
}

/** Nesting deeper than this is refused before any rule walks the object. */
export const MAX_OBJECT_DEPTH = 64;
/** Kubernetes caps warnings; keep ours readable too. */
const MAX_WARNINGS = 20;
const MAX_WARNING_LENGTH = 512;

/** Segments of a too-deep path that a denial names: enough to find the field (`spec.jobs.c.with.msg`). */
const NAMED_SEGMENTS = 5;

/**
 * Where a JSON value nests deeper than `limit`, as the field that holds the deep value (its first
 * few segments), or undefined. Measured without recursion; stops at the first such place.
 */
export function tooDeepAt(value: unknown, limit: number): string | undefined {
  const stack: [unknown, number, string[]][] = [[value, 1, []]];
  while (stack.length > 0) {
    const [v, d, path] = stack.pop() as [unknown, number, string[]];
    if (typeof v !== 'object' || v === null) continue;
    if (d > limit) return path.slice(0, NAMED_SEGMENTS).join('.').replace(/\.\[/g, '[');
    // Deeper than the named segments, the path is not kept (a hostile object may be wide too).
    const at = (k: string) => (path.length < NAMED_SEGMENTS ? [...path, k] : path);
    if (Array.isArray(v)) v.forEach((child, i) => stack.push([child, d + 1, at(`[${i}]`)]));
    else for (const [k, child] of Object.entries(v)) stack.push([child, d + 1, at(k)]);
  }
  return undefined;
}

export type Decoded =
  | { ok: true; request: AdmissionRequest }
  /** `invalid`: the review is well-formed but its object cannot be admitted. */
  | { ok: false; uid: string; message: string; invalid?: true };

export function decodeReview(body: unknown): Decoded {
  if (!isObject(body)) return { ok: false, uid: '', message: 'the body is not an AdmissionReview object' };
  const request = body.request;
  const uid = isObject(request) && typeof request.uid === 'string' ? request.uid : '';
  if (body.apiVersion !== 'admission.k8s.io/v1')
    return {
      ok: false,
      uid,
      message: `unsupported apiVersion ${JSON.stringify(body.apiVersion)}: expected "admission.k8s.io/v1"`,
    };
  if (body.kind !== 'AdmissionReview')
    return {
      ok: false,
      uid,
      message: `unsupported kind ${JSON.stringify(body.kind)}: expected "AdmissionReview"`,
    };
  if (!isObject(request)) return { ok: false, uid, message: 'request is missing' };
  if (uid === '') return { ok: false, uid, message: 'request.uid is missing' };
  const kind = request.kind;
  if (!isObject(kind) || typeof kind.kind !== 'string' || typeof kind.group !== 'string')
    return { ok: false, uid, message: 'request.kind is missing' };
  if (!['CREATE', 'UPDATE', 'DELETE', 'CONNECT'].includes(request.operation as string))
    return {
      ok: false,
      uid,
      message: `request.operation ${JSON.stringify(request.operation)} is not one of CREATE, UPDATE, DELETE, CONNECT`,
    };
  for (const which of ['object', 'oldObject'] as const) {
    const at = tooDeepAt(request[which], MAX_OBJECT_DEPTH);
    if (at !== undefined)
      return {
        ok: false,
        uid,
        invalid: true,
        message: `${which === 'oldObject' ? 'the stored object: ' : ''}${at || '(the object)'}: nests deeper than ${MAX_OBJECT_DEPTH} levels`,
      };
  }
  const problem =
    userInfoProblem(request.userInfo) ??
    (['name', 'namespace'] as const).map((k) => optionalString(request[k], `request.${k}`)).find(Boolean) ??
    metadataProblem(request.object, 'request.object') ??
    metadataProblem(request.oldObject, 'request.oldObject');
  if (problem) return { ok: false, uid, message: problem };
  return { ok: true, request: request as unknown as AdmissionRequest };
}

function optionalString(v: unknown, field: string): string | undefined {
  return v === undefined || typeof v === 'string' ? undefined : `${field} must be a string`;
}

function stringMapProblem(v: unknown, field: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObject(v) || !Object.values(v).every((x) => typeof x === 'string'))
    return `${field} must map strings to strings`;
  return undefined;
}

function userInfoProblem(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (!isObject(v)) return 'request.userInfo must be an object';
  const groups = v.groups;
  if (groups !== undefined && !(Array.isArray(groups) && groups.every((g) => typeof g === 'string')))
    return 'request.userInfo.groups must be a list of strings';
  const extra = v.extra;
  if (
    extra !== undefined &&
    !(
      isObject(extra) &&
      Object.values(extra).every((x) => Array.isArray(x) && x.every((s) => typeof s === 'string'))
    )
  )
    return 'request.userInfo.extra must map strings to lists of strings';
  return optionalString(v.username, 'request.userInfo.username');
}

/** The API server always sends well-formed metadata; anything else did not come from it. */
function metadataProblem(obj: unknown, field: string): string | undefined {
  if (obj === undefined || obj === null) return undefined;
  if (!isObject(obj)) return `${field} must be an object`;
  const m = obj.metadata;
  if (m === undefined) return undefined;
  if (!isObject(m)) return `${field}.metadata must be an object`;
  return (
    optionalString(m.name, `${field}.metadata.name`) ??
    optionalString(m.namespace, `${field}.metadata.namespace`) ??
    stringMapProblem(m.annotations, `${field}.metadata.annotations`) ??
    stringMapProblem(m.labels, `${field}.metadata.labels`)
  );
}

function trimWarnings(warnings: string[]): string[] | undefined {
  if (warnings.length === 0) return undefined;
  const kept = warnings
    .slice(0, MAX_WARNINGS)
    .map((w) => (w.length > MAX_WARNING_LENGTH ? w.slice(0, MAX_WARNING_LENGTH - 3) + '...' : w));
  if (warnings.length > MAX_WARNINGS) kept.push(`${warnings.length - MAX_WARNINGS} more warnings not shown`);
  return kept;
}

export function review(response: AdmissionResponse): AdmissionReview {
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response };
}

export function allow(uid: string, warnings: string[] = [], patch?: unknown[]): AdmissionReview {
  const response: AdmissionResponse = { uid, allowed: true };
  const w = trimWarnings(warnings);
  if (w) response.warnings = w;
  if (patch && patch.length > 0) {
    response.patchType = 'JSONPatch';
    response.patch = Buffer.from(JSON.stringify(patch)).toString('base64');
  }
  return review(response);
}

export function deny(
  uid: string,
  code: number,
  reason: string,
  message: string,
  warnings: string[] = [],
): AdmissionReview {
  const response: AdmissionResponse = { uid, allowed: false, status: { code, reason, message } };
  const w = trimWarnings(warnings);
  if (w) response.warnings = w;
  return review(response);
}
