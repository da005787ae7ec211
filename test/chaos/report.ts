// The one table `make chaos` ends with, how second executions of a step are told apart, and how
// the API server's requests are counted across its restarts. Pure.
import type { Fault, FaultKind, PodFaultKind } from './faults.js';

export interface Outcome {
  faults: Fault[];
  runs: number;
  completed: number;
  failed: number;
  lost: number;
  /** Steps whose side effect was seen more than once (each extra one counted), not explained below. */
  duplicatedExecutions: number;
  /** Of those, executions that overlapped an earlier one of the same step in time. */
  ranTwiceAtOnce?: number;
  /** Second executions of a step whose agent was SIGKILLed before it recorded the step's end. */
  rerunAfterAgentKill: number;
  /** Second executions of a step whose agent went silent (cut off, slow): handed back as stale. */
  rerunAfterStale?: number;
  /** The cancellation load: runs cancelled while they ran, and those of them that did not end. */
  cancelled?: { runs: number; ended: number; notEnded: number };
  /** The Promise load: resources created, and those configured (workflow Succeeded, Work applied). */
  resources?: { created: number; configured: number };
  /** The Pod load on the one-node cluster: its container runs, and how they ended under its faults. */
  pods?: { runs: number; right: number; wrong: number; twice: number };
  /** Objects beyond those the runs should have made. */
  duplicatedObjects: number;
  unvalidatedStored: number;
  steps: number;
  /** Create-to-finished of each completed run, in ms. */
  latenciesMs: number[];
  peakRssMiB: Record<string, number>;
  apiRequests: number;
  minutes: number;
}

/** Per kind: faults seen to happen, and attempts that did not happen (not counted as injected). */
export function faultCounts(
  faults: Fault[],
): Map<FaultKind | PodFaultKind, { injected: number; notHappened: number }> {
  const out = new Map<FaultKind | PodFaultKind, { injected: number; notHappened: number }>();
  for (const f of faults) {
    const c = out.get(f.kind) ?? { injected: 0, notHappened: 0 };
    if (f.happened) c.injected++;
    else c.notHappened++;
    out.set(f.kind, c);
  }
  return out;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] as number;
}

const seconds = (ms: number) => (Number.isNaN(ms) ? '-' : `${(ms / 1000).toFixed(1)} s`);

/** A Markdown table (also readable as plain text), one row per figure. */
export function table(o: Outcome): string {
  const sorted = [...o.latenciesMs].sort((a, b) => a - b);
  const rows: [string, string][] = [];
  for (const [kind, c] of faultCounts(o.faults))
    rows.push([
      `fault: ${kind}`,
      `${c.injected}${c.notHappened ? ` (+${c.notHappened} did not happen)` : ''}`,
    ]);
  rows.push(
    ['WorkflowRuns created', String(o.runs)],
    ['completed as expected (outputs correct; hostile runs failed at their limits)', String(o.completed)],
    ['failed or wrong outputs', String(o.failed)],
    ['lost (not finished)', String(o.lost)],
    ['duplicated step executions', String(o.duplicatedExecutions)],
    ...(o.ranTwiceAtOnce !== undefined
      ? [['of those, a step running twice at once', String(o.ranTwiceAtOnce)] as [string, string]]
      : []),
    ['re-run: agent killed before it saw the step end', String(o.rerunAfterAgentKill)],
    ...(o.rerunAfterStale !== undefined
      ? [['re-run: agent silent, handed back as stale', String(o.rerunAfterStale)] as [string, string]]
      : []),
    ...(o.cancelled
      ? ([
          ['runs cancelled while running', String(o.cancelled.runs)],
          ['of those, ended (Cancelled, or Succeeded first)', String(o.cancelled.ended)],
          ['of those, not ended', String(o.cancelled.notEnded)],
        ] as [string, string][])
      : []),
    ...(o.resources
      ? ([
          ['Promise resources created', String(o.resources.created)],
          ['of those, configured (workflow Succeeded, Work applied)', String(o.resources.configured)],
        ] as [string, string][])
      : []),
    ...(o.pods
      ? ([
          ['container runs on the one-node cluster (Pod executor)', String(o.pods.runs)],
          ['of those, ended as their fault allows (PodDeleted, else Succeeded)', String(o.pods.right)],
          ['of those, wrong or not ended', String(o.pods.wrong)],
          ['container steps run in two Pods', String(o.pods.twice)],
        ] as [string, string][])
      : []),
    ['duplicated objects', String(o.duplicatedObjects)],
    ['unvalidated objects stored', String(o.unvalidatedStored)],
    [
      'completion latency p50 / p99',
      `${seconds(percentile(sorted, 0.5))} / ${seconds(percentile(sorted, 0.99))}`,
    ],
    ...Object.entries(o.peakRssMiB).map(([k, v]): [string, string] => [
      `peak RSS ${k}`,
      `${v.toFixed(0)} MiB`,
    ]),
    ['API requests per step', o.steps ? (o.apiRequests / o.steps).toFixed(1) : '-'],
    ['steps', String(o.steps)],
    ['duration', `${o.minutes.toFixed(1)} min`],
  );
  const w = Math.max(...rows.map(([k]) => k.length));
  const v = Math.max(...rows.map(([, x]) => x.length));
  const line = (a: string, b: string) => `| ${a.padEnd(w)} | ${b.padEnd(v)} |`;
  return [
    line('what', 'figure'),
    `| ${'-'.repeat(w)} | ${'-'.repeat(v)} |`,
    ...rows.map(([a, b]) => line(a, b)),
  ].join('\n');
}

/**
 * One side effect a step reported (`<key> <attempt> <Run> <ms>`), and when it did it: the step's own
 * clock (the same machine's) as it acted, or else when the journal received it.
 */
export interface Effect {
  key: string;
  attempt: number;
  run: string;
  at: number;
  /** When the step started, by its own clock, when it says (`<key> <attempt> <Run> <ms> <start ms>`). */
  start?: number;
}

export function parseEffect(line: string, receivedAt: number): Effect | undefined {
  const m = /^(\S+) (\d+) (\S+)(?: (\d+)(?: (\d+))?)?$/.exec(line);
  if (!m) return undefined;
  return {
    key: m[1] as string,
    attempt: Number(m[2]),
    run: m[3] as string,
    at: m[4] ? Number(m[4]) : receivedAt,
    ...(m[5] ? { start: Number(m[5]) } : {}),
  };
}

/**
 * When an agent was killed and when it had stopped its steps: runtimed's launcher stops them as soon
 * as it sees the agent gone and logs so; without that line (the launcher gone too), the kill itself.
 */
export interface AgentKill {
  at: number;
  stepsStoppedAt: number;
}

/** How soon after its agent's kill a launcher has stopped the steps, at the latest. */
export const LAUNCHER_STOP_MS = 10_000;

export function agentKills(kills: number[], agentLog: string): AgentKill[] {
  const stops: number[] = [];
  for (const line of agentLog.split('\n')) {
    if (!line.includes('"msg":"the agent went away; stopped its steps"')) continue;
    const time = /"time":"([^"]+)"/.exec(line);
    if (time) stops.push(Date.parse(time[1] as string));
  }
  // Only a line soon after the kill is its launcher's: a later one is another kill's.
  return kills.map((at) => {
    const next = Math.min(...stops.filter((s) => s >= at && s - at <= LAUNCHER_STOP_MS));
    return { at, stepsStoppedAt: Number.isFinite(next) ? next : at };
  });
}

/**
 * Each execution of a step beyond its first: a re-run when it is a later attempt of a Run that its
 * agent, started again after a SIGKILL, handed back because it held no result for it (runtimed logs
 * `re-queued` with `why: restart`; a result it had kept is reported instead, never run again), and
 * the earlier execution did its work before its agent had stopped its steps: the step had done its
 * work, but its end was not yet recorded; at-least-once, as for any executor that can die. Anything
 * else is a duplicate, the defect this counts, including a step that outlived its killed agent and
 * did its work after its agent stopped its steps.
 */
export function classifyExecutions(
  effects: Effect[],
  handedBack: Map<string, number>,
  kills: AgentKill[],
  /**
   * Every Run an agent handed back as stale (`why: stale`): with several agents, one cut off from the
   * API server stops its steps (its fence) before another may take them, so a later attempt of a
   * step that had done its work before the hand-back, and did not start before it ended, is a re-run.
   */
  stale?: Map<string, number[]>,
): { duplicates: Effect[]; reruns: Effect[]; staleReruns: Effect[]; atOnce: Effect[] } {
  const byKey = new Map<string, Effect[]>();
  for (const e of effects) byKey.set(e.key, [...(byKey.get(e.key) ?? []), e]);
  const duplicates: Effect[] = [];
  const reruns: Effect[] = [];
  const staleReruns: Effect[] = [];
  const atOnce: Effect[] = [];
  for (const list of byKey.values()) {
    list.sort((a, b) => (a.start ?? a.at) - (b.start ?? b.at));
    for (let i = 1; i < list.length; i++) {
      const prev = list[i - 1] as Effect;
      const cur = list[i] as Effect;
      // Started before the earlier one had done its work: the same step twice at once.
      if (cur.start !== undefined && cur.start < prev.at) {
        atOnce.push(cur);
        duplicates.push(cur);
        continue;
      }
      const later = cur.attempt > prev.attempt && cur.run === prev.run;
      const kill = killBefore(kills, handedBack.get(cur.run));
      if (later && kill !== undefined && prev.at < kill.stepsStoppedAt) reruns.push(cur);
      else if (later && (stale?.get(cur.run) ?? []).some((t) => prev.at <= t)) staleReruns.push(cur);
      else duplicates.push(cur);
    }
  }
  return { duplicates, reruns, staleReruns, atOnce };
}

/** Runs an agent handed back as stale, from its log: name (in `namespace`) -> when, each time. */
export function requeuedStale(agentLog: string, namespace: string): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const [run, at] of runLines(agentLog, namespace, '"why":"stale"', '"msg":"re-queued"'))
    out.set(run, [...(out.get(run) ?? []), at]);
  return out;
}

/** Each line of an agent's log holding all of `marks`, about a Run of `namespace`: its name and time. */
function* runLines(agentLog: string, namespace: string, ...marks: string[]): Generator<[string, number]> {
  for (const line of agentLog.split('\n')) {
    if (!marks.every((m) => line.includes(m))) continue;
    const run = /"run":"([^"/]+)\/([^"]+)"/.exec(line);
    const time = /"time":"([^"]+)"/.exec(line);
    if (run && time && run[1] === namespace) yield [run[2] as string, Date.parse(time[1] as string)];
  }
}

/** The kill a restart followed: the last one before the agent handed the Run back. */
export function killBefore(kills: AgentKill[], requeuedAt: number | undefined): AgentKill | undefined {
  if (requeuedAt === undefined) return undefined;
  return kills.filter((k) => k.at <= requeuedAt).sort((a, b) => b.at - a.at)[0];
}

/** Runs an agent handed back on its restart, from its log: name (in `namespace`) -> when. */
export function requeuedOnRestart(agentLog: string, namespace: string): Map<string, number> {
  return new Map(runLines(agentLog, namespace, '"why":"restart"'));
}

/**
 * The API server's requests counted across its restarts (its counters start again at zero), from
 * the first reading on: what came before it (earlier loads on the same environment) is not counted.
 */
export class RequestCounter {
  private total = 0;
  private last: number | undefined;
  /** `read`: apiserver_request_total summed, undefined when the API server did not answer. */
  constructor(private readonly read: () => number | undefined) {}
  sample(): void {
    const now = this.read();
    if (now === undefined) return;
    if (this.last !== undefined) this.total += now >= this.last ? now - this.last : now;
    this.last = now;
  }
  get value(): number {
    return this.total;
  }
}

interface StuckRun {
  metadata: { name?: string };
  status?: {
    phase?: string;
    message?: string;
    jobs?: Record<string, { phase?: string; message?: string } | undefined>;
  };
}
interface StuckStep {
  metadata: { name?: string };
  status?: { phase?: string; assignedTo?: string; heartbeatTime?: string; reason?: string; message?: string };
}

/**
 * Why a run did not finish, in one line: its phase, each job not done with what it says, and each
 * of its Runs not ended with its holder and how old its last heartbeat is.
 */
export function whyStuck(run: StuckRun | undefined, name: string, steps: StuckStep[], now: number): string {
  if (!run) return `${name}: gone (its WorkflowRun no longer exists)`;
  const parts = [
    `${name}: ${run.status?.phase ?? 'no status'}${run.status?.message ? ` (${run.status.message})` : ''}`,
  ];
  for (const [job, s] of Object.entries(run.status?.jobs ?? {}))
    if (s && !['Succeeded', 'Skipped'].includes(s.phase ?? ''))
      parts.push(`job ${job} ${s.phase ?? '?'}${s.message ? `: ${s.message}` : ''}`);
  for (const r of steps) {
    const s = r.status ?? {};
    if (['Succeeded', 'Failed', 'Cancelled', 'Timeout'].includes(s.phase ?? '')) continue;
    const beat = s.heartbeatTime
      ? `, heartbeat ${Math.round((now - Date.parse(s.heartbeatTime)) / 1000)} s ago`
      : '';
    const holder = s.assignedTo ? ` on ${s.assignedTo}${beat}` : '';
    const why = s.reason || s.message ? ` (${[s.reason, s.message].filter(Boolean).join(': ')})` : '';
    parts.push(`Run ${r.metadata.name ?? '?'} ${s.phase ?? 'unclaimed'}${holder}${why}`);
  }
  return parts.join('; ');
}
