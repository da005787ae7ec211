// Reading manifests: files or folders (recursively), YAML with several documents, or JSON.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { UsageError } from './connect.js';

export interface Manifest {
  file: string;
  /** 1-based position of the document in its file. */
  index: number;
  object: unknown;
  parseError?: string;
}

const EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

export function manifestFiles(paths: string[]): string[] {
  const out: string[] = [];
  const visit = (p: string) => {
    const st = statSync(p, { throwIfNoEntry: false });
    // A path that is not there is the caller's mistake (exit 2), not a cluster's answer.
    if (!st) throw new UsageError(`${p}: no such file or directory`);
    if (st.isDirectory()) {
      for (const e of readdirSync(p).sort()) visit(join(p, e));
    } else if (EXTENSIONS.has(extname(p)) || paths.includes(p)) {
      out.push(p);
    }
  };
  paths.forEach(visit);
  return out;
}

export function readManifests(file: string): Manifest[] {
  const text = readFileSync(file, 'utf8');
  return parseAllDocuments(text).map((doc, i) => {
    if (doc.errors.length > 0)
      return { file, index: i + 1, object: undefined, parseError: doc.errors[0]?.message };
    return { file, index: i + 1, object: doc.toJSON() as unknown };
  });
}
