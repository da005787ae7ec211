// Leader election with a coordination.k8s.io Lease, as client-go's leaderelection does it, so two
// controller replicas never both act: acquire when the lease is free or expired, renew every
// retry period, and give up (the process exits) when renewal fails past the renew deadline.
import type { KubeAccess } from './access.js';
import { log } from '../telemetry/log.js';
import { HttpError, rawJson } from './raw.js';

export interface LeaderOptions {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationSeconds?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** Told after each attempt to take or renew the Lease (for a metric). */
  onAttempt?: (result: 'held' | 'held-by-other' | 'error') => void;
  /** Reads and writes the Lease; the API server's by default, a stub in unit tests. */
  store?: LeaseStore;
  /** A monotonic clock in ms (performance.now() by default); injected in unit tests. */
  monotonic?: () => number;
  /** Resolves after `ms` on that clock (setTimeout by default); injected in unit tests. */
  after?: (ms: number) => Promise<void>;
}

/** The three calls election makes on its Lease. */
export interface LeaseStore {
  get(): Promise<Lease | undefined>;
  create(lease: Lease): Promise<void>;
  /** A compare-and-swap on metadata.resourceVersion: a conflict throws. */
  replace(lease: Lease): Promise<void>;
}

export interface Lease {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

/** RFC 3339 with microseconds, the MicroTime format the API server parses. */
export function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export class LeaderElector {
  private leading = false;
  private stopped = false;
  private readonly o: Required<Omit<LeaderOptions, 'onAttempt' | 'store' | 'monotonic' | 'after'>> &
    Pick<LeaderOptions, 'onAttempt'>;
  private readonly store: LeaseStore;
  private readonly monotonic: () => number;
  private readonly after: (ms: number) => Promise<void>;
  /** The Lease record as last seen, and when (on the monotonic clock) it was seen to change. */
  private observed: { record: string; at: number } | undefined;

  constructor(kc: KubeAccess, opts: LeaderOptions) {
    this.o = { leaseDurationSeconds: 15, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, ...opts };
    this.monotonic = opts.monotonic ?? (() => performance.now());
    this.after = opts.after ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    // Each request is bounded by the renew deadline; the whole attempt is bounded again in run().
    const timeoutMs = this.o.renewDeadlineMs;
    const path = `/apis/coordination.k8s.io/v1/namespaces/${opts.namespace}/leases`;
    this.store = opts.store ?? {
      get: async () => {
        try {
          return (await rawJson(kc, 'GET', `${path}/${opts.name}`, { timeoutMs })) as Lease;
        } catch (e) {
          if (e instanceof HttpError && e.code === 404) return undefined;
          throw e;
        }
      },
      create: async (lease) => void (await rawJson(kc, 'POST', path, { body: lease, timeoutMs })),
      replace: async (lease) =>
        void (await rawJson(kc, 'PUT', `${path}/${opts.name}`, { body: lease, timeoutMs })),
    };
  }

  isLeader(): boolean {
    return this.leading;
  }

  /** One attempt: true when this identity holds the lease afterwards. */
  async tryAcquireOrRenew(now = new Date()): Promise<boolean> {
    const lease = await this.store.get();
    const spec = {
      holderIdentity: this.o.identity,
      leaseDurationSeconds: this.o.leaseDurationSeconds,
      renewTime: microTime(now),
    };
    if (!lease) {
      await this.store.create({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: this.o.name, namespace: this.o.namespace },
        spec: { ...spec, acquireTime: microTime(now), leaseTransitions: 0 },
      });
      return true;
    }
    const holder = lease.spec.holderIdentity;
    // As client-go: expiry is measured on this process's monotonic clock from when it saw the
    // record change, never by comparing the holder's renewTime with this machine's wall clock.
    const record = JSON.stringify([holder, lease.spec.renewTime, lease.spec.leaseTransitions]);
    const seenAt = this.monotonic();
    if (this.observed?.record !== record) this.observed = { record, at: seenAt };
    const released = !holder;
    const expired =
      released ||
      seenAt >= this.observed.at + (lease.spec.leaseDurationSeconds ?? this.o.leaseDurationSeconds) * 1000;
    if (holder && holder !== this.o.identity && !expired) return false;
    const takeover = holder !== this.o.identity;
    // The resourceVersion makes this a compare-and-swap: of two candidates, one gets a conflict.
    await this.store.replace({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { ...lease.metadata },
      spec: {
        ...lease.spec,
        ...spec,
        ...(takeover
          ? { acquireTime: microTime(now), leaseTransitions: (lease.spec.leaseTransitions ?? 0) + 1 }
          : {}),
      },
    });
    return true;
  }

  /** Campaigns until it leads, then renews; calls onLost (and stops) when it cannot renew in time. */
  async run(onStarted: () => void, onLost: () => void): Promise<void> {
    let lastRenew = 0;
    while (!this.stopped) {
      const started = this.monotonic();
      // One bound over the whole attempt (its get and its replace): while leading, it ends by the
      // renew deadline, strictly inside the lease, so a stalled API server cannot keep this replica
      // acting once another may have taken over.
      const budget = this.leading ? lastRenew + this.o.renewDeadlineMs - started : this.o.renewDeadlineMs;
      const held = await this.attempt(Math.max(0, budget));
      const now = this.monotonic();
      if (held) {
        lastRenew = now;
        if (!this.leading) {
          this.leading = true;
          log.info(
            { identity: this.o.identity, lease: `${this.o.namespace}/${this.o.name}` },
            'became leader',
          );
          onStarted();
        }
      } else if (this.leading && now - lastRenew >= this.o.renewDeadlineMs) {
        this.leading = false;
        log.error({ identity: this.o.identity }, 'lost the lease');
        onLost();
        return;
      }
      await this.after(this.o.retryPeriodMs);
    }
  }

  /** One attempt within `budgetMs`: false when it failed, was refused or ran out of time. */
  private async attempt(budgetMs: number): Promise<boolean> {
    try {
      const held = await Promise.race([
        this.tryAcquireOrRenew(),
        this.after(budgetMs).then(() => 'timeout' as const),
      ]);
      if (held === 'timeout') {
        this.o.onAttempt?.('error');
        log.warn({ budgetMs }, 'lease attempt did not end in time');
        return false;
      }
      this.o.onAttempt?.(held ? 'held' : 'held-by-other');
      return held;
    } catch (e) {
      this.o.onAttempt?.('error');
      log.debug({ err: String(e) }, 'lease attempt failed');
      return false;
    }
  }

  /** Stops campaigning and, when leading, frees the lease so a successor need not wait for it to expire. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (!this.leading) return;
    this.leading = false;
    try {
      const lease = await this.store.get();
      if (!lease || lease.spec.holderIdentity !== this.o.identity) return;
      await this.store.replace({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: lease.metadata,
        spec: { ...lease.spec, holderIdentity: '', renewTime: microTime(new Date(0)) },
      });
      log.info({ identity: this.o.identity }, 'released the lease');
    } catch (e) {
      log.warn({ err: String(e) }, 'could not release the lease; it expires on its own');
    }
  }
}
