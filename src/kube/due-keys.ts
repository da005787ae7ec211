// Keys each due at a time, earliest first: one binary heap instead of one timer per key, which
// 10,000 finished runs waiting for their retention would otherwise hold (docs/benchmarks.md).
// Each key has one entry, found through its position: a key given a new time, or none, is moved or
// removed at once, so a run that no longer needs its timer holds nothing here.
export class DueKeys {
  private readonly at: number[] = [];
  private readonly keys: string[] = [];
  /** key -> its entry's index in the heap. */
  private readonly pos = new Map<string, number>();

  get size(): number {
    return this.pos.size;
  }

  /**
   * Schedules `key` at `at`, unless it is due sooner already (client-go's delaying queue keeps the
   * earlier time too). Returns whether anything changed.
   */
  schedule(key: string, at: number): boolean {
    const i = this.pos.get(key);
    if (i !== undefined && (this.at[i] as number) <= at) return false;
    return this.reschedule(key, at);
  }

  /** Gives `key` this time whatever it had, or takes it out (`undefined`). Returns whether anything changed. */
  reschedule(key: string, at: number | undefined): boolean {
    const i = this.pos.get(key);
    if (i === undefined) {
      if (at === undefined) return false;
      this.at.push(at);
      this.keys.push(key);
      this.up(this.at.length - 1);
      return true;
    }
    if (at === this.at[i]) return false;
    if (at === undefined) {
      this.remove(i);
      return true;
    }
    const was = this.at[i] as number;
    this.at[i] = at;
    if (at < was) this.up(i);
    else this.down(i);
    return true;
  }

  /** When the earliest key is due, or undefined when none is. */
  next(): number | undefined {
    return this.at[0];
  }

  /** Removes and returns the keys due at or before `now`, earliest first. */
  take(now: number): string[] {
    const out: string[] = [];
    while (this.at.length > 0 && (this.at[0] as number) <= now) {
      out.push(this.keys[0] as string);
      this.remove(0);
    }
    return out;
  }

  clear(): void {
    this.at.length = 0;
    this.keys.length = 0;
    this.pos.clear();
  }

  private remove(i: number): void {
    this.pos.delete(this.keys[i] as string);
    const at = this.at.pop() as number;
    const key = this.keys.pop() as string;
    if (i === this.at.length) return;
    // The last entry fills the hole, then finds its place one way or the other.
    this.place(i, at, key);
    this.up(i);
    this.down(i);
  }

  private up(i: number): void {
    const at = this.at[i] as number;
    const key = this.keys[i] as string;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((this.at[parent] as number) <= at) break;
      this.place(i, this.at[parent] as number, this.keys[parent] as string);
      i = parent;
    }
    this.place(i, at, key);
  }

  private down(i: number): void {
    const at = this.at[i] as number;
    const key = this.keys[i] as string;
    const n = this.at.length;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && (this.at[right] as number) < (this.at[left] as number) ? right : left;
      if ((this.at[child] as number) >= at) break;
      this.place(i, this.at[child] as number, this.keys[child] as string);
      i = child;
    }
    this.place(i, at, key);
  }

  private place(i: number, at: number, key: string): void {
    this.at[i] = at;
    this.keys[i] = key;
    this.pos.set(key, i);
  }
}
