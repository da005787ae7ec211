// The $KRT_CONTROL file (Kratix's workflow-control.yaml; docs/specifications.md R5, R6): `retryAfter`,
// `suspend` and `message`, read after a step into Run.status.control.
import type { RunStatus } from '../api/types.js';
import { parseDuration } from './duration.js';
import { parseYamlMap } from './yamlmap.js';

export const MAX_CONTROL_FILE_BYTES = 32 * 1024;
export type Control = NonNullable<RunStatus['control']>;

/** undefined for an empty or absent file; an error text for one that breaks the schema. */
export function parseControl(text: string): { control?: Control } | { error: string } {
  if (Buffer.byteLength(text) > MAX_CONTROL_FILE_BYTES)
    return { error: `$KRT_CONTROL is larger than ${MAX_CONTROL_FILE_BYTES} bytes` };
  const read = parseYamlMap(text, '$KRT_CONTROL');
  if ('error' in read) return read;
  if (!read.map) return {};
  const control: Control = {};
  for (const [k, v] of Object.entries(read.map)) {
    if (k === 'suspend') {
      if (typeof v !== 'boolean') return { error: '$KRT_CONTROL suspend: must be true or false' };
      control.suspend = v;
    } else if (k === 'retryAfter') {
      const d =
        typeof v === 'string' ? parseDuration(v) : { error: `${JSON.stringify(v)} is not a duration` };
      if ('error' in d) return { error: `$KRT_CONTROL retryAfter: ${d.error}` };
      control.retryAfter = v as string;
    } else if (k === 'message') {
      if (typeof v !== 'string') return { error: '$KRT_CONTROL message: must be a string' };
      control.message = v.slice(0, 32768);
    } else return { error: `$KRT_CONTROL ${k}: unknown field (allowed: retryAfter, suspend, message)` };
  }
  return Object.keys(control).length ? { control } : {};
}
