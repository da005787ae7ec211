// A de-duplicating, rate-limited work queue keyed by namespace/name (client-go's workqueue
// semantics): a key is processed by one worker at a time; a key added while it is processed is
// processed again afterwards; failures back off per key, exponentially.
import { DueKeys } from './due-keys.js';

export class WorkQueue {
  /** Keys waiting, in the order they came, from `head` on: an index, because shift() and a Set's
   * first key both slowed down with thousands of keys waiting (a relist of 10,000 runs). */
  private queue: string[] = [];
  private head = 0;
  private readonly queued = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly later = new DueKeys();
  /** One timer, for the earliest of `later`. */
  private timer: { handle: NodeJS.Timeout; at: number } | undefined;
  private waiters: (() => void)[] = [];
  private closed = false;

  constructor(
    private readonly baseDelayMs = 50,
    private readonly maxDelayMs = 60_000,
  ) {}

  get depth(): number {
    return this.queued.size;
  }

  /** Keys waiting for their time (addAfter, backoff). */
  get timed(): number {
    return this.later.size;
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
    if (this.later.schedule(key, Date.now() + ms)) this.arm();
  }

  /**
   * The key's one timed add from now on: after `ms`, or none, whatever it was. A reconcile's answer
   * is made from the whole state each time, so it replaces the timer an earlier answer asked for:
   * a run that ended keeps none.
   */
  reschedule(key: string, ms: number | undefined): void {
    if (this.closed) return;
    if (this.later.reschedule(key, ms === undefined ? undefined : Date.now() + ms)) this.arm();
  }

  /** Keeps the one timer set for the earliest timed add. */
  private arm(): void {
    const at = this.later.next();
    if (this.timer && this.timer.at === at) return;
    if (this.timer) clearTimeout(this.timer.handle);
    this.timer = undefined;
    if (at === undefined || this.closed) return;
    const handle = setTimeout(
      () => {
        this.timer = undefined;
        for (const key of this.later.take(Date.now())) this.add(key);
        this.arm();
      },
      // setTimeout takes at most 2^31-1 ms (a retention of weeks is longer): woken early, it sets again.
      Math.min(Math.max(0, at - Date.now()), 2 ** 31 - 1),
    );
    handle.unref();
    this.timer = { handle, at };
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
    while (this.queued.size === 0) {
      if (this.closed) return undefined;
      await new Promise<void>((r) => this.waiters.push(r));
    }
    const key = this.queue[this.head++] as string;
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
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
    if (this.timer) clearTimeout(this.timer.handle);
    this.timer = undefined;
    this.later.clear();
    this.waiters.forEach((w) => w());
    this.waiters = [];
  }
}
