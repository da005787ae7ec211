// The $KRT_OUTPUT file format (docs/design.md §3), the same as GitHub Actions' GITHUB_OUTPUT:
// `KEY=VALUE` lines, and `KEY<<DELIM` ... `DELIM` for multi-line values. Pure, so that runtimed and
// its tests share one reading of it.
import { MAX_OUTPUTS, MAX_OUTPUT_VALUE_LENGTH, QUALIFIED_NAME } from '../limits.js';

/** Bytes of $KRT_OUTPUT read at most; a bigger file fails the Run with OutputsTooLarge. */
export const MAX_OUTPUT_FILE_BYTES = 64 * 1024;

export type OutputsResult =
  { outputs: Record<string, string> } | { reason: 'OutputsInvalid' | 'OutputsTooLarge'; message: string };

export function parseOutputs(text: string): OutputsResult {
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_OUTPUT_FILE_BYTES)
    return tooLarge(`$KRT_OUTPUT holds ${bytes} bytes, more than the limit of ${MAX_OUTPUT_FILE_BYTES}`);
  const outputs: Record<string, string> = {};
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? '').replace(/\r$/, '');
    const at = `$KRT_OUTPUT line ${i + 1}`;
    if (line.trim() === '') continue;
    const eq = line.indexOf('=');
    const heredoc = line.indexOf('<<');
    let key: string;
    let value: string;
    if (heredoc > 0 && (eq < 0 || heredoc < eq)) {
      key = line.slice(0, heredoc);
      const delim = line.slice(heredoc + 2);
      if (delim === '') return invalid(`${at}: "${key}<<" needs a delimiter`);
      const end = lines.findIndex((l, j) => j > i && l.replace(/\r$/, '') === delim);
      if (end < 0) return invalid(`${at}: delimiter "${delim}" of "${key}" is never closed`);
      value = lines
        .slice(i + 1, end)
        .map((l) => l.replace(/\r$/, ''))
        .join('\n');
      i = end;
    } else if (eq > 0) {
      key = line.slice(0, eq);
      value = line.slice(eq + 1);
    } else return invalid(`${at}: expected KEY=VALUE or KEY<<DELIMITER, got "${clip(line)}"`);
    if (!QUALIFIED_NAME.test(key) || key.length > 63)
      return invalid(
        `${at}: output name "${clip(key)}" must be at most 63 alphanumeric characters, '-', '_' or '.', starting and ending with an alphanumeric character`,
      );
    if (value.length > MAX_OUTPUT_VALUE_LENGTH)
      return tooLarge(
        `output "${key}" holds ${value.length} characters, more than the limit of ${MAX_OUTPUT_VALUE_LENGTH}`,
      );
    outputs[key] = value;
    if (Object.keys(outputs).length > MAX_OUTPUTS) return tooLarge(`more than ${MAX_OUTPUTS} outputs`);
  }
  return { outputs };
}

const invalid = (message: string): OutputsResult => ({ reason: 'OutputsInvalid', message });
const tooLarge = (message: string): OutputsResult => ({ reason: 'OutputsTooLarge', message });
const clip = (s: string) => (s.length > 80 ? `${s.slice(0, 77)}...` : s);
