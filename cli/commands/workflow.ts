// `krt workflow trigger|list|get` (alias `wf`).
import type { Command } from 'commander';
import type { Workflow, WorkflowRun } from '../../src/api/types.js';
import { formatFieldError } from '../../src/fielderror.js';
import { validateCallGraph } from '../../src/graph/callgraph.js';
import { crd, statusCode } from '../../src/kube/client.js';
import { parseInputFlags, triggeredRun } from '../../src/render/trigger.js';
import { connect, UsageError, type Connection } from '../connect.js';
import { waitForRun } from './wait.js';

async function getWorkflow(c: Connection, name: string): Promise<Workflow | undefined> {
  try {
    return (await c.clients.custom.getNamespacedCustomObject({
      ...crd('workflows', c.namespace),
      name,
    })) as Workflow;
  } catch (e) {
    if (statusCode(e) === 404) return undefined;
    throw e;
  }
}

export function workflowCommands(
  program: Command,
  globals: () => { namespace?: string; kubeconfig?: string },
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
      const template = await getWorkflow(c, name);
      if (!template) throw new UsageError(`workflow "${name}" not found in namespace "${c.namespace}"`);
      // The same graph check and text as the webhook and the controller; nothing is created on failure.
      const graph = await validateCallGraph(name, (n) => getWorkflow(c, n));
      if (graph.error) throw new UsageError(graph.error);
      const built = triggeredRun(template, inputs.values);
      if ('errors' in built) throw new UsageError(built.errors.map(formatFieldError).join('\n'));
      const created = (await c.clients.custom.createNamespacedCustomObject({
        ...crd('workflowruns', c.namespace),
        body: built.run,
      })) as WorkflowRun;
      console.log(created.metadata.name);
      if (opts.wait) process.exitCode = await waitForRun(c, created.metadata.name ?? '');
    });
  wf.command('list')
    .description('list the Workflows of the namespace')
    .action(async () => {
      const c = connect(globals());
      const list = (await c.clients.custom.listNamespacedCustomObject({
        ...crd('workflows', c.namespace),
      })) as { items: Workflow[] };
      console.log('NAME'.padEnd(32) + 'JOBS  INPUTS');
      for (const w of list.items)
        console.log(
          `${(w.metadata.name ?? '').padEnd(32)}${String(Object.keys(w.spec.jobs).length).padEnd(6)}${Object.keys(w.spec.inputs ?? {}).join(',')}`,
        );
    });
}
