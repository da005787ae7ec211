// One instance of each repeated string of the cached objects. JSON.parse makes a new string for
// every value, so ten thousand cached Runs hold ten thousand copies of their apiVersion, kind,
// namespace, runtime and phase; a heap snapshot of the controller with 10,000 finished runs cached
// showed 28 MiB of strings, 17 MiB of it copies (docs/benchmarks.md, "Memory").
//
// The pool has two generations: a string seen again while in either is shared and kept; one seen
// once (a UID, a timestamp) ages out when the newer generation fills, so the pool stays bounded.
export class StringPool {
  private recent = new Map<string, string>();
  private older = new Map<string, string>();

  constructor(
    private readonly generation = 16_384,
    private readonly maxLength = 256,
  ) {}

  intern(s: string): string {
    if (s.length > this.maxLength) return s;
    const hit = this.recent.get(s);
    if (hit !== undefined) return hit;
    const old = this.older.get(s);
    const kept = old ?? s;
    this.recent.set(s, kept);
    if (this.recent.size >= this.generation) {
      this.older = this.recent;
      this.recent = new Map();
    }
    return kept;
  }

  /** Every string of a JSON value (objects, arrays) replaced by its pooled instance, in place. */
  internAll<T>(value: T): T {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const v: unknown = value[i];
        value[i] = typeof v === 'string' ? this.intern(v) : this.internAll(v);
      }
    } else if (value !== null && typeof value === 'object') {
      const o = value as Record<string, unknown>;
      for (const k of Object.keys(o)) {
        const v = o[k];
        if (typeof v === 'string') o[k] = this.intern(v);
        else if (v !== null && typeof v === 'object') this.internAll(v);
      }
    }
    return value;
  }

  get size(): number {
    return this.recent.size + this.older.size;
  }
}

/** The pool every informer of the process shares (a namespace is one string for all its objects). */
export const cachedStrings = new StringPool();
