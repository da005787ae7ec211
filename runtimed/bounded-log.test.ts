import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_LOG_TAIL_BYTES } from '../src/limits.js';
import { BoundedLog } from './bounded-log.js';

const file = () => join(mkdtempSync(join(tmpdir(), 'krt-log-')), 'step.log');

describe('BoundedLog', () => {
  it('writes the file up to its limit with a note where it was cut, and keeps the end for the tail', async () => {
    const path = file();
    const log = new BoundedLog(path, 10, 'w');
    log.write(Buffer.from('0123456'));
    log.write(Buffer.from('789abcdef'));
    log.write(Buffer.from('after'));
    const { raw } = await log.end();
    expect(readFileSync(path, 'utf8')).toBe(
      '0123456789\n[runtimed: log truncated at 10 bytes; status.logTail has the end]\n',
    );
    expect(raw).toBe('0123456789abcdefafter');
  });

  it('keeps only about the last MAX_LOG_TAIL_BYTES in memory', async () => {
    const log = new BoundedLog(file(), 1 << 20, 'w');
    for (let i = 0; i < 100; i++) log.write(Buffer.from(`${String(i).padStart(3, '0')}${'x'.repeat(1021)}`));
    const { raw, tail } = await log.end();
    expect(raw.length).toBeLessThanOrEqual(MAX_LOG_TAIL_BYTES + 1024);
    expect(raw.endsWith('x')).toBe(true);
    expect(tail.length).toBeLessThanOrEqual(MAX_LOG_TAIL_BYTES);
  });

  it('starts again from nothing when the log is read again whole', async () => {
    const path = file();
    const log = new BoundedLog(path, 100, 'w');
    log.write(Buffer.from('partial'));
    log.restart();
    log.write(Buffer.from('whole log'));
    const { raw } = await log.end();
    expect(raw).toBe('whole log');
    expect(readFileSync(path, 'utf8')).toBe('whole log');
  });

  it('appends to a file that has lines already', async () => {
    const path = file();
    const first = new BoundedLog(path, 100, 'w');
    first.write(Buffer.from('one\n'));
    await first.end();
    const second = new BoundedLog(path, 100, 'a');
    second.write(Buffer.from('two\n'));
    await second.end();
    expect(readFileSync(path, 'utf8')).toBe('one\ntwo\n');
  });
});
