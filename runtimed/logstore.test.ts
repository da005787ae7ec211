import { existsSync, mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogStore } from './logstore.js';

describe('LogStore', () => {
  it('places each execution under logs/<namespace>/<uid>/<attempt>.log', () => {
    expect(new LogStore('/data', 1000).fileFor('ns', 'u-1', 2)).toBe('/data/logs/ns/u-1/2.log');
  });

  it('removes the folders of Runs not written for longer than the retention period', async () => {
    const data = mkdtempSync(join(tmpdir(), 'krt-logs-'));
    const store = new LogStore(data, 60_000);
    const now = Date.now();
    for (const [uid, ageMs] of [
      ['old', 120_000],
      ['fresh', 10_000],
    ] as const) {
      const dir = join(data, 'logs', 'ns', uid);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, '1.log'), 'x');
      const t = new Date(now - ageMs);
      utimesSync(dir, t, t);
    }
    expect(await store.sweep(now)).toBe(1);
    expect(existsSync(join(data, 'logs', 'ns', 'old'))).toBe(false);
    expect(existsSync(join(data, 'logs', 'ns', 'fresh', '1.log'))).toBe(true);
    expect(await new LogStore(join(data, 'none'), 1).sweep()).toBe(0);
  });
});
