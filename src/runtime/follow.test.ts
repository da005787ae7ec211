import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { followFile } from './follow.js';

const dir = mkdtempSync(join(tmpdir(), 'krt-follow-'));

describe('followFile', () => {
  it('copies what is there and returns at once when not following', async () => {
    const f = join(dir, 'a.log');
    writeFileSync(f, 'one\ntwo\n');
    const out: string[] = [];
    expect(
      await followFile(f, { follow: false, ended: () => false, write: (c) => out.push(c.toString()) }),
    ).toBe(true);
    expect(out.join('')).toBe('one\ntwo\n');
  });

  it('keeps reading appended bytes until the execution ended, including the last ones', async () => {
    const f = join(dir, 'b.log');
    writeFileSync(f, 'start\n');
    let ended = false;
    const out: string[] = [];
    const done = followFile(f, {
      follow: true,
      ended: () => ended,
      write: (c) => out.push(c.toString()),
      pollMs: 10,
    });
    await until(() => out.join('') === 'start\n');
    appendFileSync(f, 'middle\n');
    await until(() => out.join('') === 'start\nmiddle\n');
    // Written just before the end is seen: still delivered.
    appendFileSync(f, 'last\n');
    ended = true;
    expect(await done).toBe(true);
    expect(out.join('')).toBe('start\nmiddle\nlast\n');
  });

  it('stops when the reader went away', async () => {
    const f = join(dir, 'c.log');
    writeFileSync(f, 'x');
    let gone = false;
    const done = followFile(f, {
      follow: true,
      ended: () => false,
      aborted: () => gone,
      write: () => undefined,
      pollMs: 10,
    });
    gone = true;
    expect(await done).toBe(true);
  });

  it('is false for a file that does not exist', async () => {
    expect(
      await followFile(join(dir, 'missing'), { follow: true, ended: () => true, write: () => undefined }),
    ).toBe(false);
  });
});

/** Waits until `check` holds, looking every 5 ms; a test's own timeout bounds it. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 5));
}
