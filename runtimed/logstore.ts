// Full logs outside etcd: one file per execution under the data folder, removed after the
// retention period, and the oldest removed first whenever all of them together outgrow their bound
// (the folder is a volume of fixed size: a full one would fail every step's log, not just one).
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { runLogDir, runLogFile } from '../src/runtime/logpaths.js';
import { log } from '../src/telemetry/log.js';

export interface LogStoreOptions {
  retentionMs: number;
  /** Bytes all logs may take together. */
  maxTotalBytes: number;
  /** Runs whose logs are never removed to make room (still running here). */
  inUse?: (namespace: string, uid: string) => boolean;
}

/** One Run's log folder: its bytes and when it was last written. */
interface Folder {
  dir: string;
  namespace: string;
  uid: string;
  bytes: number;
  writtenMs: number;
}

export interface SweepResult {
  expired: number;
  /** Folders removed to bring the total under the bound. */
  evicted: number;
  /** Bytes of the logs kept. */
  bytes: number;
}

export class LogStore {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly dataDir: string,
    private readonly o: LogStoreOptions,
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

  /**
   * Removes every Run's logs not written for longer than the retention period, then, while the rest
   * take more than the bound, the least recently written of those not in use.
   */
  async sweep(now = Date.now()): Promise<SweepResult> {
    const result: SweepResult = { expired: 0, evicted: 0, bytes: 0 };
    const kept: Folder[] = [];
    for (const f of await this.folders()) {
      if (now - f.writtenMs > this.o.retentionMs) {
        await rm(f.dir, { recursive: true, force: true });
        result.expired++;
      } else kept.push(f);
    }
    result.bytes = kept.reduce((n, f) => n + f.bytes, 0);
    kept.sort((a, b) => a.writtenMs - b.writtenMs);
    for (const f of kept) {
      if (result.bytes <= this.o.maxTotalBytes) break;
      if (this.o.inUse?.(f.namespace, f.uid)) continue;
      await rm(f.dir, { recursive: true, force: true });
      result.bytes -= f.bytes;
      result.evicted++;
    }
    return result;
  }

  private async folders(): Promise<Folder[]> {
    const root = join(this.dataDir, 'logs');
    const out: Folder[] = [];
    for (const namespace of await readdir(root).catch(() => [] as string[])) {
      for (const uid of await readdir(join(root, namespace)).catch(() => [] as string[])) {
        const dir = join(root, namespace, uid);
        const s = await stat(dir).catch(() => undefined);
        if (!s?.isDirectory()) continue;
        // Appending to a log changes the file's time, not the folder's.
        const folder: Folder = { dir, namespace, uid, bytes: 0, writtenMs: s.mtimeMs };
        for (const name of await readdir(dir).catch(() => [] as string[])) {
          const fs = await stat(join(dir, name)).catch(() => undefined);
          if (!fs) continue;
          folder.bytes += fs.size;
          folder.writtenMs = Math.max(folder.writtenMs, fs.mtimeMs);
        }
        out.push(folder);
      }
    }
    return out;
  }

  startSweeping(everyMs = 5 * 60_000): void {
    const tick = () =>
      void this.sweep().then(
        (r) => (r.expired || r.evicted) && log.info(r, 'removed logs'),
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
