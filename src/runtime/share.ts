// Sharing Runs between agents without a coordinator: rendezvous hashing over the agents seen
// recently (their identities in status.assignedTo). The preferred agent claims a new Run at once;
// the others wait a little and claim it only if it is still waiting (the preferred one is busy or
// gone). Claims stay optimistic, so this only saves the writes of lost races; it never decides
// correctness.
import { createHash } from 'node:crypto';

function score(uid: string, agent: string): bigint {
  return createHash('sha256').update(uid).update('\0').update(agent).digest().readBigUInt64BE(0);
}

/** The agent that should claim the Run first: the highest score of uid and identity. */
export function preferredAgent(uid: string, agents: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestScore = -1n;
  for (const a of agents) {
    const s = score(uid, a);
    if (s > bestScore || (s === bestScore && best !== undefined && a < best)) {
      best = a;
      bestScore = s;
    }
  }
  return best;
}

/** Identities seen claiming within the window, so a stopped agent soon gets no preference. */
export class PeerSet {
  private readonly seen = new Map<string, number>();
  constructor(
    readonly self: string,
    private readonly windowMs: number,
  ) {}

  saw(identity: string, at: number): void {
    if ((this.seen.get(identity) ?? 0) < at) this.seen.set(identity, at);
  }

  live(now: number): string[] {
    const out = [this.self];
    for (const [id, at] of this.seen) {
      if (id === this.self) continue;
      if (now - at <= this.windowMs) out.push(id);
      else this.seen.delete(id);
    }
    return out;
  }
}
