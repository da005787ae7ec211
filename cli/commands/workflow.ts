// `krt workflow trigger|list|get` (alias `wf`).
import type { Command } from 'commander';
import type { Workflow, WorkflowRun } from '../../src/api/types.js';
import { formatFieldError } from '../../src/fielderror.js';
import { validateCallGraph } from '../../src/graph/callgraph.js';
import { crd, statusCode } from '../../src/kube/rest.js';
import { parseInputFlags, triggeredRun } from '../../src/render/trigger.js';
import { connect, UsageError, type Connection } from '../connect.js';
import { age, outputOption, printStructured, table, type Format } from '../output.js';
import { listObjects, mustGet } from './fetch.js';
import { validateCommand } from './validate.js';
import { waitForRun } from './wait.js';

async function getWorkflow(c: Connection, name: string): Promise<Workflow | undefined> {
  try {
    return await c.kube.get<Workflow>({ ...crd('workflows', c.namespace), name });
  } catch (e) {
    if (statusCode(e) === 404) return undefined;
    throw e;
  }
}

export const WORKFLOW_COLUMNS = ['NAME', 'READY', 'JOBS', 'INPUTS', 'OUTPUTS', 'AGE'];

/** One row of `krt wf list`: READY as `kubectl get wf` shows it (the Ready condition's status). */
export function workflowRow(w: Workflow, now = new Date()): string[] {
  return [
    w.metadata.name ?? '',
    w.status?.conditions?.find((c) => c.type === 'Ready')?.status ?? '',
    String(Object.keys(w.spec.jobs).length),
    Object.keys(w.spec.inputs ?? {}).join(',') || '-',
    Object.keys(w.spec.outputs ?? {}).join(',') || '-',
    age(w.metadata.creationTimestamp, now),
  ];
}

/** Creates a run of the template, checked and rendered as admission would; nothing is made on failure. */
async function trigger(
  c: Connection,
  name: string,
  inputs: Parameters<typeof triggeredRun>[1],
): Promise<WorkflowRun> {
  const template = await getWorkflow(c, name);
  if (!template) throw new UsageError(`workflow "${name}" not found in namespace "${c.namespace}"`);
  // The same graph check and text as the webhook and the controller.
  const graph = await validateCallGraph(name, (n) => getWorkflow(c, n));
  if (graph.error) throw new UsageError(graph.error);
  const built = triggeredRun(template, inputs);
  if ('errors' in built) throw new UsageError(built.errors.map(formatFieldError).join('\n'));
  return await c.kube.create<WorkflowRun>(crd('workflowruns', c.namespace), built.run);
}

/** `krt wf get`: a Workflow's inputs, jobs (with what they call) and outputs. */
function describeWorkflow(name: string, w: Workflow): string[] {
  const lines = [`Workflow ${name}`, 'Inputs:'];
  for (const [k, i] of Object.entries(w.spec.inputs ?? {}))
    lines.push(
      `  ${k}${i.required ? ' (required)' : ''}${i.default !== undefined ? ` default=${String(i.default)}` : ''}`,
    );
  lines.push('Jobs:');
  for (const [k, j] of Object.entries(w.spec.jobs))
    lines.push(
      `  ${k}${j.needs?.length ? ` needs ${j.needs.join(',')}` : ''}${j.uses ? ` -> calls ${j.uses}` : ` (${j.steps?.length ?? 0} steps on ${j['runs-on'] ?? '?'})`}`,
    );
  lines.push('Outputs:');
  for (const [k, o] of Object.entries(w.spec.outputs ?? {})) lines.push(`  ${k} = ${o.value}`);
  return lines;
}

export function workflowCommands(
  program: Command,
  globals: () => { namespace?: string; kubeconfig?: string; context?: string },
): void {
  const wf = program.command('workflow').alias('wf').description('reusable Workflow templates');
  wf.command('trigger <name>')
    .description('validate a template and its inputs, render them, and create an inline WorkflowRun')
    .option(
      '-i, --input <key=value>',
      'an input of the template (repeatable)',
      (v: string, acc: string[]) => [...acc, v],
      [],
    )
    .option('--wait', 'follow the run until it ends; exit 1 when it fails or is cancelled')
    .action(async (name: string, opts: { input: string[]; wait?: boolean }) => {
      const inputs = parseInputFlags(opts.input);
      if ('errors' in inputs) throw new UsageError(inputs.errors.map(formatFieldError).join('\n'));
      const c = connect(globals());
      const created = await trigger(c, name, inputs.values);
      console.log(created.metadata.name);
      if (opts.wait) process.exitCode = await waitForRun(c, created.metadata.name ?? '');
    });
  wf.command('list')
    .description('list the Workflows of the namespace')
    .addOption(outputOption())
    .action(async (opts: { output: Format }) => {
      const c = connect(globals());
      const items = await listObjects<Workflow>(c, 'workflows');
      if (printStructured(opts.output, { apiVersion: 'v1', kind: 'List', items })) return;
      for (const line of table(
        WORKFLOW_COLUMNS,
        items.map((w) => workflowRow(w)),
      ))
        console.log(line);
    });
  wf.command('get <name>')
    .description('one Workflow: its inputs, jobs (with what they call) and outputs')
    .addOption(outputOption())
    .action(async (name: string, opts: { output: Format }) => {
      const c = connect(globals());
      const w = await mustGet<Workflow>(c, 'workflows', name);
      if (!printStructured(opts.output, w)) for (const line of describeWorkflow(name, w)) console.log(line);
    });
  validateCommand(
    wf,
    'validate Workflow manifests offline with the admission rules (same as `krt validate`)',
  );
}
