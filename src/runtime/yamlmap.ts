// The files a step writes for runtimed ($KRT_CONTROL, $KRT_STATUS) are YAML maps; an empty file or
// an empty document is no map at all.
import { parse } from 'yaml';

export function parseYamlMap(
  text: string,
  file: string,
): { map?: Record<string, unknown> } | { error: string } {
  if (text.trim() === '') return {};
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    return { error: `${file} is not YAML: ${(e instanceof Error ? e.message : String(e)).split('\n')[0]}` };
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) return { error: `${file} must be a mapping` };
  return { map: doc as Record<string, unknown> };
}
