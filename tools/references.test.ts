// No stale references: every path of the repository that the docs, the README or a comment names
// (docs/..., src/..., controller/..., config/..., ...) exists, so a reader who follows one arrives.
import { describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const TOP = ['docs', 'src', 'controller', 'runtimed', 'cli', 'webhook', 'test', 'tools', 'config'];
const READ = /\.(ts|js|md|yaml|sh)$/;
/** A path of the repository as text names it: a top folder, then more, not inside a longer word. */
const PATH = new RegExp(`(?<![\\w./-])((?:${TOP.join('|')})/[\\w./-]*\\w)`, 'g');
/** Text that only looks like a path: an apiVersion (`test/v1`), a pattern. */
const NOT_A_PATH = /^test\/v\d|[*<]/;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.name === 'node_modules' || e.name.startsWith('.')
      ? []
      : e.isDirectory()
        ? filesUnder(join(dir, e.name))
        : READ.test(e.name)
          ? [join(dir, e.name)]
          : [],
  );
}

describe('references to files of the repository', () => {
  const files = [
    ...TOP.flatMap((d) => filesUnder(join(root, d))),
    join(root, 'README.md'),
    join(root, 'Makefile'),
    join(root, 'eslint.config.js'),
  ];

  it('reads the docs and the code', () => {
    expect(files.length).toBeGreaterThan(200);
  });

  it('name only paths that exist', () => {
    const stale: string[] = [];
    for (const f of files)
      for (const m of readFileSync(f, 'utf8').matchAll(PATH)) {
        const path = m[1] as string;
        if (!NOT_A_PATH.test(path) && !existsSync(join(root, path)))
          stale.push(`${relative(root, f)}: ${path}`);
      }
    expect(stale).toEqual([]);
  });
});
