// What the agent asks of whatever runs a claimed Run's step: a process in the sandbox
// (process-executor.ts) or a Pod (pod-executor.ts). The agent claims, heartbeats, re-queues and
// reports alike for both; only this differs.
import type { Run } from '../src/api/types.js';
import type { RunningStep } from './launcher-client.js';
import type { Runtime } from './runtime.js';

export interface Executor {
  start(): Promise<void>;
  stop(): void;
  healthy(): boolean;
  /** Starts (or, for a Pod already there, adopts) the step of a Run this agent has just claimed. */
  execute(claimed: Run, runtime: Runtime, logFile: string, attempts: number): Promise<RunningStep>;
  /** A Run cancelled while no agent held it: whatever of it still runs is stopped. */
  cancelUnclaimed(run: Run): Promise<void>;
  /** Its steps go on without this agent (a Pod): hand them back at once on shutdown. */
  readonly outlivesAgent: boolean;
}
