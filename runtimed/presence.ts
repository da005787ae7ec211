// The Lease that makes this agent visible (docs/design.md §3): its identity, runtimes and namespaces,
// renewed while it runs and deleted when it stops, so admission can warn about a runtime nobody
// serves and the controller can say why a Run waits. A killed agent's Lease simply expires.
import { microTime } from '../src/kube/leader.js';
import { leases, statusCode, type KubeClient } from '../src/kube/rest.js';
import { agentLease, agentLeaseName } from '../src/runtime/agents.js';
import { log } from '../src/telemetry/log.js';

export interface PresenceOptions {
  namespace: string;
  identity: string;
  runtimes: string[];
  namespaces: string[];
  durationSeconds: number;
  /** Its log endpoint as other agents reach it (--advertise-url). */
  logUrl?: string;
}

type Lease = { metadata?: object; spec?: object };

export class Presence {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly kube: KubeClient,
    private readonly opts: PresenceOptions,
  ) {}

  private get lease() {
    return { ...leases(this.opts.namespace), name: agentLeaseName(this.opts.identity) };
  }

  /** Writes the Lease now, then renews it every third of its duration. */
  async start(): Promise<void> {
    await this.renew();
    this.timer = setInterval(() => void this.renew(), (this.opts.durationSeconds * 1000) / 3);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.kube
      .delete(this.lease)
      .catch((e: unknown) => log.warn({ err: String(e) }, 'could not delete the agent Lease'));
  }

  /** The Lease as last written (its resourceVersion), so a renewal is one request, not a read and a write. */
  private last: Lease | undefined;

  private async renew(): Promise<void> {
    const now = new Date();
    const want = agentLease(this.opts, now);
    const { lease } = this;
    const write = (have: Lease | undefined) => {
      const body = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { ...have?.metadata, ...want.metadata, namespace: this.opts.namespace },
        spec: { ...have?.spec, ...want.spec, renewTime: microTime(now) },
      };
      return have
        ? this.kube.replace<Lease>(lease, body)
        : this.kube.create<Lease>(leases(this.opts.namespace), body);
    };
    try {
      try {
        this.last = await write(this.last);
      } catch (e) {
        // It exists already (a restarted agent's create), changed, or went meanwhile: read, write again.
        if (statusCode(e) !== 404 && statusCode(e) !== 409) throw e;
        const have = await this.kube.get<Lease>(lease).catch((err: unknown) => {
          if (statusCode(err) === 404) return undefined;
          throw err;
        });
        this.last = await write(have);
      }
    } catch (e) {
      this.last = undefined;
      // The next renewal tries again; a Lease left to expire only makes this agent look absent.
      log.warn(
        { err: String(e), lease: `${this.opts.namespace}/${lease.name}` },
        'could not renew the agent Lease',
      );
    }
  }
}
