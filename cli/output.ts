// `-o table|yaml|json`: tables for people, the objects themselves for scripts.
import { Option } from 'commander';
import { stringify } from 'yaml';
import { UsageError } from './connect.js';

export type Format = 'table' | 'yaml' | 'json';

export const outputOption = () =>
  new Option('-o, --output <format>', 'output format').choices(['table', 'yaml', 'json']).default('table');

/** Prints one object or a list in yaml/json; returns false when the caller should print its table. */
export function printStructured(format: Format, value: unknown): boolean {
  if (format === 'json') console.log(JSON.stringify(value, null, 2));
  else if (format === 'yaml') process.stdout.write(stringify(value));
  else if (format !== 'table') throw new UsageError(`unknown output format "${String(format)}"`);
  return format !== 'table';
}

/** Columns padded to the widest cell, as kubectl prints them. */
export function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('   ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

export function age(created: unknown, now = new Date()): string {
  const ms = now.getTime() - new Date(String(created)).getTime();
  if (!Number.isFinite(ms)) return '-';
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}
