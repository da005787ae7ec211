import { existsSync, mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogStore } from './logstore.js';

const DAY = 86_400_000;

/** A Run's log folder with one log of `bytes`, last written `ageMs` ago. */
function folder(data: string, uid: string, bytes: number, ageMs: number, now: number): string {
  const dir = join(data, 'logs', 'ns', uid);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, '1.log');
  writeFileSync(file, 'x'.repeat(bytes));
  const t = new Date(now - ageMs);
  utimesSync(file, t, t);
  utimesSync(dir, t, t);
  return dir;
}

describe('LogStore', () => {
  it('places each execution under logs/<namespace>/<uid>/<attempt>.log', () => {
    const store = new LogStore('/data', { retentionMs: 1000, maxTotalBytes: 1 });
    expect(store.fileFor('ns', 'u-1', 2)).toBe('/data/logs/ns/u-1/2.log');
  });

  it('removes the folders of Runs not written for longer than the retention period', async () => {
    const data = mkdtempSync(join(tmpdir(), 'krt-logs-'));
    const store = new LogStore(data, { retentionMs: 60_000, maxTotalBytes: DAY });
    const now = Date.now();
    folder(data, 'old', 1, 120_000, now);
    folder(data, 'fresh', 1, 10_000, now);
    expect(await store.sweep(now)).toEqual({ expired: 1, evicted: 0, bytes: 1 });
    expect(existsSync(join(data, 'logs', 'ns', 'old'))).toBe(false);
    expect(existsSync(join(data, 'logs', 'ns', 'fresh', '1.log'))).toBe(true);
    const none = new LogStore(join(data, 'none'), { retentionMs: 1, maxTotalBytes: 1 });
    expect(await none.sweep()).toEqual({ expired: 0, evicted: 0, bytes: 0 });
  });

  it('reads a log still being appended to as fresh, whatever its folder says', async () => {
    const data = mkdtempSync(join(tmpdir(), 'krt-logs-'));
    const now = Date.now();
    const dir = folder(data, 'long', 10, 10_000, now);
    const old = new Date(now - 2 * DAY);
    utimesSync(dir, old, old);
    const store = new LogStore(data, { retentionMs: DAY, maxTotalBytes: DAY });
    expect(await store.sweep(now)).toEqual({ expired: 0, evicted: 0, bytes: 10 });
  });

  it('over its bound, removes the least recently written first, never a log in use', async () => {
    const data = mkdtempSync(join(tmpdir(), 'krt-logs-'));
    const now = Date.now();
    folder(data, 'oldest-in-use', 400, 50_000, now);
    folder(data, 'older', 400, 40_000, now);
    folder(data, 'old', 400, 30_000, now);
    folder(data, 'new', 400, 20_000, now);
    const store = new LogStore(data, {
      retentionMs: DAY,
      maxTotalBytes: 1000,
      inUse: (namespace, uid) => namespace === 'ns' && uid === 'oldest-in-use',
    });
    expect(await store.sweep(now)).toEqual({ expired: 0, evicted: 2, bytes: 800 });
    const left = ['oldest-in-use', 'older', 'old', 'new'].filter((u) =>
      existsSync(join(data, 'logs', 'ns', u)),
    );
    expect(left).toEqual(['oldest-in-use', 'new']);
    // Within the bound nothing more goes.
    expect(await store.sweep(now)).toEqual({ expired: 0, evicted: 0, bytes: 800 });
  });
});
