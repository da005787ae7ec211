// Agents are visible (docs/design.md §3): each runtimed holds a Lease naming its identity, runtimes and
// namespaces. These pure functions read those Leases, so admission can warn about a runtime nobody
// serves and a waiting Run can say why it waits.
import {
  ANNOTATION_AGENT_LOG_URL,
  ANNOTATION_AGENT_NAMESPACES,
  ANNOTATION_AGENT_RUNTIMES,
  LABEL_AGENT,
} from '../labels.js';
import { boundedName } from '../names.js';

/** The namespace agents hold their Leases in unless told otherwise (the install's namespace). */
export const AGENT_LEASE_NAMESPACE = 'kruntimes-system';

/** The parts of a coordination.k8s.io/v1 Lease these functions read and write. */
export interface LeaseLike {
  metadata?: {
    name?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    creationTimestamp?: string | Date;
  };
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    renewTime?: string | Date;
  };
}

export interface AgentInfo {
  identity: string;
  runtimes: string[];
  /** Empty: every namespace. */
  namespaces: string[];
  /** When the Lease was last renewed, in ms since the epoch. */
  renewedAt: number;
  durationMs: number;
  /** Its log endpoint, where it advertises one. */
  logUrl?: string;
}

export function agentLeaseName(identity: string): string {
  return boundedName(`runtimed-${identity}`);
}

const list = (s: string | undefined) =>
  (s ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

/** The agent a Lease describes, or undefined for a Lease that is not an agent's. */
export function agentFromLease(lease: LeaseLike): AgentInfo | undefined {
  const m = lease.metadata;
  if (!m?.labels || !(LABEL_AGENT in m.labels)) return undefined;
  const renewed = lease.spec?.renewTime;
  return {
    identity: lease.spec?.holderIdentity ?? m.name ?? '',
    runtimes: list(m.annotations?.[ANNOTATION_AGENT_RUNTIMES]),
    namespaces: list(m.annotations?.[ANNOTATION_AGENT_NAMESPACES]),
    ...(m.annotations?.[ANNOTATION_AGENT_LOG_URL] ? { logUrl: m.annotations[ANNOTATION_AGENT_LOG_URL] } : {}),
    renewedAt: renewed === undefined ? NaN : new Date(renewed).getTime(),
    durationMs: (lease.spec?.leaseDurationSeconds ?? 0) * 1000,
  };
}

/** The Lease an agent holds, renewed at `now`. */
export function agentLease(
  a: Pick<AgentInfo, 'identity' | 'runtimes' | 'namespaces'> & { durationSeconds: number; logUrl?: string },
  now: Date,
): Required<Pick<LeaseLike, 'metadata' | 'spec'>> {
  return {
    metadata: {
      name: agentLeaseName(a.identity),
      labels: { [LABEL_AGENT]: 'runtimed' },
      annotations: {
        [ANNOTATION_AGENT_RUNTIMES]: a.runtimes.join(','),
        [ANNOTATION_AGENT_NAMESPACES]: a.namespaces.join(','),
        ...(a.logUrl ? { [ANNOTATION_AGENT_LOG_URL]: a.logUrl } : {}),
      },
    },
    spec: {
      holderIdentity: a.identity,
      leaseDurationSeconds: a.durationSeconds,
      renewTime: now.toISOString(),
    },
  };
}

/** Until when the agent counts as alive (its Lease renewed within its duration). */
export function liveUntil(a: AgentInfo): number {
  return Number.isFinite(a.renewedAt) ? a.renewedAt + a.durationMs : -Infinity;
}

export function isLive(a: AgentInfo, now: number): boolean {
  return liveUntil(a) > now;
}

export function servesRun(a: AgentInfo, runtime: string, namespace: string): boolean {
  return a.runtimes.includes(runtime) && (a.namespaces.length === 0 || a.namespaces.includes(namespace));
}

/**
 * Until when some live agent serves `runtime` in `namespace` (the latest of their Lease expiries),
 * or undefined when none does.
 */
export function servedUntil(
  agents: readonly AgentInfo[],
  runtime: string,
  namespace: string,
  now: number,
): number | undefined {
  let until: number | undefined;
  for (const a of agents)
    if (isLive(a, now) && servesRun(a, runtime, namespace)) until = Math.max(until ?? 0, liveUntil(a));
  return until;
}

/** The same, read straight from the Leases an informer holds (the webhook's and the controller's). */
export function servedUntilByLeases(
  leases: readonly LeaseLike[],
  runtime: string,
  namespace: string,
  now: number,
): number | undefined {
  return servedUntil(
    leases.flatMap((l) => agentFromLease(l) ?? []),
    runtime,
    namespace,
    now,
  );
}

/**
 * Whether a change of an agent's Lease changes who serves what: its runtimes, its namespaces or
 * whether it is live. A plain renewal of a live agent (every few seconds) changes nothing.
 */
export function servingChanged(old: LeaseLike, lease: LeaseLike, now: number): boolean {
  const a = agentFromLease(old);
  const b = agentFromLease(lease);
  if (!a || !b) return a !== b;
  return (
    a.runtimes.join() !== b.runtimes.join() ||
    a.namespaces.join() !== b.namespaces.join() ||
    isLive(a, now) !== isLive(b, now)
  );
}

export const NO_AGENT = 'NoAgent';

export function noAgentMessage(runtime: string, namespace: string): string {
  return `no runtimed serves runtime "${runtime}" in namespace "${namespace}"`;
}
