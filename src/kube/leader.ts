// Leader election with a coordination.k8s.io Lease, as client-go's leaderelection does it, so two
// controller replicas never both act: acquire when the lease is free or expired, renew every
// retry period, and give up (the process exits) when renewal fails past the renew deadline.
import type * as k8s from '@kubernetes/client-node';
import { log } from '../telemetry/log.js';
import { HttpError, rawJson } from './raw.js';

export interface LeaderOptions {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationSeconds?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
}

interface Lease {
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
  private readonly o: Required<LeaderOptions>;

  constructor(
    private readonly kc: k8s.KubeConfig,
    opts: LeaderOptions,
  ) {
    this.o = { leaseDurationSeconds: 15, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, ...opts };
  }

  isLeader(): boolean {
    return this.leading;
  }

  private get path(): string {
    return `/apis/coordination.k8s.io/v1/namespaces/${this.o.namespace}/leases`;
  }

  /** One attempt: true when this identity holds the lease afterwards. */
  async tryAcquireOrRenew(now = new Date()): Promise<boolean> {
    let lease: Lease | undefined;
    try {
      lease = (await rawJson(this.kc, 'GET', `${this.path}/${this.o.name}`)) as Lease;
    } catch (e) {
      if (!(e instanceof HttpError && e.code === 404)) throw e;
    }
    const spec = {
      holderIdentity: this.o.identity,
      leaseDurationSeconds: this.o.leaseDurationSeconds,
      renewTime: microTime(now),
    };
    if (!lease) {
      await rawJson(this.kc, 'POST', this.path, {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: this.o.name, namespace: this.o.namespace },
        spec: { ...spec, acquireTime: microTime(now), leaseTransitions: 0 },
      });
      return true;
    }
    const holder = lease.spec.holderIdentity;
    const renewed = Date.parse(lease.spec.renewTime ?? '') || 0;
    const expired =
      now.getTime() > renewed + (lease.spec.leaseDurationSeconds ?? this.o.leaseDurationSeconds) * 1000;
    if (holder && holder !== this.o.identity && !expired) return false;
    const takeover = holder !== this.o.identity;
    // The resourceVersion makes this a compare-and-swap: of two candidates, one gets a conflict.
    await rawJson(this.kc, 'PUT', `${this.path}/${this.o.name}`, {
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
      let held = false;
      try {
        held = await this.tryAcquireOrRenew();
      } catch (e) {
        log.debug({ err: String(e) }, 'lease attempt failed');
      }
      const now = Date.now();
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
      } else if (this.leading && now - lastRenew > this.o.renewDeadlineMs) {
        this.leading = false;
        log.error({ identity: this.o.identity }, 'lost the lease');
        onLost();
        return;
      }
      await new Promise((r) => setTimeout(r, this.o.retryPeriodMs));
    }
  }

  /** Stops campaigning and, when leading, frees the lease so a successor need not wait for it to expire. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (!this.leading) return;
    this.leading = false;
    try {
      const lease = (await rawJson(this.kc, 'GET', `${this.path}/${this.o.name}`)) as Lease;
      if (lease.spec.holderIdentity !== this.o.identity) return;
      await rawJson(this.kc, 'PUT', `${this.path}/${this.o.name}`, {
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
