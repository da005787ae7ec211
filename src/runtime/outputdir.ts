// The files of $KRT_OUTPUT_DIR read back after a step (docs/design.md §4), bounded like every other
// thing a step writes: regular files only (a symlink could point at the agent's own files), paths
// as FILE_PATH_PATTERN allows, at most MAX_FILES files and MAX_FILES_BYTES bytes.
import { lstat, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { FILE_PATH_PATTERN, matches } from '../api/patterns.js';
import { MAX_FILES, MAX_FILES_BYTES } from '../limits.js';
import type { Files } from '../promise/files.js';

export async function readOutputDir(root: string): Promise<{ files: Files } | { error: string }> {
  const files: Files = {};
  let bytes = 0;
  const walk = async (rel: string): Promise<string | null> => {
    const entries = await readdir(join(root, rel)).catch(() => [] as string[]);
    for (const name of entries.sort()) {
      const path = rel ? `${rel}/${name}` : name;
      const st = await lstat(join(root, path));
      if (st.isDirectory()) {
        if (path.split('/').length >= 4) return `$KRT_OUTPUT_DIR/${path}: folders nest at most 3 deep`;
        const problem = await walk(path);
        if (problem) return problem;
        continue;
      }
      if (!st.isFile()) return `$KRT_OUTPUT_DIR/${path}: only regular files are read (not links or devices)`;
      if (!matches(FILE_PATH_PATTERN, path))
        return `$KRT_OUTPUT_DIR/${path}: a file name must match ${FILE_PATH_PATTERN}`;
      if (Object.keys(files).length >= MAX_FILES) return `$KRT_OUTPUT_DIR holds more than ${MAX_FILES} files`;
      bytes += st.size + Buffer.byteLength(path);
      if (bytes > MAX_FILES_BYTES)
        return `$KRT_OUTPUT_DIR holds more than the limit of ${MAX_FILES_BYTES} bytes`;
      files[path] = await readFile(join(root, path), 'utf8');
    }
    return null;
  };
  const problem = await walk('');
  return problem ? { error: problem } : { files };
}

/** Writes a set of files under `root`; each path was checked against FILE_PATH_PATTERN. */
export function safeFilePath(root: string, path: string): string {
  if (!matches(FILE_PATH_PATTERN, path)) throw new Error(`file path "${path}" is not allowed`);
  return join(root, path);
}

/** Writes a set of files under `root` (the step's $KRT_INPUT or $KRT_OUTPUT_DIR). */
export async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  await mkdir(root, { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    const target = safeFilePath(root, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, text);
  }
}

/** A file the step wrote, or its size when it is over `max` (not read); empty when missing. */
export async function readBounded(path: string, max: number): Promise<string | { bytes: number }> {
  try {
    const { size } = await stat(path);
    if (size > max) return { bytes: size };
    return await readFile(path, 'utf8');
  } catch {
    return '';
  }
}
