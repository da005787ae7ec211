// The one state object of an agent: what it runs, claims, defers and reports now. Nothing here
// outlives the process: a restarted agent rebuilds it from the Runs' status and the results on disk.
import type { Run } from '../src/api/types.js';
import type { RunningStep } from './launcher-client.js';

export interface Active {
  exec: RunningStep;
  /** Its step goes on without this agent (a Pod). */
  outlives: boolean;
  run: Run;
  attempts: number;
  /** Another agent or a re-queue took the Run: stop without reporting. */
  lost: boolean;
  /** The end is being reported: no more heartbeats. */
  ending: boolean;
  /** Last time this agent wrote heartbeatTime (the claim writes the first). */
  beat: number;
  /** When the last heartbeat the API server confirmed was sent (the claim counts as one). */
  confirmed: number;
  /** The wait of the step last written into the Run's message. */
  shownWaiting?: string | undefined;
}

export const keyOf = (namespace: string, name: string) => `${namespace}/${name}`;
export const key = (r: Run) => keyOf(r.metadata.namespace ?? '', r.metadata.name ?? '');

export class AgentState {
  readonly active = new Map<string, Active>();
  readonly claiming = new Set<string>();
  /** Runs left to their preferred agent for now. */
  readonly deferred = new Set<string>();
  /** When this agent first saw each waiting Run. */
  readonly firstSeen = new Map<string, number>();
  /** When (performance.now()) this agent last saw each Run change: staleness on its own clock. */
  readonly lastChange = new Map<string, number>();
  /** Runs whose result this agent holds and is reporting: never re-queued by it. */
  readonly reporting = new Set<string>();
  accepting = false;
  stopping = false;
}
