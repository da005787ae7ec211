// A step's output as it streams: masked (Secret values never reach the disk or the Run), written to
// the log file up to its limit with a note when cut, and the last bytes kept for status.logTail.
import { createWriteStream, type WriteStream } from 'node:fs';
import { MAX_LOG_TAIL_BYTES } from '../src/limits.js';
import { logTail } from '../src/runtime/lifecycle.js';
import { Masker } from '../src/runtime/mask.js';
import { maskedValues } from '../src/runtime/secrets.js';

export class StepLog {
  private readonly file: WriteStream;
  private readonly tail: Buffer[] = [];
  private tailBytes = 0;
  private logged = 0;
  readonly masker: Masker;

  constructor(
    path: string,
    private readonly maxBytes: number,
    secrets: Record<string, string>,
  ) {
    this.file = createWriteStream(path, { flags: 'a' });
    // A log that cannot be written (a full disk) loses lines, not the step: logTail still has the end.
    this.file.on('error', () => undefined);
    this.masker = new Masker(maskedValues(secrets));
  }

  /** Raw output of the step, masked before it goes anywhere. */
  readonly data = (raw: Buffer): void => this.write(this.masker.push(raw));

  /** A line of runtimed's own (a note at the head of the log). */
  note(text: string): void {
    this.write(Buffer.from(`[runtimed: ${text}]\n`));
  }

  private write(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tail.length > 1 && this.tailBytes - (this.tail[0]?.length ?? 0) >= MAX_LOG_TAIL_BYTES)
      this.tailBytes -= this.tail.shift()?.length ?? 0;
    if (this.logged >= this.maxBytes) return;
    const room = this.maxBytes - this.logged;
    this.file.write(chunk.length > room ? chunk.subarray(0, room) : chunk);
    this.logged += chunk.length;
    if (this.logged >= this.maxBytes)
      this.file.write(`\n[runtimed: log truncated at ${this.maxBytes} bytes; status.logTail has the end]\n`);
  }

  /** Flushes what the masker held back and closes the file; returns the whole tail as text. */
  async end(): Promise<{ tail: string; raw: string }> {
    this.write(this.masker.end());
    await new Promise<void>((r) => this.file.end(r));
    const all = Buffer.concat(this.tail);
    return { tail: logTail(all), raw: all.toString('utf8') };
  }
}
