// A planned reconcile, the one loop every planning controller shares: plan from the caches (pure) →
// confirm that what the plan missed is really missing and not cache lag → apply the actions → plan
// again when the API server refused one → write the status only when it changed → announce →
// Result. applyPlanned is the same loop for an object whose status another reconcile writes. The controller brings the plan function and a small table of how to apply each action;
// the order, the refusal rule and the status rule live here once.
import { sameStatus } from '../../api/objects.js';
import { requeueAfter, type Result } from './controller.js';

export interface Plan<S, A> {
  status: S;
  actions: readonly A[];
  /** Plan again after this many ms if nothing else changes. */
  requeueAfter?: number;
}

/** How a failed action counts: the plan changes (plan again), retry later, or stop at once. */
export type Failure = 'replan' | 'transient' | 'fatal';

/** The half of a planned reconcile that applies a plan: plan, confirm, apply, plan again on a refusal. */
export interface PlannedActions<O, S extends object, A, P extends Plan<S, A> = Plan<S, A>> {
  /** The object as the cache holds it: its status is what the new status is compared with. */
  object: O;
  /** The pure planner over what the caches hold now; asked again after a refusal. */
  plan(now: Date): P;
  /** Confirms what a plan missed against the API server: ms to wait for the cache, or undefined. */
  confirmMissing?(plan: P): Promise<number | undefined>;
  /** An action that ends the reconcile: applied alone, before anything else, and nothing after it. */
  ends?(a: A): boolean;
  /** An action applied after the status is written (Events: a conflicting write is planned again first). */
  afterStatus?(a: A): boolean;
  /**
   * An action after which the plan is made again at once: what it made is known to the plan before
   * the cache has it (a WorkflowRun's snapshot), so the next steps need not wait for the watch.
   */
  replanAfter?(a: A): boolean;
  /** Names an action, so one that was applied is not applied again when the plan is made anew. */
  id(a: A): string;
  /** Applies one action; returns the object when the action changed it (for the status write). */
  apply(a: A, target: O): Promise<O | void>;
  /** What a failed action means; a 'replan' answer records the refusal where `plan` reads it. */
  failed(a: A, e: unknown): Failure;
  clock?: () => Date;
}

export interface PlannedReconcile<
  O,
  S extends object,
  A,
  P extends Plan<S, A> = Plan<S, A>,
> extends PlannedActions<O, S, A, P> {
  statusOf(o: O): S | undefined;
  /** Whether the object is gone after this plan (its last finalizer came off): no status to write. */
  gone?(plan: P): boolean;
  /** Writes the status (through KubeClient, which counts its writes). */
  writeStatus(target: O, status: S): Promise<unknown>;
  /** Events of what changed between the old and the new status, once it is written. */
  announce?(before: S | undefined, after: S): void;
}

/** What applying a plan came to: wait for the cache, ended by an action, or the last plan applied. */
export type Applied<O, P> =
  | { kind: 'lag'; ms: number }
  | { kind: 'ended' }
  | {
      kind: 'applied';
      plan: P;
      /** The object as the last action that changed it returned it. */
      target: O;
      /** The first transient failure, to be thrown (retried with backoff) once the status is written. */
      transient?: unknown;
    };

/**
 * The loop of a planned reconcile without its status: for an object whose status another reconcile
 * writes (a Promise's own workflow, inside the Promise's status). Actions marked afterStatus are
 * left to the caller.
 */
export async function applyPlanned<O, S extends object, A, P extends Plan<S, A>>(
  r: PlannedActions<O, S, A, P>,
): Promise<Applied<O, P>> {
  const now = (r.clock ?? (() => new Date()))();
  let plan = r.plan(now);
  const lag = r.confirmMissing ? await r.confirmMissing(plan) : undefined;
  if (lag !== undefined) return { kind: 'lag', ms: lag };
  const ending = r.ends ? plan.actions.find((a) => r.ends?.(a)) : undefined;
  if (ending !== undefined) {
    await r.apply(ending, r.object);
    return { kind: 'ended' };
  }
  let target = r.object;
  let transient: unknown;
  const applied = new Set<string>();
  // Each refusal fails one more job or pipeline in the next plan, and an action is applied once,
  // so the passes come to an end.
  for (let again = true; again;) {
    again = false;
    for (const action of plan.actions) {
      if (r.afterStatus?.(action) || r.ends?.(action)) continue;
      const id = r.id(action);
      if (applied.has(id)) continue;
      applied.add(id);
      try {
        target = (await r.apply(action, target)) ?? target;
        if (r.replanAfter?.(action)) again = true;
      } catch (e) {
        const failure = r.failed(action, e);
        if (failure === 'fatal') throw e;
        if (failure === 'replan') again = true;
        else transient ??= e;
      }
    }
    if (again) plan = r.plan(now);
  }
  return { kind: 'applied', plan, target, ...(transient !== undefined ? { transient } : {}) };
}

export async function reconcilePlanned<O, S extends object, A, P extends Plan<S, A>>(
  r: PlannedReconcile<O, S, A, P>,
): Promise<Result | undefined> {
  const done = await applyPlanned(r);
  if (done.kind === 'lag') return { requeueAfter: done.ms };
  if (done.kind === 'ended') return undefined;
  const { plan, target, transient } = done;
  const before = r.statusOf(r.object);
  const written =
    !r.gone?.(plan) &&
    (await writeStatusIfChanged(before, plan.status, () => r.writeStatus(target, plan.status)));
  if (written) r.announce?.(before, plan.status);
  for (const action of plan.actions) if (r.afterStatus?.(action)) await r.apply(action, target);
  // Transient failures (network, 429, 5xx) are retried with backoff, after the status is written.
  if (transient !== undefined) throw transient;
  return requeueAfter(plan.requeueAfter);
}

/**
 * The status write every reconciler makes: only when the status says something new (condition
 * times alone are not news).
 */
export async function writeStatusIfChanged<S extends object>(
  before: S | undefined,
  after: S,
  write: () => Promise<unknown>,
): Promise<boolean> {
  if (sameStatus(before, after)) return false;
  await write();
  return true;
}
