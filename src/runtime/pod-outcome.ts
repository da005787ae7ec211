// What an observed step Pod says about its Run (docs/runtimes.md): still going, done (read the
// reporter's log), or failed with a reason and a message a user can act on. Waiting that may end by
// itself (an image being pulled, a Secret created late, a node freeing up) fails only after `stuckMs`.
import { PREPARE_CONTAINER, REPORT_CONTAINER, STEP_CONTAINER } from './pod.js';

interface ContainerState {
  waiting?: { reason?: string; message?: string };
  running?: { startedAt?: string | Date };
  terminated?: { exitCode?: number; reason?: string; message?: string; signal?: number };
}
interface ContainerStatus {
  name: string;
  state?: ContainerState;
}
export interface PodLike {
  metadata?: { creationTimestamp?: string | Date; deletionTimestamp?: string | Date };
  spec?: {
    initContainers?: { name: string; image?: string }[];
    containers?: { name: string; image?: string }[];
  };
  status?: {
    phase?: string;
    reason?: string;
    message?: string;
    conditions?: { type?: string; status?: string; reason?: string; message?: string }[];
    initContainerStatuses?: ContainerStatus[];
    containerStatuses?: ContainerStatus[];
  };
}

export type PodOutcome =
  | { state: 'pending' }
  /** The step runs (its log can be followed) or ran. */
  | { state: 'running' }
  /** The step ended well and the reporter printed its result: read it. */
  | { state: 'reported' }
  | { state: 'failed'; reason: string; message: string; exitCode?: number; timeout?: boolean };

const PULL = new Set(['ErrImagePull', 'ImagePullBackOff', 'ErrImageNeverPull', 'RegistryUnavailable']);
const NOW_FATAL = new Set(['InvalidImageName']);

function statusOf(pod: PodLike, name: string): ContainerStatus | undefined {
  return [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])].find(
    (s) => s.name === name,
  );
}

function imageOf(pod: PodLike, name: string): string {
  return (
    [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].find((c) => c.name === name)
      ?.image ?? '?'
  );
}

type Failed = Extract<PodOutcome, { state: 'failed' }>;

/** A container's own message, after what we say of it. */
const detail = (message: string | undefined) => (message ? `: ${message.trim()}` : '');

export function podOutcome(pod: PodLike, now: number, stuckMs: number): PodOutcome {
  const age = now - new Date(pod.metadata?.creationTimestamp ?? now).getTime();
  const stuck = age >= stuckMs;
  const failed =
    podFailure(pod) ?? containerFailure(pod) ?? waitingFailure(pod, stuck) ?? unschedulable(pod, stuck);
  if (failed) return failed;
  const s = pod.status ?? {};
  const report = statusOf(pod, REPORT_CONTAINER)?.state?.terminated;
  if (report)
    return report.exitCode === 0
      ? { state: 'reported' }
      : {
          state: 'failed',
          reason: 'ReportFailed',
          message: `the step ended, but reading what it wrote failed (exit ${report.exitCode ?? '?'})${detail(report.message)}`,
        };
  if (s.phase === 'Failed')
    return { state: 'failed', reason: s.reason ?? 'PodFailed', message: s.message ?? 'the step Pod failed' };
  const step = statusOf(pod, STEP_CONTAINER)?.state;
  if (step?.running || step?.terminated) return { state: 'running' };
  // Whatever holds it (a volume that cannot be mounted, a sandbox that cannot be made), a Pod that
  // has not started its step by now will not be left waiting for ever; the executor quotes the
  // Pod's last Warning Event, which names the cause.
  if (stuck)
    return {
      state: 'failed',
      reason: POD_STUCK,
      message: `the step Pod did not start its step within ${Math.round(stuckMs / 1000)}s`,
    };
  return { state: 'pending' };
}

/** The Pod as a whole was ended: its deadline passed, or the node evicted it. */
function podFailure(pod: PodLike): Failed | undefined {
  const s = pod.status ?? {};
  if (s.reason === 'DeadlineExceeded')
    return {
      state: 'failed',
      reason: 'Timeout',
      message: 'the step Pod ran past its activeDeadlineSeconds',
      timeout: true,
    };
  if (s.reason === 'Evicted')
    return {
      state: 'failed',
      reason: 'Evicted',
      message: `the node evicted the step Pod: ${s.message ?? ''}`.trim(),
    };
  return undefined;
}

/** The step or the preparing of its files ended badly. */
function containerFailure(pod: PodLike): Failed | undefined {
  const t = statusOf(pod, STEP_CONTAINER)?.state?.terminated;
  const exitCode = t?.exitCode !== undefined ? { exitCode: t.exitCode } : {};
  if (t && t.reason === 'OOMKilled')
    return {
      state: 'failed',
      reason: 'OOMKilled',
      message: 'the step used more memory than its limit (resources.limits.memory) and was killed',
      ...exitCode,
    };
  if (t && t.exitCode !== 0)
    return {
      state: 'failed',
      reason: 'NonZeroExit',
      message: `the step exited with code ${t.exitCode ?? '?'}${detail(t.message)}`,
      ...exitCode,
    };
  const prep = statusOf(pod, PREPARE_CONTAINER)?.state?.terminated;
  if (prep && prep.exitCode !== 0)
    return {
      state: 'failed',
      reason: 'StartError',
      message: `preparing the step's files failed (exit ${prep.exitCode ?? '?'})${detail(prep.message)}`,
    };
  return undefined;
}

/** No node can run the Pod, for longer than a Pod may wait. */
function unschedulable(pod: PodLike, stuck: boolean): Failed | undefined {
  const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
  if (scheduled?.status === 'False' && scheduled.reason === 'Unschedulable' && stuck)
    return {
      state: 'failed',
      reason: 'Unschedulable',
      message: `no node can run the step Pod: ${scheduled.message ?? ''}`.trim(),
    };
  return undefined;
}

/** A container that waits for what will not come: an image that cannot be pulled, a missing Secret. */
function waitingFailure(pod: PodLike, stuck: boolean): Failed | undefined {
  for (const name of [PREPARE_CONTAINER, STEP_CONTAINER, REPORT_CONTAINER]) {
    const w = statusOf(pod, name)?.state?.waiting;
    if (!w?.reason) continue;
    const detail = w.message ? `: ${w.message}` : '';
    if (NOW_FATAL.has(w.reason) || (PULL.has(w.reason) && stuck))
      return {
        state: 'failed',
        reason: PULL.has(w.reason) ? 'ImagePullBackOff' : w.reason,
        message: `image "${imageOf(pod, name)}" of container ${name} cannot be pulled${detail}`,
      };
    if (w.reason === 'CreateContainerConfigError' && stuck)
      return {
        state: 'failed',
        reason: 'CreateContainerConfigError',
        message: `container ${name} cannot be created${detail}`,
      };
  }
  return undefined;
}

/** The reason of a step Pod that never started its step, for a cause no rule above names. */
export const POD_STUCK = 'PodStuck';

export interface PodEvent {
  type?: string;
  reason?: string;
  message?: string;
  lastTimestamp?: string | Date;
  eventTime?: string | Date;
  metadata?: { creationTimestamp?: string | Date };
}

/** The last Warning of a Pod's Events, as the message of its Run quotes it. */
export function lastWarning(events: PodEvent[]): string | undefined {
  const when = (e: PodEvent) =>
    new Date(e.lastTimestamp ?? e.eventTime ?? e.metadata?.creationTimestamp ?? 0).getTime();
  const last = events
    .filter((e) => e.type === 'Warning')
    .sort((a, b) => when(a) - when(b))
    .pop();
  return last ? `${last.reason ?? 'Warning'}: ${(last.message ?? '').trim()}` : undefined;
}

/** Where an execution's latest sight of its Pod comes from. */
export type PodSource = 'created' | 'cache' | 'server';

/**
 * The Pod an execution goes by, or `gone` when it was deleted. The watch cache may not show a Pod
 * just created for a while (a loaded API server, a watch being reopened), so its absence there is
 * news only once the cache has shown it; a read from the API server itself (404) is news at once.
 */
export function podInSight<P extends PodLike>(
  source: PodSource,
  pod: P | undefined,
  seenInCache: boolean,
): P | 'gone' | 'unknown' {
  if (pod) return pod.metadata?.deletionTimestamp ? 'gone' : pod;
  return source === 'server' || (source === 'cache' && seenInCache) ? 'gone' : 'unknown';
}
