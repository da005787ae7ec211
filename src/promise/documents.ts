// The Kubernetes manifests a pipeline writes to $KRT_OUTPUT_DIR (a pipeline's output state, docs/specifications.md R4):
// every file holds YAML documents, each a whole object. runtimed refuses a step whose files do not
// parse (naming the file and the error); the controller reads the same way when it makes the Work.
import { parseAllDocuments } from 'yaml';
import { isObject } from '../helpers.js';
import type { Files } from './files.js';

export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string } & Record<string, unknown>;
  [k: string]: unknown;
}

/** The objects of every file (files in name order, documents in file order), or the first problem. */
export function parseManifests(files: Files): { objects: Manifest[] } | { error: string } {
  const objects: Manifest[] = [];
  for (const name of Object.keys(files).sort()) {
    const docs = parseAllDocuments(files[name] ?? '');
    if (!Array.isArray(docs)) continue; // an empty file
    for (const [i, doc] of docs.entries()) {
      const at = `$KRT_OUTPUT_DIR/${name}${docs.length > 1 ? ` (document ${i + 1})` : ''}`;
      if (doc.errors.length > 0) return { error: `${at}: ${doc.errors[0]?.message ?? 'invalid YAML'}` };
      const value: unknown = doc.toJS({ maxAliasCount: 100 });
      if (value === null || value === undefined) continue; // an empty document
      const problem = manifestProblem(value);
      if (problem) return { error: `${at}: ${problem}` };
      objects.push(value as Manifest);
    }
  }
  return { objects };
}

function manifestProblem(v: unknown): string | null {
  if (!isObject(v)) return 'a document must be a Kubernetes object (a map)';
  if (typeof v.apiVersion !== 'string' || v.apiVersion === '') return 'apiVersion is required';
  if (typeof v.kind !== 'string' || v.kind === '') return 'kind is required';
  if (!isObject(v.metadata) || typeof v.metadata.name !== 'string' || v.metadata.name === '')
    return 'metadata.name is required';
  if (v.metadata.namespace !== undefined && typeof v.metadata.namespace !== 'string')
    return 'metadata.namespace must be a string';
  return null;
}

/** apiVersion, kind, namespace and name: what identifies an applied object for pruning. */
export function manifestKey(o: {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
}): string {
  return `${o.apiVersion ?? ''}|${o.kind ?? ''}|${o.namespace ?? ''}|${o.name ?? ''}`;
}
