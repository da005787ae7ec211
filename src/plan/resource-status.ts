// The status of a resource while its configure workflow runs: the message `kubectl get` shows, the
// conditions health checks and GitOps tools read (ConfigureWorkflowCompleted, Reconciled,
// WorksSucceeded, Ready, Paused), the keys pipelines wrote to status.yaml, and the Events of each
// pipeline's start, success, suspension, retry and failure.
import { condition } from '../api/objects.js';
import type { Condition, PipelineStatus, ResourceStatus, ResourceWorkflows } from '../api/types.js';
import { LABEL_PAUSED } from '../labels.js';
import { MAX_STATUS_CONDITIONS } from '../limits.js';
import { mergeWrittenStatus, type WrittenCondition } from '../runtime/statusfile.js';
import {
  CONTROLLER_CONDITIONS,
  RESERVED_STATUS_KEYS,
  type ResourceAction,
  type ResourceObserved,
  type State,
} from './resource-plan.js';

export function resourceStatus(
  o: ResourceObserved,
  state: State,
  workflows: ResourceWorkflows,
  observedGeneration: number | undefined,
  waiting: boolean,
  paused: boolean,
): ResourceStatus {
  const prev = o.resource.status ?? {};
  const now = o.now.toISOString();
  const entries = workflows.pipelines ?? [];
  const written = writtenByPipelines(o, entries);
  const message = resourceMessage(state, entries, waiting, written.message);
  const gen = observedGeneration;
  const cond = (type: string, status: Condition['status'], reason: string, text: string): Condition =>
    condition(prev.conditions, { type, status, reason, message: text }, gen, now);
  const configure =
    state === 'succeeded'
      ? cond(
          'ConfigureWorkflowCompleted',
          'True',
          'PipelinesExecutedSuccessfully',
          'every pipeline succeeded',
        )
      : state === 'failed'
        ? cond('ConfigureWorkflowCompleted', 'False', 'ConfigureWorkflowFailed', message)
        : cond('ConfigureWorkflowCompleted', 'False', 'PipelinesInProgress', message);
  const works = worksCondition(o, entries, cond);
  const reconciled = reconciledCondition(state, works, message, cond);
  const ready =
    configure.status === 'True' && works.status === 'True'
      ? cond('Ready', 'True', 'Ready', message)
      : cond(
          'Ready',
          'False',
          state === 'succeeded' ? (works.reason ?? 'WorksPending') : (reconciled.reason ?? ''),
          message,
        );
  const out: ResourceStatus = { ...prev, ...written.free };
  out.kruntimes = { workflows };
  // Suspended: the control's message stays on the pipeline's entry and the conditions (kubectl
  // describe); a message the pipeline wrote to status.yaml is what kubectl get shows (R8).
  out.message = (state === 'suspended' && written.held) || message;
  out.conditions = [configure, works, reconciled, ready];
  // Shown only while it holds: the label says why nothing new starts.
  if (paused)
    out.conditions.push(
      cond(
        'Paused',
        'True',
        'PausedByLabel',
        `reconciliation is paused by the label ${LABEL_PAUSED}: a running pipeline goes on, nothing new starts`,
      ),
    );
  out.conditions.push(
    ...pipelineConditions(prev.conditions ?? [], written.conditions, CONTROLLER_CONDITIONS, (c) =>
      condition(prev.conditions, { reason: 'SetByPipeline', message: '', ...c }, gen, now),
    ),
  );
  if (observedGeneration !== undefined) out.observedGeneration = observedGeneration;
  return out;
}

type Cond = (type: string, status: Condition['status'], reason: string, text: string) => Condition;

/**
 * Reconciled, with Kratix's reasons: Unknown while the workflow runs (WorkflowPending) or its Works
 * are applied (WorksPending), False when it failed (ConfigureWorkflowFailed) or a Work fails
 * (WorksFailing), True when both are done. Suspended is Unknown too: waiting, not failed.
 */
function reconciledCondition(state: State, works: Condition, message: string, cond: Cond): Condition {
  if (state === 'suspended') return cond('Reconciled', 'Unknown', 'WorkflowSuspended', message);
  if (state === 'failed') return cond('Reconciled', 'False', 'ConfigureWorkflowFailed', message);
  if (state !== 'succeeded') return cond('Reconciled', 'Unknown', 'WorkflowPending', message);
  if (works.status === 'False') return cond('Reconciled', 'False', 'WorksFailing', works.message ?? '');
  if (works.status === 'Unknown') return cond('Reconciled', 'Unknown', 'WorksPending', works.message ?? '');
  return cond(
    'Reconciled',
    'True',
    'Reconciled',
    'the configure workflow succeeded and its Works are applied',
  );
}

/** Events of the conditions that health checks follow, when they change (Kratix's names). */
export function announceConditions(
  before: Condition[] | undefined,
  after: Condition[] | undefined,
  actions: ResourceAction[],
): void {
  const was = (type: string) => before?.find((c) => c.type === type);
  for (const c of after ?? []) {
    const old = was(c.type);
    if (old?.status === c.status && old.reason === c.reason) continue;
    const event = (eventType: 'Normal' | 'Warning', reason: string) =>
      actions.push({ type: 'event', eventType, reason, message: c.message ?? '' });
    if (c.type === 'WorksSucceeded' && c.status === 'False') event('Warning', 'WorksFailing');
    if (c.type === 'WorksSucceeded' && c.status === 'True' && old?.status !== 'True')
      event('Normal', 'WorksSucceeded');
    if (c.type === 'Reconciled' && c.status === 'True' && old?.status !== 'True')
      event('Normal', 'ReconcileSucceeded');
  }
}

function worksCondition(o: ResourceObserved, entries: PipelineStatus[], cond: Cond): Condition {
  const names = new Set(entries.map((e) => e.name));
  const works = o.works.filter((w) => names.has(w.spec.pipeline));
  const failed = works.find((w) =>
    w.status?.conditions?.some((c) => c.type === 'Applied' && c.status === 'False'),
  );
  if (failed)
    return cond(
      'WorksSucceeded',
      'False',
      'WorksFailing',
      `Work "${failed.metadata.name}": ${failed.status?.message ?? ''}`,
    );
  const pending = works.find(
    (w) =>
      w.status?.observedGeneration !== w.metadata.generation ||
      !w.status?.conditions?.some((c) => c.type === 'Applied' && c.status === 'True'),
  );
  if (pending)
    return cond(
      'WorksSucceeded',
      'Unknown',
      'WorksPending',
      `Work "${pending.metadata.name}" is being applied`,
    );
  return cond('WorksSucceeded', 'True', 'WorksSucceeded', `${works.length} Work(s) applied`);
}

/** Events on the resource for each pipeline start, success, suspension, retry and failure. */
export function announce(
  recorded: ResourceWorkflows,
  now: ResourceWorkflows,
  actions: ResourceAction[],
): void {
  const sameRound = recorded.round === now.round;
  const was = new Map((sameRound ? (recorded.pipelines ?? []) : []).map((p) => [p.name ?? '', p]));
  const event = (eventType: 'Normal' | 'Warning', reason: string, message: string) =>
    actions.push({ type: 'event', eventType, reason, message });
  for (const p of now.pipelines ?? []) {
    const old = was.get(p.name ?? '');
    if (
      p.phase === old?.phase &&
      p.nextRetryAt === old?.nextRetryAt &&
      p.workflowRunName === old?.workflowRunName
    )
      continue;
    if (p.phase === 'Running' && (old?.phase !== 'Running' || p.workflowRunName !== old.workflowRunName))
      event(
        'Normal',
        old?.phase === 'Suspended' ? 'PipelineResumed' : 'PipelineStarted',
        `pipeline "${p.name}" started: WorkflowRun "${p.workflowRunName}"`,
      );
    else if (p.phase === 'Succeeded') event('Normal', 'PipelineSucceeded', `pipeline "${p.name}" succeeded`);
    else if (p.phase === 'Failed' || p.phase === 'Cancelled')
      event(
        'Warning',
        'PipelineFailed',
        `pipeline "${p.name}" ${p.phase === 'Failed' ? 'failed' : 'was cancelled'}: ${p.message ?? ''}`,
      );
    else if (p.phase === 'Suspended')
      event(
        'Normal',
        p.nextRetryAt ? 'PipelineRetryScheduled' : 'PipelineSuspended',
        p.nextRetryAt
          ? `pipeline "${p.name}" runs again at ${p.nextRetryAt} (attempt ${p.attempts ?? 1}): ${p.message ?? ''}`
          : `pipeline "${p.name}" is suspended: ${p.message ?? ''}`,
      );
    else if (p.phase === 'Running' && p.nextRetryAt)
      event(
        'Warning',
        'PipelineRetryScheduled',
        `pipeline "${p.name}" ${p.message ?? 'failed'}; runs again at ${p.nextRetryAt} (backoffLimit)`,
      );
  }
}

/** What the current round's succeeded pipelines wrote to status.yaml, a later pipeline winning. */
function writtenByPipelines(
  o: ResourceObserved,
  entries: PipelineStatus[],
): { free: Record<string, unknown>; conditions: WrittenCondition[]; message?: string; held?: string } {
  const current = new Set(entries.map((e) => e.workflowRunName));
  const documents: Record<string, unknown>[] = [];
  const conditions = new Map<string, WrittenCondition>();
  let message: string | undefined;
  let held: string | undefined;
  for (const e of entries) {
    const run = o.runs.find((r) => r.metadata.name === e.workflowRunName);
    if (!run || !current.has(run.metadata.name)) continue;
    // A suspended pipeline's steps ran: what they wrote counts, its message before the control's (R8).
    const phase = run.status?.phase;
    if (phase !== 'Succeeded' && !(phase === 'Suspended' && e.phase === 'Suspended')) continue;
    const written = run.status?.stepStatus ?? {};
    documents.push(Object.fromEntries(Object.entries(written).filter(([k]) => !RESERVED_STATUS_KEYS.has(k))));
    // Checked when the step ended (src/runtime/statusfile.ts); a later pipeline's wins.
    for (const c of (written.conditions ?? []) as WrittenCondition[]) conditions.set(c.type, c);
    if (phase === 'Suspended') held = o.statusMessageOf?.(run);
    else if (run.status?.message) message = run.status.message;
  }
  return { free: mergeWrittenStatus(documents), conditions: [...conditions.values()], message, held };
}

/**
 * The conditions pipelines set beside the controller's: kept from earlier rounds until a pipeline
 * writes the type again, never one of the controller's types (the controller's win).
 */
function pipelineConditions(
  previous: Condition[],
  written: WrittenCondition[],
  owned: Set<string>,
  stamp: (c: WrittenCondition) => Condition,
): Condition[] {
  const byType = new Map<string, Condition>();
  for (const c of previous) if (!owned.has(c.type)) byType.set(c.type, c);
  for (const c of written) if (!owned.has(c.type)) byType.set(c.type, stamp(c));
  return [...byType.values()].slice(0, MAX_STATUS_CONDITIONS);
}

/** The message `kubectl get` shows: what went wrong or waits first, then what a pipeline wrote. */
function resourceMessage(
  state: State,
  entries: PipelineStatus[],
  waiting: boolean,
  written: string | undefined,
): string {
  const at = (phase: string) => entries.find((e) => e.phase === phase);
  const failed = at('Failed') ?? at('Cancelled');
  const suspended = at('Suspended');
  const running = at('Running');
  if (state === 'failed')
    return `pipeline "${failed?.name}" failed${failed?.message ? `: ${failed.message}` : ''}`;
  if (state === 'suspended')
    return `pipeline "${suspended?.name}" is suspended${suspended?.message ? `: ${suspended.message}` : ''}`;
  if (state === 'running' && waiting)
    return `a new reconciliation waits for pipeline "${running?.name}" to end`;
  if (written !== undefined) return written;
  if (state === 'running') return `pipeline "${running?.name ?? at('Pending')?.name}" is running`;
  if (state === 'succeeded') return 'configure workflow succeeded';
  return entries.length === 0
    ? 'the Promise has no configure pipelines'
    : 'waiting for the configure workflow';
}
