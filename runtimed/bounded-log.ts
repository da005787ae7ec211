// A step's log as runtimed keeps it, for both runtimes: the file up to its limit, with a note where
// it was cut, and the last MAX_LOG_TAIL_BYTES in memory for status.logTail. What goes in is masked
// already (the callers' Masker).
import { createWriteStream, type WriteStream } from 'node:fs';
import { MAX_LOG_TAIL_BYTES } from '../src/limits.js';
import { logTail } from '../src/runtime/lifecycle.js';

export class BoundedLog {
  private file: WriteStream;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private logged = 0;

  constructor(
    private readonly path: string,
    private readonly maxBytes: number,
    flags: 'a' | 'w',
  ) {
    this.file = this.open(flags);
  }

  /** Starts again from nothing: the file emptied, the tail dropped (a log read again whole). */
  restart(): void {
    this.file.destroy();
    this.file = this.open('w');
    this.tail = [];
    this.tailBytes = 0;
    this.logged = 0;
  }

  write(chunk: Buffer): void {
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

  /** Closes the file; returns the tail for status.logTail and the whole of it as text. */
  async end(): Promise<{ tail: string; raw: string }> {
    await new Promise<void>((r) => this.file.end(r));
    const all = Buffer.concat(this.tail);
    return { tail: logTail(all), raw: all.toString('utf8') };
  }

  private open(flags: 'a' | 'w'): WriteStream {
    // A log that cannot be written (a full disk) loses lines, not the step: the tail still has the end.
    return createWriteStream(this.path, { flags }).on('error', () => undefined);
  }
}
