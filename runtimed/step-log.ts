// A step's output as it streams: masked (Secret values never reach the disk or the Run), written to
// the log file up to its limit with a note when cut, and the last bytes kept for status.logTail.
import { Masker } from '../src/runtime/mask.js';
import { maskedValues } from '../src/runtime/secrets.js';
import { BoundedLog } from './bounded-log.js';

export class StepLog {
  private readonly log: BoundedLog;
  readonly masker: Masker;

  constructor(path: string, maxBytes: number, secrets: Record<string, string>) {
    this.log = new BoundedLog(path, maxBytes, 'a');
    this.masker = new Masker(maskedValues(secrets));
  }

  /** Raw output of the step, masked before it goes anywhere. */
  readonly data = (raw: Buffer): void => this.log.write(this.masker.push(raw));

  /** A line of runtimed's own (a note at the head of the log). */
  note(text: string): void {
    this.log.write(Buffer.from(`[runtimed: ${text}]\n`));
  }

  /** Flushes what the masker held back and closes the file; returns the whole tail as text. */
  async end(): Promise<{ tail: string; raw: string }> {
    this.log.write(this.masker.end());
    return this.log.end();
  }
}
