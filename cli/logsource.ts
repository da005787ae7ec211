// Where `krt` reads full step logs. Locally runtimed writes them under .kruntimes/runtimed of the
// checkout (or KRT_DATA_DIR), and krt reads the files directly; elsewhere KRT_RUNTIMED_URL names an
// agent's log endpoint, which asks the API server whether the caller may read them. Without
// either, the last 4 KiB in status.logTail are what there is.
import { existsSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Run } from '../src/api/types.js';
import { runLogFile } from '../src/runtime/logpaths.js';

export function localDataDir(): string | undefined {
  if (process.env.KRT_DATA_DIR) return process.env.KRT_DATA_DIR;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    const candidate = join(dir, '.kruntimes', 'runtimed');
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  return undefined;
}

export function logFileOf(run: Run, dataDir: string | undefined): string | undefined {
  if (!dataDir || !run.status?.attempts) return undefined;
  const file = runLogFile(dataDir, run.metadata.namespace ?? '', run.metadata.uid ?? '', run.status.attempts);
  return existsSync(file) ? file : undefined;
}

/** Bytes of `file` from `offset` on (empty when nothing new). */
export async function readFrom(file: string, offset: number): Promise<Buffer> {
  const fh = await open(file, 'r');
  try {
    const { size } = await fh.stat();
    if (size <= offset) return Buffer.alloc(0);
    const buf = Buffer.alloc(size - offset);
    await fh.read(buf, 0, buf.length, offset);
    return buf;
  } finally {
    await fh.close();
  }
}

/**
 * Turns chunks of a log into whole lines with a prefix; a line without its newline yet waits for
 * the next chunk (or `flush` at the end).
 */
export class LinePrefixer {
  private partial = '';
  constructor(private readonly prefix: string) {}
  push(chunk: string): string[] {
    const text = this.partial + chunk;
    const parts = text.split('\n');
    this.partial = parts.pop() ?? '';
    return parts.map((l) => `${this.prefix} | ${l}`);
  }
  flush(): string[] {
    const rest = this.partial;
    this.partial = '';
    return rest ? [`${this.prefix} | ${rest}`] : [];
  }
}
