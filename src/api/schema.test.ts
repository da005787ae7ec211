import type { Schema } from './schema-helpers.js';
import { KINDS } from './crds.js';

/** Every field path under a schema that has no description (metadata is Kubernetes' own). */
function undocumented(s: Schema, path: string, out: string[]): string[] {
  if (!s.description && path !== '.metadata') out.push(path || '(root)');
  for (const [k, v] of Object.entries(s.properties ?? {}))
    if (k !== 'metadata') undocumented(v, `${path}.${k}`, out);
  if (s.items) undocumented(s.items, `${path}[]`, out);
  if (typeof s.additionalProperties === 'object') undocumented(s.additionalProperties, `${path}.*`, out);
  return out;
}

describe('API schemas', () => {
  it.each(KINDS.map((k) => [k.kind, k]))(
    '%s documents every field, so kubectl explain is useful',
    (_k, kind) => {
      expect(undocumented(kind.schema, '', [])).toEqual([]);
    },
  );

  it('gives WorkflowRun and Run a phase column and WorkflowRun jobs done/total', () => {
    const wfr = KINDS.find((k) => k.kind === 'WorkflowRun');
    expect(wfr?.columns.map((c) => c.jsonPath)).toEqual(
      expect.arrayContaining(['.status.phase', '.status.progress', '.metadata.creationTimestamp']),
    );
    expect(KINDS.map((k) => k.shortNames[0])).toEqual(['wf', 'wfr', 'krun', 'promise', undefined]);
  });
});
