// What planWorkflowRun reads and what it answers: the observed objects, the actions the controller
// applies, and the per-job context the job planners share.
import { compactCopy, metadataWithoutManagedFields, type SharedValues } from '../api/objects.js';
import { isClaimable, isTerminal } from '../runtime/lifecycle.js';
import type {
  JobStatus,
  Run,
  Workflow,
  WorkflowRun,
  WorkflowRunSpec,
  WorkflowRunStatus,
} from '../api/types.js';

export interface Observed {
  run: WorkflowRun;
  /** The spec frozen in the snapshot ControllerRevision, when it exists. */
  snapshot?: WorkflowRunSpec;
  /** Direct child Runs (label kruntimes.io/workflowrun-uid). */
  runs: ObservedRun[];
  /** Direct child WorkflowRuns (label kruntimes.io/parent-uid). */
  children: WorkflowRun[];
  /** Workflows of the namespace, read when a call job becomes runnable (late binding). */
  workflow: (name: string) => Workflow | undefined;
  /**
   * Whether a WorkflowRun or Run of this name exists in the namespace without being this run's: a
   * deterministic name taken by another owner fails the job instead of being retried for ever; one
   * left by a previous run of this name (deleted, its objects awaiting the garbage collector) is
   * waited for.
   */
  takenByOther?: (kind: 'WorkflowRun' | 'Run', name: string) => 'previous' | 'other' | undefined;
  /**
   * Until when (ms since the epoch) a live runtimed serves a runtime in this run's namespace, or
   * undefined when none does. Without it, every runtime counts as served.
   */
  agentsServe?: (runtime: string) => number | undefined;
  /** Seconds a finished root run is kept when its spec does not say (the controller's default). */
  defaultTtlSeconds?: number;
  now: Date;
}

export type Action =
  | { type: 'createSnapshot'; name: string; spec: WorkflowRunSpec }
  | { type: 'createRun'; job: string; run: Run }
  | { type: 'createChild'; job: string; child: WorkflowRun }
  | { type: 'cancelRun'; name: string }
  | { type: 'cancelChild'; name: string }
  /** An unclaimed Run that no live agent can take says so: phase Pending, reason NoAgent. */
  | { type: 'markNoAgent'; run: Run; message: string }
  /** An unclaimed Run of a cancelled run that no live agent serves: no one else would end it. */
  | { type: 'cancelUnserved'; run: Run; message: string }
  /** Adds or removes the kruntimes.io/workflow-suspended label; it comes before the status write. */
  | { type: 'setSuspendedLabel'; value: boolean }
  /** The run's time after it finished is up: it goes, with everything it made (garbage collector). */
  | { type: 'deleteWorkflowRun' };

export interface Plan {
  status: WorkflowRunStatus;
  actions: Action[];
  /**
   * Plan again after this many ms even if nothing changes: a Run waits for an agent whose Lease
   * expires then, and nothing else would tell.
   */
  requeueAfter?: number;
  /**
   * Workflows a call job failed on because the lookup did not find them. A lookup is a cache that
   * can lag a Workflow created just before its run, so the caller confirms with the API server
   * before it writes such a failure.
   */
  missingWorkflows?: string[];
}

/** What a job's planner knows of the run around it, and where it puts its actions and timers. */
export interface JobCtx {
  /** A needed job that failed, was skipped or cancelled: this one is skipped. */
  blocked: string | undefined;
  /** Every needed job succeeded. */
  ready: boolean;
  /** The run's cancelRequested. */
  cancel: boolean;
  actions: Action[];
}

/**
 * The gate of a job that has not started, the same for call and inline jobs: a failure recorded
 * earlier stays; a cancelled run cancels it, whatever its needs became; a need that did not succeed
 * skips it; 'wait' while its needs run; undefined once it may start.
 */
export function startGate(before: JobStatus, j: JobCtx): JobStatus | 'wait' | undefined {
  if (before.phase === 'Failed') return { phase: 'Failed', message: before.message };
  if (j.cancel) return { phase: 'Cancelled', message: 'cancelled before it started' };
  if (j.blocked) return { phase: 'Skipped', message: `needs job "${j.blocked}", which did not succeed` };
  return j.ready ? undefined : 'wait';
}

export interface InlineJobCtx extends JobCtx {
  runsByName: Map<string, Run>;
  timers: number[];
  /** The statuses planned so far (upstream jobs), for the files a step reads. */
  statuses: Record<string, JobStatus>;
}

export interface CallJobCtx extends JobCtx {
  childrenByName: Map<string, WorkflowRun>;
  missing: Set<string>;
  timers: number[];
}

/** What the controller's cache keeps of a Run (runAsObserved), so a planner cannot read more. */
export type ObservedRun = Omit<Run, 'spec'> & { spec: Pick<Run['spec'], 'runtime' | 'cancelRequested'> };

/**
 * What the planners read of a Run: its metadata, its status, and of its spec only the runtime and
 * the cancel request. The controller's cache keeps this much, so a Run's script, environment and
 * files (up to 256 KiB of them) are not held there for every Run of the cluster. Once an agent has
 * claimed it, neither is what only the agent and its users read: the log tail (4 KiB), heartbeat,
 * assignee and start time; the controller writes the status of an unclaimed Run alone. An ended
 * Run, kept until its WorkflowRun goes, is compacted, and its spec shared through `values`.
 */
export function runAsObserved(run: Run, values?: SharedValues): ObservedRun {
  const metadata = metadataWithoutManagedFields(run.metadata);
  const { runtime, cancelRequested } = run.spec;
  const spec = { runtime, ...(cancelRequested !== undefined ? { cancelRequested } : {}) };
  if (!run.status || isClaimable(run)) return { ...run, metadata, spec };
  const status = Object.fromEntries(Object.entries(run.status).filter(([k]) => !AGENT_ONLY.has(k)));
  if (!isTerminal(run)) return { ...run, metadata, spec, status };
  // Nothing reads when an ended Run was made: its creationTimestamp is one string less each.
  const kept = compactCopy({ ...run, metadata: { ...metadata, creationTimestamp: undefined }, spec, status });
  if (values) kept.spec = values.share(kept.spec);
  return kept;
}

const AGENT_ONLY = new Set(['logTail', 'heartbeatTime', 'assignedTo', 'startTime']);
