// The nested view of a WorkflowRun: its jobs in dependency order, call jobs with their child runs,
// inline jobs with their step Runs. Built from listed objects (no owner-reference chasing by the
// user), rendered as text, and walked in the same order by `logs`.
import type { JobStatus, Run, WorkflowRun } from '../src/api/types.js';
import { topologicalOrder } from '../src/graph/jobs.js';
import {
  LABEL_CALL_JOB,
  LABEL_JOB,
  LABEL_PARENT_UID,
  LABEL_STEP,
  LABEL_SUSPENDED,
  LABEL_WORKFLOWRUN_UID,
} from '../src/labels.js';

export interface StepNode {
  name: string;
  phase: string;
  run?: Run;
}

export interface JobNode {
  name: string;
  /** Job names from the root down to this one. */
  path: string[];
  status: JobStatus;
  steps: StepNode[];
  child?: RunNode;
}

export interface RunNode {
  run: WorkflowRun;
  jobs: JobNode[];
}

export function buildTree(
  root: WorkflowRun,
  workflowRuns: WorkflowRun[],
  runs: Run[],
  path: string[] = [],
): RunNode {
  const uid = root.metadata.uid ?? '';
  const jobs = root.spec.jobs ?? {};
  const order = topologicalOrder(jobs);
  return {
    run: root,
    jobs: order.map((name) => {
      const status = root.status?.jobs?.[name] ?? { phase: 'Pending' };
      const job = jobs[name];
      const jobPath = [...path, name];
      const node: JobNode = { name, path: jobPath, status, steps: [] };
      if (job?.uses) {
        const child = workflowRuns.find(
          (w) =>
            w.metadata.labels?.[LABEL_PARENT_UID] === uid && w.metadata.labels?.[LABEL_CALL_JOB] === name,
        );
        if (child) node.child = buildTree(child, workflowRuns, runs, jobPath);
      } else {
        const mine = runs.filter(
          (r) =>
            r.metadata.labels?.[LABEL_WORKFLOWRUN_UID] === uid && r.metadata.labels?.[LABEL_JOB] === name,
        );
        node.steps = (job?.steps ?? []).map((s) => {
          const stepStatus = status.steps?.find((x) => x.name === s.name);
          // The newest Run of the step, when a job was re-executed.
          const run =
            mine.find((r) => r.metadata.name === stepStatus?.runName) ??
            mine.filter((r) => r.metadata.labels?.[LABEL_STEP] === s.name).at(-1);
          return {
            name: s.name,
            phase: run?.status?.phase ?? stepStatus?.phase ?? 'Pending',
            ...(run ? { run } : {}),
          };
        });
      }
      return node;
    }),
  };
}

/** "12s", "3m04s", "1h02m": from start to end, or to now while it runs. */
export function duration(start: string | undefined, end: string | undefined, now: Date): string {
  if (!start) return '-';
  const ms = (end ? Date.parse(end) : now.getTime()) - Date.parse(start);
  if (!Number.isFinite(ms) || ms < 0) return '-';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

const outputsText = (o: Record<string, string> | undefined) =>
  Object.entries(o ?? {})
    .map(([k, v]) => `${k}=${v.length > 60 ? `${v.slice(0, 57)}...` : v.replace(/\n/g, '\\n')}`)
    .join(' ');

export function renderTree(tree: RunNode, now: Date): string[] {
  const lines: string[] = [];
  const r = tree.run;
  const s = r.status ?? {};
  lines.push(
    [r.metadata.name, s.phase ?? 'Pending', duration(s.startedAt, s.finishedAt, now), outputsText(s.outputs)]
      .filter(Boolean)
      .join('  ') + (s.message && s.phase !== 'Succeeded' ? `  (${s.message})` : ''),
  );
  const walk = (node: RunNode, indent: string) => {
    node.jobs.forEach((j, i) => {
      const last = i === node.jobs.length - 1;
      const branch = `${indent}${last ? '└─ ' : '├─ '}`;
      const under = `${indent}${last ? '   ' : '│  '}`;
      const js = j.status;
      const cells = [
        j.name,
        js.phase ?? 'Pending',
        duration(js.startedAt, js.finishedAt, now),
        outputsText(js.outputs),
      ];
      if (js.phase === 'Suspended') {
        cells.push(`attempt ${js.attempts ?? 1}`);
        if (js.nextRetryAt) cells.push(`retry in ${duration(now.toISOString(), js.nextRetryAt, now)}`);
      }
      const why = js.message && js.phase !== 'Succeeded' ? `  (${js.message})` : '';
      lines.push(branch + cells.filter(Boolean).join('  ') + why);
      if (j.child) {
        const c = j.child.run;
        const cs = c.status ?? {};
        lines.push(
          `${under}└─ ${c.metadata.name}  ${cs.phase ?? 'Pending'}  ${duration(cs.startedAt, cs.finishedAt, now)}${cs.outputs ? `  ${outputsText(cs.outputs)}` : ''}`,
        );
        walk(j.child, `${under}   `);
      }
      j.steps.forEach((st, k) => {
        const lastStep = k === j.steps.length - 1;
        const rs = st.run?.status;
        const exit = rs?.exitCode !== undefined && rs.exitCode !== 0 ? `  exit ${rs.exitCode}` : '';
        const reason = rs?.reason && !['Completed'].includes(rs.reason) ? `  ${rs.reason}` : '';
        lines.push(
          `${under}${lastStep ? '└─ ' : '├─ '}step ${st.name}  ${st.phase}  ${duration(rs?.startTime, rs?.completionTime, now)}${exit}${reason}`,
        );
      });
    });
  };
  walk(tree, '');
  return lines;
}

/** Every step Run in tree order, with the prefix its log lines carry: `job/child-job:step`. */
export function stepsInOrder(tree: RunNode): { prefix: string; step: StepNode }[] {
  const out: { prefix: string; step: StepNode }[] = [];
  const walk = (node: RunNode) => {
    for (const j of node.jobs) {
      for (const st of j.steps) out.push({ prefix: `${j.path.join('/')}:${st.name}`, step: st });
      if (j.child) walk(j.child);
    }
  };
  walk(tree);
  return out;
}

/** Every job of the tree with its path, for progress lines. */
export function jobsInOrder(tree: RunNode): JobNode[] {
  const out: JobNode[] = [];
  const walk = (node: RunNode) => {
    for (const j of node.jobs) {
      out.push(j);
      if (j.child) walk(j.child);
    }
  };
  walk(tree);
  return out;
}

/**
 * One progress line of `--wait` for a job. The job's status (written by its run's controller) can
 * lag behind the objects it made: a child run or a step Run that exists proves the job started, so
 * the job reads Running then, and its line never comes after a line of its own steps or children.
 */
export function progressLine(j: JobNode): string {
  const s = j.status;
  const started = j.child !== undefined || j.steps.some((st) => st.run);
  const phase = (s.phase ?? 'Pending') === 'Pending' && started ? 'Running' : (s.phase ?? 'Pending');
  const running = phase === 'Running' ? j.steps.find((st) => st.phase === 'Running')?.name : undefined;
  const child = s.workflowRunName ?? j.child?.run.metadata.name;
  return `${phase}${running ? ` (step ${running})` : ''}${child ? ` -> ${child}` : ''}${s.message ? `: ${s.message}` : ''}`;
}

/** The runs of the tree that hold a suspended job of their own (they carry the suspended label). */
export function suspendedRuns(tree: RunNode): WorkflowRun[] {
  const out: WorkflowRun[] = [];
  const walk = (node: RunNode) => {
    if (node.run.metadata.labels?.[LABEL_SUSPENDED] === 'true') out.push(node.run);
    for (const j of node.jobs) if (j.child) walk(j.child);
  };
  walk(tree);
  return out;
}
