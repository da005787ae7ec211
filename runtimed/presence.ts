// The Lease that makes this agent visible (docs/design.md §3): its identity, runtimes and namespaces,
// renewed while it runs and deleted when it stops, so admission can warn about a runtime nobody
// serves and the controller can say why a Run waits. A killed agent's Lease simply expires.
import type * as k8s from '@kubernetes/client-node';
import { microTime } from '../src/kube/leader.js';
import { HttpError, rawJson } from '../src/kube/raw.js';
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

export class Presence {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly kc: k8s.KubeConfig,
    private readonly opts: PresenceOptions,
  ) {}

  private get path(): string {
    return `/apis/coordination.k8s.io/v1/namespaces/${this.opts.namespace}/leases`;
  }

  /** Writes the Lease now, then renews it every third of its duration. */
  async start(): Promise<void> {
    await this.renew();
    this.timer = setInterval(() => void this.renew(), (this.opts.durationSeconds * 1000) / 3);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await rawJson(this.kc, 'DELETE', `${this.path}/${agentLeaseName(this.opts.identity)}`).catch(
      (e: unknown) => log.warn({ err: String(e) }, 'could not delete the agent Lease'),
    );
  }

  /** The Lease as last written (its resourceVersion), so a renewal is one request, not a read and a write. */
  private last: { metadata?: object; spec?: object } | undefined;

  private async renew(): Promise<void> {
    const now = new Date();
    const want = agentLease(this.opts, now);
    const name = want.metadata.name;
    const write = (have: { metadata?: object; spec?: object } | undefined) => {
      const body = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { ...have?.metadata, ...want.metadata, namespace: this.opts.namespace },
        spec: { ...have?.spec, ...want.spec, renewTime: microTime(now) },
      };
      return have
        ? rawJson(this.kc, 'PUT', `${this.path}/${name}`, body)
        : rawJson(this.kc, 'POST', this.path, body);
    };
    try {
      try {
        this.last = (await write(this.last)) as typeof this.last;
      } catch (e) {
        // It exists already (a restarted agent's create), changed, or went meanwhile: read, write again.
        if (!(e instanceof HttpError && (e.code === 404 || e.code === 409))) throw e;
        const have = (await rawJson(this.kc, 'GET', `${this.path}/${name}`).catch((err: unknown) => {
          if (err instanceof HttpError && err.code === 404) return undefined;
          throw err;
        })) as typeof this.last;
        this.last = (await write(have)) as typeof this.last;
      }
    } catch (e) {
      this.last = undefined;
      // The next renewal tries again; a Lease left to expire only makes this agent look absent.
      log.warn(
        { err: String(e), lease: `${this.opts.namespace}/${name}` },
        'could not renew the agent Lease',
      );
    }
  }
}
