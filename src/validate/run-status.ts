// Who may write a Run's status (issue "tenancy that holds"): an agent writes only the Runs it
// holds. A Run is claimed by one agent (status.assignedTo); afterwards another agent may only put it
// back to Pending once its holder has sent no heartbeat for the stale period. Agents share one
// service account, so an agent is told apart by the Pod its token is bound to (the API server puts
// the Pod's name into the user's extra, as runtimed takes its Pod's name for its identity).
import { serviceAccountUser } from '../names.js';
import type { Run } from '../api/types.js';
import { fieldError, type FieldError } from '../fielderror.js';
import { isClaimable, isLostEnd, isStale } from '../runtime/lifecycle.js';

/** The user's extra that names the Pod a service-account token is bound to. */
export const AGENT_EXTRA = 'authentication.kubernetes.io/pod-name';

/** The service account runtimed runs as in an install's namespace. */
export const runtimedUsersIn = (namespace: string) => [serviceAccountUser(namespace, 'kruntimes-runtimed')];

/** Unless configured otherwise: the install in kruntimes-system. */
export const DEFAULT_RUNTIMED_USERS = runtimedUsersIn('kruntimes-system');

export interface Writer {
  username?: string;
  extra?: Record<string, string[]>;
}

export interface StatusWriteRules {
  runtimedUsers: string[];
  /** The shortest stale period an agent uses (runtimed --stale-seconds). */
  staleMs: number;
  now: Date;
}

export function runStatusWriteError(
  old: Run,
  next: Run,
  writer: Writer,
  rules: StatusWriteRules,
): FieldError | undefined {
  if (!writer.username || !rules.runtimedUsers.includes(writer.username)) return undefined;
  const agents = writer.extra?.[AGENT_EXTRA] ?? [];
  const agent = agents.length === 1 ? agents[0] : undefined;
  if (!agent)
    return fieldError(
      'status',
      `a runtimed agent writes Run status with a token bound to its Pod (user extra ${AGENT_EXTRA}); ${writer.username} has none`,
    );
  const claims = next.status?.assignedTo;
  const holder = old.status?.assignedTo;
  if (holder && holder !== agent && !isClaimable(old)) {
    const requeue = isLostEnd(next.status) && !claims;
    if (requeue && isStale(old, rules.now, rules.staleMs)) return undefined;
    return fieldError(
      'status',
      requeue
        ? `Run is held by agent "${holder}", whose last heartbeat is not ${Math.round(rules.staleMs / 1000)}s old: agent "${agent}" may not re-queue it yet`
        : `Run is held by agent "${holder}": agent "${agent}" may not write its status`,
    );
  }
  if (claims && claims !== agent)
    return fieldError('status.assignedTo', `agent "${agent}" may not claim a Run for "${claims}"`);
  return undefined;
}
