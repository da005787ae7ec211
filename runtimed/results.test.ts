import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ResultStore, type PendingResult } from './results.js';

const result = (uid: string, attempts = 1): PendingResult => ({
  namespace: 'ns',
  name: `run-${uid}`,
  uid,
  attempts,
  status: { phase: 'Succeeded', outputs: { v: uid } },
});

describe('ResultStore', () => {
  it('keeps results across instances until removed, one file per execution', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'krt-results-')), 'agent');
    const store = new ResultStore(dir);
    expect(await store.list()).toEqual([]);
    await store.save(result('a'));
    await store.save(result('a', 2));
    await store.save(result('b'));
    const again = new ResultStore(dir);
    expect((await again.list()).map((r) => `${r.uid}-${r.attempts}`).sort()).toEqual(['a-1', 'a-2', 'b-1']);
    await again.remove(result('a'));
    expect((await store.list()).map((r) => `${r.uid}-${r.attempts}`).sort()).toEqual(['a-2', 'b-1']);
    expect((await store.list()).find((r) => r.uid === 'b')).toEqual(result('b'));
    expect(readdirSync(dir).every((f) => f.endsWith('.json'))).toBe(true);
  });

  it('drops a file it cannot read rather than failing the agent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'krt-results-'));
    writeFileSync(join(dir, 'x-1.json'), '{ half');
    const store = new ResultStore(dir);
    await store.save(result('ok'));
    expect((await store.list()).map((r) => r.uid)).toEqual(['ok']);
    expect(readdirSync(dir)).toEqual(['ok-1.json']);
  });
});
