// How many bash steps an agent may run at once without its own memory running out. A step's /tmp
// and workspace are tmpfs: what a step writes there is memory, charged to the agent's container,
// so steps that each fill their scratch area could together get the whole agent OOM-killed (and
// every step it runs re-queued). The scratch areas of all concurrent steps, with a reserve for the
// agent itself, must fit in the agent's memory: then a full scratch area fails only its own step
// (ENOSPC), whatever the others do.

/** What the agent keeps for itself (Node.js, the informers, the log writers). */
export const AGENT_RESERVE_BYTES = 256 * 1024 ** 2;

export interface Capacity {
  concurrency: number;
  /** Set when memory, not the requested figure, decided it. */
  limitedBy?: 'memory';
}

export function stepCapacity(o: {
  requested: number;
  /** The agent's memory limit, when it has one. */
  memoryBytes?: number;
  /** Bytes of each of a step's two tmpfs (workspace and /tmp). */
  workspaceBytes: number;
}): Capacity | { error: string } {
  if (o.memoryBytes === undefined) return { concurrency: o.requested };
  const perStep = 2 * o.workspaceBytes;
  const fits = Math.floor((o.memoryBytes - AGENT_RESERVE_BYTES) / perStep);
  if (fits < 1)
    return {
      error: `a step's workspace and /tmp (${mib(perStep)} MiB together) do not fit in ${mib(o.memoryBytes)} MiB of memory beside the agent's own ${mib(AGENT_RESERVE_BYTES)} MiB: give the agent more memory or its steps a smaller --step-max-workspace-mb`,
    };
  return fits < o.requested ? { concurrency: fits, limitedBy: 'memory' } : { concurrency: o.requested };
}

const mib = (bytes: number) => Math.round(bytes / 1024 ** 2);
