// Results of finished steps not yet reported: kept on disk until the API server takes them, so an
// outage of any length, or a restart of the agent, never turns a finished step into a second
// execution. One file per execution, written whole (rename) before the first report.
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunStatus } from '../src/api/types.js';

export interface PendingResult {
  namespace: string;
  name: string;
  uid: string;
  attempts: number;
  status: RunStatus;
}

export class ResultStore {
  constructor(private readonly dir: string) {}

  private file(r: Pick<PendingResult, 'uid' | 'attempts'>): string {
    return join(this.dir, `${r.uid}-${r.attempts}.json`);
  }

  async save(r: PendingResult): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const tmp = `${this.file(r)}.tmp`;
    await writeFile(tmp, JSON.stringify(r));
    await rename(tmp, this.file(r));
  }

  async remove(r: Pick<PendingResult, 'uid' | 'attempts'>): Promise<void> {
    await rm(this.file(r), { force: true });
  }

  /** What an earlier life of this agent left unreported; unreadable files are dropped. */
  async list(): Promise<PendingResult[]> {
    const out: PendingResult[] = [];
    for (const f of await readdir(this.dir).catch(() => [] as string[])) {
      if (!f.endsWith('.json')) continue;
      try {
        out.push(JSON.parse(await readFile(join(this.dir, f), 'utf8')) as PendingResult);
      } catch {
        await rm(join(this.dir, f), { force: true });
      }
    }
    return out;
  }
}
