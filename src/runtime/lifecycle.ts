// The life of a Run as runtimed sees it, as pure functions of what was observed: claiming,
// staleness, re-queueing and the one terminal status an execution ends in.
import { runEnded } from '../api/phases.js';
import type { Run, RunStatus } from '../api/types.js';
import { MAX_LOG_TAIL_BYTES } from '../limits.js';
import { MAX_CONTROL_FILE_BYTES, parseControl } from './control-file.js';
import { MAX_OUTPUT_FILE_BYTES, parseOutputs } from './outputs.js';
import { MAX_STATUS_FILE_BYTES, parseStatusFile } from './statusfile.js';
import { parseManifests } from '../promise/documents.js';
import type { Files } from '../promise/files.js';

export function isTerminal(run: Run): boolean {
  return runEnded(run.status?.phase);
}

/** Not yet claimed: no phase, or Pending (new, or put back after its agent went silent). */
export function isClaimable(run: Run): boolean {
  const phase = run.status?.phase;
  return phase === undefined || phase === 'Pending';
}

/** The status that claims a Run: applied with the observed resourceVersion as precondition. */
export function claimStatus(run: Run, identity: string, now: Date): RunStatus {
  const t = now.toISOString();
  return {
    phase: 'Running',
    assignedTo: identity,
    attempts: (run.status?.attempts ?? 0) + 1,
    startTime: t,
    heartbeatTime: t,
  };
}

/** runtimed's default --stale-seconds, and what admission assumes unless told (webhook --run-stale-seconds). */
export const DEFAULT_RUN_STALE_MS = 30_000;

/** A claimed Run whose agent has not shown life for `staleMs` (it crashed or lost the API server). */
export function isStale(run: Run, now: Date, staleMs: number): boolean {
  const s = run.status;
  if (!s || (s.phase !== 'Running' && s.phase !== 'Scheduled')) return false;
  const last = Date.parse(s.heartbeatTime ?? s.startTime ?? '');
  return !Number.isFinite(last) || now.getTime() - last > staleMs;
}

/**
 * Whether this agent may put back another agent's Run: stale by its heartbeat, and also quiet on
 * this agent's own clock (`quietMs`: since it last saw the Run change, or since its watch came back
 * after an outage, whichever is later) for the stale period. So clock skew between machines cannot
 * make a Run stale early, and after an API outage the holder has a whole stale period to report a
 * result it kept meanwhile.
 */
export function mayRequeue(run: Run, now: Date, staleMs: number, quietMs: number): boolean {
  return isStale(run, now, staleMs) && quietMs > staleMs;
}

/** An agent's liveness periods: how often it heartbeats, when a Run is stale, a stopped step's grace. */
export interface LivenessPeriods {
  heartbeatMs: number;
  staleMs: number;
  /** Between SIGTERM and SIGKILL of a stopped step. */
  graceMs: number;
}

/**
 * How long a step of an agent's own may go on with no heartbeat confirmed. Another agent may put the
 * Run back once it has seen no heartbeat for the stale period, so the step is stopped (and dead,
 * after the grace period) one heartbeat before that.
 */
export function fenceMs(p: LivenessPeriods): number {
  return Math.max(p.heartbeatMs, p.staleMs - p.heartbeatMs - p.graceMs);
}

/**
 * Whether a won claim may still start its step. The claim is the first heartbeat, sent at `sentMs`;
 * another agent counts the Run's staleness from some time after that. An answer that took longer
 * than the fence to come back may come after that agent put the Run back and ran it: the step must
 * not start (the claim is handed back).
 */
export function claimAnsweredInTime(sentMs: number, answeredMs: number, p: LivenessPeriods): boolean {
  return answeredMs - sentMs <= fenceMs(p);
}

/** Back to Pending for another agent, the attempt count kept (execution is at-least-once). */
export function requeueStatus(run: Run, message: string): RunStatus {
  return { phase: 'Pending', attempts: run.status?.attempts ?? 0, message };
}

/** The reason of a Run whose agent was lost on every attempt it was given. */
export const AGENT_LOST = 'AgentLost';

/** runtimed's default --max-attempts. */
export const DEFAULT_MAX_ATTEMPTS = 3;

/**
 * A Run whose agent was lost (it crashed, or went silent): back to Pending while it has attempts
 * left, else Failed with AgentLost, so that a step that kills its agent each time does not run for
 * ever.
 */
export function lostStatus(run: Run, message: string, maxAttempts: number, now: Date): RunStatus {
  const attempts = run.status?.attempts ?? 0;
  if (attempts < maxAttempts) return requeueStatus(run, message);
  return {
    phase: 'Failed',
    reason: AGENT_LOST,
    attempts,
    message: `${AGENT_LOST}: ${message}; its agent was lost on all ${attempts} attempts (--max-attempts ${maxAttempts})`,
    completionTime: now.toISOString(),
  };
}

/** A status write that ends a lost Run: what another agent may write once the holder is stale. */
export const isLostEnd = (s: RunStatus | undefined) =>
  s?.phase === 'Pending' || (s?.phase === 'Failed' && s.reason === AGENT_LOST);

/** The last `max` bytes of the output as text, never starting inside a UTF-8 character. */
export function logTail(output: Buffer, max = MAX_LOG_TAIL_BYTES): string {
  let start = Math.max(0, output.length - max);
  // Skip continuation bytes (10xxxxxx) so the tail does not begin with half a character.
  while (start < output.length && start > 0 && ((output[start] ?? 0) & 0xc0) === 0x80) start++;
  return output.subarray(start).toString('utf8');
}

export interface Ending {
  exitCode: number | null;
  signal: string | null;
  /** Why runtimed stopped the script, if it did. */
  stoppedFor?: 'timeout' | 'cancel';
  /** The process could not be started. */
  startError?: string;
  /** A variable's Secret or key could not be read: the step did not start. */
  secretError?: string;
  /** The text of $KRT_OUTPUT, or its size when it was too large to read. */
  outputFile: string | { bytes: number };
  /** The text of $KRT_CONTROL, or its size when it was too large to read. */
  controlFile: string | { bytes: number };
  /** The text of $KRT_STATUS, or its size when it was too large to read. */
  statusFile?: string | { bytes: number };
  /** Why the step's Pod failed (kubernetes runtime): an image, a Secret, the node, memory. */
  podFailure?: { reason: string; message: string };
  /** The sandbox limit the step ran into, when its end says so. */
  limit?: string;
  /** The files of $KRT_OUTPUT_DIR, or why they could not be read. */
  outputDir?: { files: Files } | { error: string };
  tail: string;
  timeoutSeconds?: number;
  now: Date;
}

type EndStatus = Pick<
  RunStatus,
  | 'phase'
  | 'exitCode'
  | 'reason'
  | 'message'
  | 'outputs'
  | 'control'
  | 'stepStatus'
  | 'logTail'
  | 'completionTime'
  | 'outputFiles'
>;

/** The terminal status of one execution: one phase, a machine reason and a human message. */
export function endStatus(e: Ending): EndStatus {
  const base = {
    completionTime: e.now.toISOString(),
    logTail: e.tail,
    ...(e.exitCode !== null ? { exitCode: e.exitCode } : {}),
  };
  const stopped = howItStopped(e);
  if (stopped) return { ...base, phase: 'Failed', ...stopped };
  return { ...base, ...whatItWrote(e) };
}

/** How the step ended when it did not end well on its own; undefined for exit code 0. */
function howItStopped(e: Ending): Pick<RunStatus, 'phase' | 'reason' | 'message'> | undefined {
  if (e.startError) return { reason: 'StartError', message: e.startError };
  if (e.secretError) return { reason: 'SecretUnavailable', message: e.secretError };
  if (e.stoppedFor === 'timeout')
    return {
      phase: 'Timeout',
      reason: 'Timeout',
      message: `stopped after timeoutSeconds ${e.timeoutSeconds ?? '?'}`,
    };
  if (e.stoppedFor === 'cancel')
    return { phase: 'Cancelled', reason: 'Cancelled', message: 'cancelled on request' };
  if (e.podFailure) return e.podFailure;
  if (e.limit)
    return { reason: 'LimitExceeded', message: `LimitExceeded: ${e.limit} (the step hit its sandbox limit)` };
  if (e.signal) return { reason: 'Signaled', message: `the script was killed by ${e.signal}` };
  if (e.exitCode !== 0)
    return { reason: 'NonZeroExit', message: `the script exited with code ${e.exitCode}` };
  return undefined;
}

const tooLarge = (file: string, bytes: number, limit: number) =>
  `${file} holds ${bytes} bytes, more than the limit of ${limit}`;

/** A step that exited 0: what its files say, or the first file that is not as it must be. */
function whatItWrote(e: Ending): Omit<EndStatus, 'completionTime' | 'logTail' | 'exitCode'> {
  const failed = (reason: string, message: string) => ({ phase: 'Failed' as const, reason, message });
  const out =
    typeof e.outputFile === 'string'
      ? parseOutputs(e.outputFile)
      : ({
          reason: 'OutputsTooLarge',
          message: tooLarge('$KRT_OUTPUT', e.outputFile.bytes, MAX_OUTPUT_FILE_BYTES),
        } as const);
  if ('reason' in out) return failed(out.reason, out.message);
  const ctl =
    typeof e.controlFile === 'string'
      ? parseControl(e.controlFile)
      : { error: tooLarge('$KRT_CONTROL', e.controlFile.bytes, MAX_CONTROL_FILE_BYTES) };
  if ('error' in ctl) return failed('WorkflowControlInvalid', ctl.error);
  const st =
    e.statusFile === undefined
      ? {}
      : typeof e.statusFile === 'string'
        ? parseStatusFile(e.statusFile)
        : { error: tooLarge('$KRT_STATUS', e.statusFile.bytes, MAX_STATUS_FILE_BYTES) };
  if ('error' in st) return failed('StatusFileInvalid', st.error);
  const dir = e.outputDir ?? { files: {} };
  if ('error' in dir) return failed('OutputDocumentsInvalid', dir.error);
  const files = dir.files;
  const docs = parseManifests(files);
  if ('error' in docs) return failed('OutputDocumentsInvalid', docs.error);
  return {
    phase: 'Succeeded',
    reason: 'Completed',
    ...(Object.keys(out.outputs).length ? { outputs: out.outputs } : {}),
    ...(ctl.control ? { control: ctl.control } : {}),
    ...(st.values ? { stepStatus: st.values } : {}),
    ...(Object.keys(files).length ? { outputFiles: files } : {}),
  };
}
