// A de-duplicating, rate-limited work queue keyed by namespace/name (client-go's workqueue
// semantics): a key is processed by one worker at a time; a key added while it is processed is
// processed again afterwards; failures back off per key, exponentially.
export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, { timer: NodeJS.Timeout; at: number }>();
  private waiters: (() => void)[] = [];
  private closed = false;

  constructor(
    private readonly baseDelayMs = 50,
    private readonly maxDelayMs = 60_000,
  ) {}

  get depth(): number {
    return this.queue.length;
  }

  add(key: string): void {
    if (this.closed) return;
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.queue.push(key);
    this.waiters.shift()?.();
  }

  /** Adds the key after `ms`; of several timed adds of one key, the earliest wins (as client-go's). */
  addAfter(key: string, ms: number): void {
    if (this.closed) return;
    const at = Date.now() + ms;
    const old = this.timers.get(key);
    if (old && old.at <= at) return;
    if (old) clearTimeout(old.timer);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, ms);
    timer.unref();
    this.timers.set(key, { timer, at });
  }

  /** Requeue after a failure, waiting longer each time the same key fails. */
  addRateLimited(key: string): void {
    const n = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, n);
    this.addAfter(key, Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (n - 1)));
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  /** The next key, or undefined once the queue is shut down. */
  async get(): Promise<string | undefined> {
    while (this.queue.length === 0) {
      if (this.closed) return undefined;
      await new Promise<void>((r) => this.waiters.push(r));
    }
    const key = this.queue.shift() as string;
    this.queued.delete(key);
    this.processing.add(key);
    return key;
  }

  done(key: string): void {
    this.processing.delete(key);
    if (this.dirty.delete(key)) this.add(key);
  }

  shutdown(): void {
    this.closed = true;
    for (const t of this.timers.values()) clearTimeout(t.timer);
    this.waiters.forEach((w) => w());
    this.waiters = [];
  }
}
