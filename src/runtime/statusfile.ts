// The $KRT_STATUS file (Kratix's /kratix/metadata/status.yaml; docs/specifications.md R8): a YAML map a
// step writes. Its `message` becomes the WorkflowRun's message; its `conditions` are the pipeline's
// own conditions on the resource (the controller's win on a type they share); every other key is kept
// in status as written, nested values included. Bounded (src/limits.ts): the error names the bound.
import { parseYamlMap } from './yamlmap.js';
import {
  MAX_CONDITION_REASON_LENGTH,
  MAX_CONDITION_TYPE_LENGTH,
  MAX_OUTPUT_VALUE_LENGTH,
  MAX_OUTPUTS,
  MAX_STATUS_CONDITIONS,
  MAX_STATUS_DEPTH,
  MAX_STATUS_JSON_BYTES,
} from '../limits.js';

export const MAX_STATUS_FILE_BYTES = 64 * 1024;

/** A condition a pipeline sets: the fields of metav1.Condition it may write. */
export interface WrittenCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
}

// metav1.Condition's own rules: a qualified-name type, a CamelCase reason.
const CONDITION_TYPE =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const CONDITION_REASON = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;

export function parseStatusFile(text: string): { values?: Record<string, unknown> } | { error: string } {
  const read = parseYamlMap(text, '$KRT_STATUS');
  if ('error' in read) return read;
  if (!read.map) return {};
  const entries = Object.entries(read.map);
  if (entries.length > MAX_OUTPUTS)
    return { error: `$KRT_STATUS has ${entries.length} keys, more than ${MAX_OUTPUTS}` };
  const values: Record<string, unknown> = {};
  for (const [k, v] of entries) {
    const deep = tooDeep(v, k, 1);
    if (deep) return { error: `$KRT_STATUS ${deep}: nested deeper than ${MAX_STATUS_DEPTH} levels` };
    if (k === 'message') {
      const m = typeof v === 'string' ? v : JSON.stringify(v);
      if (m.length > MAX_OUTPUT_VALUE_LENGTH)
        return { error: `$KRT_STATUS message: longer than ${MAX_OUTPUT_VALUE_LENGTH} characters` };
      values[k] = m;
    } else if (k === 'conditions') {
      const c = parseConditions(v);
      if ('error' in c) return c;
      values[k] = c.conditions;
    } else values[k] = v;
  }
  const bytes = jsonBytes(values);
  if (bytes > MAX_STATUS_JSON_BYTES)
    return { error: `$KRT_STATUS is ${bytes} bytes as JSON, more than ${MAX_STATUS_JSON_BYTES}` };
  return entries.length ? { values } : {};
}

/** The path of the first value nested deeper than the bound, if one is. */
function tooDeep(v: unknown, path: string, depth: number): string | undefined {
  if (v === null || typeof v !== 'object') return undefined;
  if (depth >= MAX_STATUS_DEPTH) return path;
  const children: [string, unknown][] = Array.isArray(v)
    ? v.map((x, i) => [`${path}[${i}]`, x])
    : Object.entries(v).map(([k, x]) => [`${path}.${k}`, x]);
  for (const [p, x] of children) {
    const deep = tooDeep(x, p, depth + 1);
    if (deep) return deep;
  }
  return undefined;
}

function parseConditions(v: unknown): { conditions: WrittenCondition[] } | { error: string } {
  if (!Array.isArray(v)) return { error: '$KRT_STATUS conditions: must be a list' };
  if (v.length > MAX_STATUS_CONDITIONS)
    return { error: `$KRT_STATUS conditions: ${v.length} conditions, more than ${MAX_STATUS_CONDITIONS}` };
  const out: WrittenCondition[] = [];
  for (const [i, c] of v.entries()) {
    const at = `$KRT_STATUS conditions[${i}]`;
    if (c === null || typeof c !== 'object' || Array.isArray(c)) return { error: `${at}: must be a mapping` };
    const { type, status, reason, message } = c as Record<string, unknown>;
    if (typeof type !== 'string' || type.length > MAX_CONDITION_TYPE_LENGTH || !CONDITION_TYPE.test(type))
      return { error: `${at}.type: must be a condition type such as Ready or example.com/Ready` };
    if (status !== 'True' && status !== 'False' && status !== 'Unknown')
      return { error: `${at}.status: must be True, False or Unknown` };
    if (
      reason !== undefined &&
      (typeof reason !== 'string' ||
        reason.length > MAX_CONDITION_REASON_LENGTH ||
        !CONDITION_REASON.test(reason))
    )
      return { error: `${at}.reason: must be a CamelCase word such as DatabaseReady` };
    if (message !== undefined && (typeof message !== 'string' || message.length > MAX_OUTPUT_VALUE_LENGTH))
      return { error: `${at}.message: must be text of at most ${MAX_OUTPUT_VALUE_LENGTH} characters` };
    if (out.some((x) => x.type === type)) return { error: `${at}.type: ${type} is set twice` };
    out.push({ type, status, ...(reason ? { reason } : {}), ...(message ? { message } : {}) });
  }
  return { conditions: out };
}

function jsonBytes(v: unknown): number {
  return Buffer.byteLength(JSON.stringify(v));
}

/**
 * Merges the status documents several steps or pipelines wrote, in order, a later value winning at
 * the top level; a key that would break the bounds (key count, JSON bytes) is dropped, the first
 * ones kept, so a merge never makes an object the API server refuses. Sizes are counted per key so
 * a WorkflowRun of thousands of steps does not serialise the whole document at each one.
 */
export function mergeWrittenStatus(documents: Record<string, unknown>[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const sizes = new Map<string, number>();
  let total = 2; // {}
  for (const doc of documents)
    for (const [k, v] of Object.entries(doc)) {
      const before = sizes.get(k);
      if (before === undefined && sizes.size >= MAX_OUTPUTS) continue;
      // "key":value, with the comma that separates it from the previous member
      const size = jsonBytes(k) + 1 + jsonBytes(v) + 1;
      const next = total - (before ?? 0) + size;
      if (next > MAX_STATUS_JSON_BYTES + 1) continue;
      out[k] = v;
      sizes.set(k, size);
      total = next;
    }
  return out;
}
