// `krt run list|get|logs`: the step Runs runtimed executes.
import type { Command } from 'commander';
import type { Run, WorkflowRun } from '../../src/api/types.js';
import { LABEL_JOB, LABEL_STEP, LABEL_WORKFLOWRUN_UID } from '../../src/labels.js';
import { followFile } from '../../src/runtime/follow.js';
import { isTerminal } from '../../src/runtime/lifecycle.js';
import { connect, UsageError, type Connection } from '../connect.js';
import { localDataDir, logFileOf } from '../logsource.js';
import { apiLog } from '../remotelog.js';
import { age, outputOption, printStructured, table, type Format } from '../output.js';
import { duration } from '../tree.js';
import { getObject, listObjects, mustGet } from './fetch.js';

type Globals = () => { namespace?: string; kubeconfig?: string; context?: string };

export function runCommands(program: Command, globals: Globals): void {
  const run = program.command('run').description('step executions (Runs)');

  run
    .command('list')
    .description('the Runs of the namespace')
    .option('--workflowrun <name>', 'only the Runs of this WorkflowRun (not of its child runs)')
    .addOption(outputOption())
    .action(async (opts: { output: Format; workflowrun?: string }) => {
      const c = connect(globals());
      let selector: string | undefined;
      if (opts.workflowrun) {
        const owner = await mustGet<WorkflowRun>(c, 'workflowruns', opts.workflowrun);
        selector = `${LABEL_WORKFLOWRUN_UID}=${owner.metadata.uid ?? ''}`;
      }
      const items = await listObjects<Run>(c, 'runs', selector);
      if (printStructured(opts.output, { apiVersion: 'v1', kind: 'List', items })) return;
      for (const line of runTable(items, new Date())) console.log(line);
    });

  run
    .command('get <name>')
    .description('one Run: phase, exit code, reason, outputs and the end of its log')
    .addOption(outputOption())
    .action(async (name: string, opts: { output: Format }) => {
      const c = connect(globals());
      const r = await mustGet<Run>(c, 'runs', name);
      if (printStructured(opts.output, r)) return;
      const s = r.status ?? {};
      const rows: [string, string | undefined][] = [
        ['Name', r.metadata.name],
        ['Runtime', r.spec.runtime],
        ['Phase', s.phase ?? 'Pending'],
        ['Reason', s.reason],
        ['Message', s.message],
        ['Exit code', s.exitCode === undefined ? undefined : String(s.exitCode)],
        ['Agent', s.assignedTo],
        ['Attempts', s.attempts === undefined ? undefined : String(s.attempts)],
        ['Duration', duration(s.startTime, s.completionTime, new Date())],
        ...Object.entries(s.outputs ?? {}).map(([k, v]): [string, string] => [`Output ${k}`, v]),
      ];
      for (const [k, v] of rows) if (v !== undefined) console.log(`${`${k}:`.padEnd(14)}${v}`);
      if (s.logTail) {
        console.log('Log tail:');
        for (const line of s.logTail.replace(/\n$/, '').split('\n')) console.log(`  ${line}`);
      }
    });

  run
    .command('logs <name>')
    .description('the full log of a Run (of its latest attempt)')
    .option('-f, --follow', 'keep printing until the Run ends')
    .action(async (name: string, opts: { follow?: boolean }) => {
      const c = connect(globals());
      await printLog(c, await mustGet<Run>(c, 'runs', name), Boolean(opts.follow));
    });
}

/** `krt run list`: one row a Run. */
function runTable(items: Run[], now: Date): string[] {
  const rows = items.map((r) => [
    r.metadata.name ?? '',
    r.metadata.labels?.[LABEL_JOB] ?? '-',
    r.metadata.labels?.[LABEL_STEP] ?? '-',
    r.status?.phase ?? 'Pending',
    r.status?.exitCode === undefined ? '-' : String(r.status.exitCode),
    r.status?.assignedTo ?? '-',
    duration(r.status?.startTime, r.status?.completionTime, now),
    age(r.metadata.creationTimestamp, now),
  ]);
  return table(['NAME', 'JOB', 'STEP', 'PHASE', 'EXIT', 'AGENT', 'DURATION', 'AGE'], rows);
}

async function printLog(c: Connection, r: Run, follow: boolean): Promise<void> {
  const name = r.metadata.name ?? '';
  const remote = process.env.KRT_RUNTIMED_URL;
  if (remote) return printRemote(c, remote, name, follow);
  const dataDir = localDataDir();
  // The log file appears when an agent claims the Run.
  let run = r;
  while (follow && !run.status?.attempts && !isTerminal(run)) {
    await new Promise((res) => setTimeout(res, 300));
    run = (await getObject<Run>(c, 'runs', name)) ?? run;
  }
  const file = logFileOf(run, dataDir);
  if (file) {
    await followFile(file, {
      follow,
      ended: async () => {
        const now = await getObject<Run>(c, 'runs', name);
        return !now || isTerminal(now) || now.status?.attempts !== run.status?.attempts;
      },
      write: (chunk) => process.stdout.write(chunk),
    });
    return;
  }
  // Not on this machine: through the API server, from the agent that ran the step.
  if ((await apiLog(c, name, { follow, write: (chunk) => process.stdout.write(chunk) })) === 'done') return;
  if (run.status?.logTail) {
    console.error(
      `(the full log is not on this machine and the cluster serves no logs.kruntimes.io; the last 4 KiB from status.logTail follow)`,
    );
    process.stdout.write(run.status.logTail);
    return;
  }
  console.error(`run "${name}" has no log yet`);
}

/** Streams from an agent's log endpoint with the kubeconfig's bearer token. */
async function printRemote(c: Connection, base: string, name: string, follow: boolean): Promise<void> {
  const token = c.kc.getCurrentUser()?.token;
  if (!token) throw new UsageError('KRT_RUNTIMED_URL needs a kubeconfig user with a bearer token');
  const url = `${base.replace(/\/$/, '')}/namespaces/${encodeURIComponent(c.namespace)}/runs/${encodeURIComponent(name)}/log${follow ? '?follow=true' : ''}`;
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok || !res.body) throw new Error(`${url}: ${res.status} ${(await res.text()).trim()}`);
  for await (const chunk of res.body) process.stdout.write(chunk);
}
