// `krt workflowrun get|list|cancel|resume|logs|watch` (alias `wfr`).
import type { Command } from 'commander';
import { runEnded, workflowRunEnded } from '../../src/api/phases.js';
import type { WorkflowRun } from '../../src/api/types.js';
import { LABEL_SUSPENDED, LABEL_WORKFLOW } from '../../src/labels.js';
import { crd } from '../../src/kube/rest.js';
import { connect, UsageError, type Connection } from '../connect.js';
import { localDataDir, logFileOf, LinePrefixer, readFrom } from '../logsource.js';
import { apiLog } from '../remotelog.js';
import { age, outputOption, printStructured, table, type Format } from '../output.js';
import { duration, renderTree, stepsInOrder, suspendedRuns } from '../tree.js';
import { listObjects, loadTree, mustGet } from './fetch.js';
import { waitForRun } from './wait.js';

type Globals = () => { namespace?: string; kubeconfig?: string; context?: string };

export function workflowRunCommands(program: Command, globals: Globals): void {
  const wfr = program.command('workflowrun').alias('wfr').description('runs of workflows');

  wfr
    .command('get <name>')
    .description('the run as a tree: its jobs, call jobs with their child runs, steps, phases and outputs')
    .addOption(outputOption())
    .action(async (name: string, opts: { output: Format }) => {
      const c = connect(globals());
      if (printStructured(opts.output, await mustGet<WorkflowRun>(c, 'workflowruns', name))) return;
      for (const line of renderTree(await loadTree(c, name), new Date())) console.log(line);
    });

  wfr
    .command('list')
    .description('the WorkflowRuns of the namespace')
    .option('-w, --workflow <name>', 'only runs made from this Workflow')
    .option('--all', 'include child runs of call jobs')
    .addOption(outputOption())
    .action((opts: { output: Format; workflow?: string; all?: boolean }) =>
      listRuns(connect(globals()), opts),
    );

  wfr
    .command('cancel <name>')
    .description('request cancellation; running steps are stopped and child runs cancelled first')
    .option('--wait', 'follow the run until it ends')
    .action(async (name: string, opts: { wait?: boolean }) => {
      const c = connect(globals());
      await mustGet<WorkflowRun>(c, 'workflowruns', name);
      await c.kube.patch({ ...crd('workflowruns', c.namespace), name }, { spec: { cancelRequested: true } });
      console.log(`workflowrun/${name} cancel requested`);
      if (opts.wait) process.exitCode = await waitForRun(c, name);
    });

  wfr
    .command('resume <name>')
    .description(
      'resume a suspended run: removes the suspended label from the run (the root or a child) that holds the suspended job',
    )
    .option('--wait', 'follow the run until it ends, as trigger --wait does')
    .action(async (name: string, opts: { wait?: boolean }) => resume(connect(globals()), name, opts.wait));
  wfr
    .command('watch <name>')
    .description(
      'follow the run with a line per job change until it ends (exit 1 if it fails or is cancelled)',
    )
    .action(async (name: string) => {
      const c = connect(globals());
      await mustGet<WorkflowRun>(c, 'workflowruns', name);
      process.exitCode = await waitForRun(c, name);
    });

  wfr
    .command('logs <name>')
    .description("every step's log across the nested tree, in order, each line prefixed with job and step")
    .option('-f, --follow', 'keep printing until the run ends')
    .action(async (name: string, opts: { follow?: boolean }) => {
      const c = connect(globals());
      await printRunLogs(c, name, Boolean(opts.follow));
    });
}

/** `krt wfr list`: the namespace's root runs (or all), as a table or a structured list. */
async function listRuns(
  c: Connection,
  opts: { output: Format; workflow?: string; all?: boolean },
): Promise<void> {
  let items = await listObjects<WorkflowRun>(
    c,
    'workflowruns',
    opts.workflow ? `${LABEL_WORKFLOW}=${opts.workflow}` : undefined,
  );
  if (!opts.all)
    items = items.filter((w) => !w.metadata.ownerReferences?.some((o) => o.kind === 'WorkflowRun'));
  if (printStructured(opts.output, { apiVersion: 'v1', kind: 'List', items })) return;
  const now = new Date();
  const rows = items.map((w) => [
    w.metadata.name ?? '',
    w.metadata.labels?.[LABEL_WORKFLOW] ?? '-',
    w.status?.phase ?? 'Pending',
    w.status?.progress ?? '-',
    duration(w.status?.startedAt, w.status?.finishedAt, now),
    age(w.metadata.creationTimestamp, now),
    w.status?.message ?? '',
  ]);
  for (const line of table(['NAME', 'WORKFLOW', 'PHASE', 'PROGRESS', 'DURATION', 'AGE', 'MESSAGE'], rows))
    console.log(line);
}

/** `krt wfr resume`: removes the suspended label from every run of the tree that holds a suspended job. */
async function resume(c: Connection, name: string, wait: boolean | undefined): Promise<void> {
  await mustGet<WorkflowRun>(c, 'workflowruns', name);
  const held = suspendedRuns(await loadTree(c, name));
  if (held.length === 0) throw new UsageError(`workflowrun ${name} has no suspended job`);
  for (const r of held) {
    await c.kube.patch(
      { ...crd('workflowruns', c.namespace), name: r.metadata.name ?? '' },
      { metadata: { labels: { [LABEL_SUSPENDED]: null } } },
    );
    console.log(`workflowrun/${r.metadata.name} resumed`);
  }
  if (wait) process.exitCode = await waitForRun(c, name);
}

export async function printRunLogs(c: Connection, name: string, follow: boolean): Promise<void> {
  const dataDir = localDataDir();
  const offsets = new Map<string, number>();
  const prefixers = new Map<string, LinePrefixer>();
  const tailed = new Set<string>();
  for (;;) {
    const tree = await loadTree(c, name);
    const ended = workflowRunEnded(tree.run.status?.phase);
    for (const { prefix, step } of stepsInOrder(tree)) {
      const run = step.run;
      if (!run) continue;
      const runName = run.metadata.name ?? '';
      const file = logFileOf(run, dataDir);
      const key = `${runName}#${run.status?.attempts ?? 0}`;
      const p = prefixers.get(key) ?? new LinePrefixer(prefix);
      prefixers.set(key, p);
      const stepEnded = runEnded(run.status?.phase);
      if (file) {
        const chunk = await readFrom(file, offsets.get(key) ?? 0);
        offsets.set(key, (offsets.get(key) ?? 0) + chunk.length);
        for (const line of p.push(chunk.toString('utf8'))) console.log(line);
        if (stepEnded) for (const line of p.flush()) console.log(line);
      } else if (stepEnded && !tailed.has(key)) {
        // No full log here: through the API server once the step has ended, else the tail the
        // agent kept in the Run's status.
        tailed.add(key);
        let text = '';
        const got = await apiLog(c, runName, {
          follow: false,
          write: (chunk) => (text += chunk.toString('utf8')),
        });
        if (got === 'no-api') text = run.status?.logTail ?? '';
        for (const line of [...p.push(text), ...p.flush()]) console.log(line);
      }
    }
    if (!follow || ended) {
      for (const p of prefixers.values()) for (const line of p.flush()) console.log(line);
      return;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}
