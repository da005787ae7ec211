// Masking of secret values in a step's output stream: a value split across two chunks of the pipe
// is still found, since the end of each chunk that could begin a value waits for the next one.

export const MASK = '***';

export class Masker {
  private readonly needles: Buffer[];
  private readonly hold: number;
  private pending: Buffer = Buffer.alloc(0);

  constructor(values: string[]) {
    this.needles = values
      .filter((v) => v.length > 0)
      .map((v) => Buffer.from(v, 'utf8'))
      .sort((a, b) => b.length - a.length);
    this.hold = Math.max(0, ...this.needles.map((n) => n.length - 1));
  }

  get active(): boolean {
    return this.needles.length > 0;
  }

  /** The masked bytes that are certain now; a few may wait for the next chunk. */
  push(chunk: Buffer): Buffer {
    if (!this.active) return chunk;
    return this.scan(Buffer.concat([this.pending, chunk]), false);
  }

  /** The rest, at the end of the stream. */
  end(): Buffer {
    if (!this.active) return Buffer.alloc(0);
    return this.scan(this.pending, true);
  }

  private scan(data: Buffer, final: boolean): Buffer {
    // A value starting before `safe` lies wholly in `data`, so the longest match there is known.
    const safe = final ? data.length : data.length - this.hold;
    const out: Buffer[] = [];
    let from = 0;
    let emitted = 0;
    for (;;) {
      let at = -1;
      let len = 0;
      for (const n of this.needles) {
        const i = data.indexOf(n, from);
        // Needles are longest first: at one position the first found is the longest.
        if (i >= 0 && (at < 0 || i < at)) [at, len] = [i, n.length];
      }
      if (at < 0 || at >= safe) break;
      out.push(data.subarray(emitted, at), Buffer.from(MASK));
      emitted = from = at + len;
    }
    const keepFrom = Math.max(emitted, safe);
    out.push(data.subarray(emitted, keepFrom));
    this.pending = Buffer.from(data.subarray(keepFrom));
    return Buffer.concat(out);
  }

  /** A whole text at once (outputs, messages). */
  text(s: string): string {
    if (!this.active) return s;
    const m = new Masker(this.needles.map((n) => n.toString('utf8')));
    return Buffer.concat([m.push(Buffer.from(s, 'utf8')), m.end()]).toString('utf8');
  }
}
