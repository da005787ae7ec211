// One instance of each repeated value of the cached objects. JSON.parse makes a new string for
// every value, so ten thousand cached Runs hold ten thousand copies of their apiVersion, kind,
// namespace, runtime and phase; a heap snapshot of the controller with 10,000 finished runs cached
// showed 28 MiB of strings, 17 MiB of it copies (docs/benchmarks.md, "Memory"). The same holds for
// the small objects finished runs repeat: a Run's spec `{runtime}`, a WorkflowRun's jobs.
//
// Each pool has two generations: a value seen again while in either is shared and kept; one seen
// once (a UID, a timestamp) ages out when the newer generation fills, so the pool stays bounded.
class Generations<V> {
  private recent = new Map<string, V>();
  private older = new Map<string, V>();

  constructor(private readonly generation: number) {}

  /** The value kept under `key`, or `value`, kept from now on. */
  keep(key: string, value: V): V {
    const hit = this.recent.get(key);
    if (hit !== undefined) return hit;
    const kept = this.older.get(key) ?? value;
    this.recent.set(key, kept);
    if (this.recent.size >= this.generation) {
      this.older = this.recent;
      this.recent = new Map();
    }
    return kept;
  }

  get size(): number {
    return this.recent.size + this.older.size;
  }
}

export class StringPool {
  private readonly kept: Generations<string>;

  constructor(
    generation = 16_384,
    private readonly maxLength = 256,
  ) {
    this.kept = new Generations(generation);
  }

  intern(s: string): string {
    return s.length > this.maxLength ? s : this.kept.keep(s, s);
  }

  /**
   * Every string of a JSON value (objects, arrays) replaced by its pooled instance, in place. A
   * frozen object is a shared one (ValuePool) and is left as it is.
   */
  internAll<T>(value: T): T {
    if (Array.isArray(value)) {
      if (Object.isFrozen(value)) return value;
      for (let i = 0; i < value.length; i++) {
        const v: unknown = value[i];
        value[i] = typeof v === 'string' ? this.intern(v) : this.internAll(v);
      }
    } else if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
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
    return this.kept.size;
  }
}

/**
 * One frozen instance of each repeated small JSON value, compared by its JSON text. Only what
 * repeats across objects is worth asking for: a value seen once costs its text here until it ages
 * out, so the generations are small.
 */
export class ValuePool {
  private readonly kept: Generations<object>;

  constructor(
    generation = 512,
    private readonly maxLength = 1024,
  ) {
    this.kept = new Generations(generation);
  }

  share<T extends object>(value: T): T {
    const text = JSON.stringify(value);
    if (text.length > this.maxLength) return value;
    const kept = this.kept.keep(text, value);
    if (kept === value) deepFreeze(value);
    return kept as T;
  }

  get size(): number {
    return this.kept.size;
  }
}

function deepFreeze(value: object): void {
  for (const v of Object.values(value)) if (v !== null && typeof v === 'object') deepFreeze(v);
  Object.freeze(value);
}

/** The pools every informer of the process shares (a namespace is one string for all its objects). */
export const cachedStrings = new StringPool();
export const cachedValues = new ValuePool();
