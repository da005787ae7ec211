// The $KRT_STATUS file (Kratix's /kratix/metadata/status.yaml; docs/specifications.md R8): a YAML map a
// step writes; its `message` becomes the WorkflowRun's message, the other keys are kept in status.
// Bounded like outputs: at most MAX_OUTPUTS keys of at most MAX_OUTPUT_VALUE_LENGTH characters;
// values that are not strings are kept as their JSON text.
import { parseYamlMap } from './yamlmap.js';
import { MAX_OUTPUT_VALUE_LENGTH, MAX_OUTPUTS } from '../limits.js';

export const MAX_STATUS_FILE_BYTES = 64 * 1024;

export function parseStatusFile(text: string): { values?: Record<string, string> } | { error: string } {
  const read = parseYamlMap(text, '$KRT_STATUS');
  if ('error' in read) return read;
  if (!read.map) return {};
  const entries = Object.entries(read.map);
  if (entries.length > MAX_OUTPUTS)
    return { error: `$KRT_STATUS has ${entries.length} keys, more than ${MAX_OUTPUTS}` };
  const values: Record<string, string> = {};
  for (const [k, v] of entries) {
    const text = typeof v === 'string' ? v : JSON.stringify(v);
    if (text.length > MAX_OUTPUT_VALUE_LENGTH)
      return { error: `$KRT_STATUS ${k}: longer than ${MAX_OUTPUT_VALUE_LENGTH} characters` };
    values[k] = text;
  }
  return entries.length ? { values } : {};
}
