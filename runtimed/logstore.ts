// Full logs outside etcd: one file per execution under the data folder, removed after the
// retention period.
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { runLogDir, runLogFile } from '../src/runtime/logpaths.js';
import { log } from '../src/telemetry/log.js';

export class LogStore {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly dataDir: string,
    private readonly retentionMs: number,
  ) {}

  /** The file of one execution's log; the executor makes its folder. */
  fileFor(namespace: string, uid: string, attempt: number): string {
    return runLogFile(this.dataDir, namespace, uid, attempt);
  }

  /** A Run that is gone takes its logs with it (its WorkflowRun's retention ended, or it was deleted). */
  async removeRun(namespace: string, uid: string): Promise<void> {
    if (!namespace || !uid) return;
    await rm(runLogDir(this.dataDir, namespace, uid), { recursive: true, force: true });
  }

  /** Removes every Run's log folder not written for longer than the retention period. */
  async sweep(now = Date.now()): Promise<number> {
    let removed = 0;
    const root = join(this.dataDir, 'logs');
    for (const ns of await readdir(root).catch(() => [] as string[])) {
      for (const uid of await readdir(join(root, ns)).catch(() => [] as string[])) {
        const dir = join(root, ns, uid);
        const s = await stat(dir).catch(() => undefined);
        if (s && now - s.mtimeMs > this.retentionMs) {
          await rm(dir, { recursive: true, force: true });
          removed++;
        }
      }
    }
    return removed;
  }

  startSweeping(everyMs = 60 * 60_000): void {
    const tick = () =>
      void this.sweep().then(
        (n) => n && log.info({ removed: n }, 'removed expired logs'),
        (e: unknown) => log.warn({ err: e }, 'log sweep failed'),
      );
    tick();
    this.timer = setInterval(tick, everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
