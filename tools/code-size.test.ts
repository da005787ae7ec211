// Sizes a reader can hold in mind (docs/architecture.md): no product file over 400 lines and no
// product function longer than the linter allows (eslint.config.js, max-lines-per-function: lines
// of code, blank lines and comments aside), generated files aside. Measured here too so that
// `make test` holds it; with the TypeScript parser, so a function is what the language says it is.
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import lintConfig from '../eslint.config.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const PRODUCT = ['src', 'webhook', 'controller', 'runtimed', 'cli'];
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = (lintConfig as { rules?: Record<string, [string, { max: number }]> }[]).find(
  (c) => c.rules?.['max-lines-per-function'],
)?.rules?.['max-lines-per-function']?.[1].max as number;

function productFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? productFiles(join(dir, e.name))
      : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.includes('.generated.')
        ? [join(dir, e.name)]
        : [],
  );
}

const files = PRODUCT.flatMap((d) => productFiles(join(root, d)));

/** Each function of a file with its length in lines, named by where it starts. */
function functionLengths(file: string): { where: string; lines: number }[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lines = text.split('\n');
  const found: { where: string; lines: number }[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const code = lines.slice(start, end + 1).filter((l) => !/^\s*($|\/\/|\/\*|\*)/.test(l)).length;
      found.push({ where: `${relative(root, file)}:${start + 1}`, lines: code });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the size of the product code', () => {
  it('finds the product files and the bound of the linter', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(MAX_FUNCTION_LINES).toBe(60);
  });

  it(`has no file over ${MAX_FILE_LINES} lines`, () => {
    const long = files
      .map((f) => ({ file: relative(root, f), lines: readFileSync(f, 'utf8').split('\n').length - 1 }))
      .filter((f) => f.lines > MAX_FILE_LINES);
    expect(long).toEqual([]);
  });

  it(`has no function over ${MAX_FUNCTION_LINES} lines`, () => {
    const long = files.flatMap(functionLengths).filter((f) => f.lines > MAX_FUNCTION_LINES);
    expect(long).toEqual([]);
  });

  it('measures a function from its first line to its last', () => {
    const lengths = functionLengths(fileURLToPath(import.meta.url));
    expect(lengths.find((l) => l.where.endsWith(`:${functionLineOfThisFile()}`))?.lines).toBe(3);
  });
});

function functionLineOfThisFile(): number {
  return Number(new Error().stack?.match(/code-size\.test\.ts:(\d+)/)?.[1]) - 1;
}
