// What the controller loads when it starts: its bundle's main file and the chunks that file imports
// statically. client-node (every API group and model, about 60 MiB of a process) must not be among
// them: the controller reaches the API server through src/kube/rest.ts, and loads client-node only
// for a kubeconfig user that needs a plugin (docs/benchmarks.md, "Memory").
import { describe, expect, it } from '@jest/globals';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The outputs an output imports statically, itself included, transitively. */
function outputsAtStart(meta: Metafile, entry: string): string[] {
  const seen = new Set<string>();
  const visit = (out: string) => {
    if (seen.has(out)) return;
    seen.add(out);
    for (const i of meta.outputs[out]?.imports ?? [])
      if (i.kind === 'import-statement' && !i.external) visit(i.path);
  };
  visit(entry);
  return [...seen];
}

/** The inputs of an output and of every output it imports statically, transitively. */
const loadedAtStart = (meta: Metafile, entry: string) =>
  outputsAtStart(meta, entry).flatMap((o) => Object.keys(meta.outputs[o]?.inputs ?? {}));

/** Node's own modules those outputs import as ES modules. */
const esImportsAtStart = (meta: Metafile, entry: string) =>
  outputsAtStart(meta, entry).flatMap((o) =>
    (meta.outputs[o]?.imports ?? [])
      .filter((i) => i.external && i.kind === 'import-statement')
      .map((i) => i.path),
  );

describe('the controller bundle', () => {
  it('loads client-node only lazily', async () => {
    // The same splitting as tools/bundle.mjs, from the sources.
    const result = await build({
      entryPoints: [join(root, 'controller/main.ts')],
      absWorkingDir: root,
      bundle: true,
      platform: 'node',
      format: 'esm',
      splitting: true,
      outdir: 'out',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const meta = result.metafile;
    const entry = Object.keys(meta.outputs).find((o) => meta.outputs[o]?.entryPoint?.endsWith('main.ts'));
    expect(entry).toBeDefined();
    const atStart = loadedAtStart(meta, entry as string);
    expect(atStart).toContain('src/kube/rest.ts');
    expect(atStart.filter((f) => f.includes('@kubernetes/client-node'))).toEqual([]);
    // And it is there, for the plugin users.
    expect(Object.keys(meta.inputs).some((f) => f.includes('@kubernetes/client-node'))).toBe(true);
    // node:http is required, not imported: its ES module facade would load Node's fetch (undici).
    const esImports = esImportsAtStart(meta, entry as string);
    expect(esImports).toContain('node:https');
    expect(esImports.filter((m) => m === 'node:http' || m === 'http')).toEqual([]);
  }, 60_000);
});
