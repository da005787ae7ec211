// Keys each due at a time, earliest first: one binary heap instead of one timer per key, which
// 10,000 finished runs waiting for their retention would otherwise hold (docs/benchmarks.md).
// A key given an earlier time keeps it (client-go's delaying queue does the same); the entry it
// replaces stays in the heap and is skipped when it comes up.
export class DueKeys {
  private readonly at: number[] = [];
  private readonly keys: string[] = [];
  /** key -> the time it is due; heap entries that disagree are stale. */
  private readonly due = new Map<string, number>();

  get size(): number {
    return this.due.size;
  }

  /** Schedules `key` at `at`, unless it is due sooner already. Returns whether anything changed. */
  schedule(key: string, at: number): boolean {
    const old = this.due.get(key);
    if (old !== undefined && old <= at) return false;
    this.due.set(key, at);
    this.push(at, key);
    return true;
  }

  /** When the earliest key is due, or undefined when none is. */
  next(): number | undefined {
    this.dropStale();
    return this.at[0];
  }

  /** Removes and returns the keys due at or before `now`, earliest first. */
  take(now: number): string[] {
    const out: string[] = [];
    for (;;) {
      this.dropStale();
      if (this.at.length === 0 || (this.at[0] as number) > now) return out;
      const key = this.keys[0] as string;
      this.pop();
      this.due.delete(key);
      out.push(key);
    }
  }

  clear(): void {
    this.at.length = 0;
    this.keys.length = 0;
    this.due.clear();
  }

  private dropStale(): void {
    while (this.at.length > 0 && this.due.get(this.keys[0] as string) !== this.at[0]) this.pop();
  }

  private push(at: number, key: string): void {
    let i = this.at.length;
    this.at.push(at);
    this.keys.push(key);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((this.at[parent] as number) <= at) break;
      this.move(parent, i);
      i = parent;
    }
    this.at[i] = at;
    this.keys[i] = key;
  }

  private pop(): void {
    const at = this.at.pop() as number;
    const key = this.keys.pop() as string;
    const n = this.at.length;
    if (n === 0) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && (this.at[right] as number) < (this.at[left] as number) ? right : left;
      if ((this.at[child] as number) >= at) break;
      this.move(child, i);
      i = child;
    }
    this.at[i] = at;
    this.keys[i] = key;
  }

  private move(from: number, to: number): void {
    this.at[to] = this.at[from] as number;
    this.keys[to] = this.keys[from] as string;
  }
}
