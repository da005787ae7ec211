// The shared core's layers (docs/architecture.md): a folder imports only from layers below it or
// from itself, so there is no upward import and no cycle between folders.
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const src = dirname(fileURLToPath(import.meta.url));

/** Bottom to top; folders on one line share a layer and do not import each other. */
const LAYERS: string[][] = [
  ['.'], // limits, names, labels, helpers, fielderror, flags
  ['api', 'telemetry'],
  ['expr'],
  ['shell', 'graph'],
  ['render'],
  ['promise'],
  ['runtime'],
  ['validate'],
  ['kube', 'plan'],
];
const rank = (folder: string) => LAYERS.findIndex((l) => l.includes(folder));

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? files(join(dir, e.name))
      : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')
        ? [join(dir, e.name)]
        : [],
  );
}

const folderOf = (file: string) => {
  const parts = relative(src, file).split(sep);
  return parts.length > 1 ? (parts[0] as string) : '.';
};

describe('the layers of src/', () => {
  const all = files(src);

  it('places every folder in a layer', () => {
    expect([...new Set(all.map(folderOf))].filter((f) => rank(f) < 0)).toEqual([]);
  });

  it('has no import from a lower layer to a higher one, or across one layer', () => {
    const wrong: string[] = [];
    for (const file of all) {
      const from = folderOf(file);
      for (const m of readFileSync(file, 'utf8').matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
        const target = resolve(dirname(file), m[1] as string);
        if (!target.startsWith(src)) continue;
        const to = folderOf(target);
        if (to === from) continue;
        if (rank(to) >= rank(from)) wrong.push(`${relative(src, file)} imports ${m[1]}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('has no import cycle between files (type-only imports aside: they are gone at run time)', () => {
    const deps = new Map<string, string[]>();
    for (const file of all) {
      const text = readFileSync(file, 'utf8');
      const targets = [...text.matchAll(/^(?:import|export) (?!type )[^;]*?from '(\.{1,2}\/[^']+)'/gms)].map(
        (m) => resolve(dirname(file), (m[1] as string).replace(/\.js$/, '.ts')),
      );
      deps.set(file, targets);
    }
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const path: string[] = [];
    const visit = (f: string) => {
      state.set(f, 'open');
      path.push(f);
      for (const d of deps.get(f) ?? []) {
        if (state.get(d) === 'open')
          cycles.push([...path.slice(path.indexOf(d)), d].map((x) => relative(src, x)).join(' -> '));
        else if (!state.has(d) && deps.has(d)) visit(d);
      }
      path.pop();
      state.set(f, 'done');
    };
    for (const f of all) if (!state.has(f)) visit(f);
    expect(cycles).toEqual([]);
  });
});
