// `krt promise list|get` and `krt resource get|logs KIND NAME`: Promises, and one resource of a
// Promise's API as a tree (resource -> pipelines -> WorkflowRuns -> jobs -> steps) and its logs.
import type { Command } from 'commander';
import type { PromiseObject, ResourceObject } from '../../src/api/types.js';
import { GROUP, VERSION } from '../../src/api/crds.js';
import { statusCode } from '../../src/kube/rest.js';
import { connect, UsageError, type Connection } from '../connect.js';
import { age, outputOption, printStructured, table, type Format } from '../output.js';
import { renderResourceTree } from '../resource-tree.js';
import type { RunNode } from '../tree.js';
import { loadTree } from './fetch.js';
import { printRunLogs } from './workflowrun.js';

type Globals = () => { namespace?: string; kubeconfig?: string; context?: string };

async function listPromises(c: Connection): Promise<PromiseObject[]> {
  const list = await c.kube.list<PromiseObject>({ group: GROUP, version: VERSION, plural: 'promises' });
  return list.items ?? [];
}

const condition = (p: PromiseObject, type: string) => p.status?.conditions?.find((x) => x.type === type);

/** The Promise serving KIND: matched by kind, plural or singular, case-insensitively. */
async function promiseOf(c: Connection, kind: string): Promise<PromiseObject> {
  const want = kind.toLowerCase();
  const found = (await listPromises(c)).find((p) => {
    const api = p.status?.api;
    const names = (p.spec.api as { spec?: { names?: { singular?: string } } }).spec?.names;
    return [api?.kind, api?.plural, names?.singular].some((n) => n?.toLowerCase() === want);
  });
  if (!found?.status?.api?.group) throw new UsageError(`no available Promise serves the kind "${kind}"`);
  return found;
}

async function getResource(c: Connection, p: PromiseObject, name: string): Promise<ResourceObject> {
  const api = p.status?.api ?? {};
  try {
    return await c.kube.get<ResourceObject>({
      group: api.group ?? '',
      version: api.version ?? '',
      plural: api.plural ?? '',
      namespace: c.namespace,
      name,
    });
  } catch (e) {
    if (statusCode(e) === 404)
      throw new UsageError(`${api.kind} "${name}" not found in namespace "${c.namespace}"`);
    throw e;
  }
}

const pipelineRuns = (r: ResourceObject) =>
  (r.status?.kruntimes?.workflows?.pipelines ?? []).flatMap((p) =>
    p.workflowRunName ? [p.workflowRunName] : [],
  );

export function promiseCommands(program: Command, globals: Globals): void {
  const promise = program.command('promise').description('Promises: resource APIs with their workflows');
  promise
    .command('list')
    .description('the Promises, their APIs and how many of their resources are configured')
    .addOption(outputOption())
    .action(async (opts: { output: Format }) => listAll(connect(globals()), opts.output));
  promise
    .command('get <name>')
    .description('one Promise: its API, its pipelines and its conditions')
    .addOption(outputOption())
    .action(async (name: string, opts: { output: Format }) =>
      describePromise(connect(globals()), name, opts.output),
    );

  const resource = program.command('resource').description('resources of a Promise API');
  resource
    .command('get <kind> <name>')
    .description('the resource as a tree: its pipelines, their WorkflowRuns, jobs and steps')
    .addOption(outputOption())
    .action(async (kind: string, name: string, opts: { output: Format }) => {
      const c = connect(globals());
      const r = await getResource(c, await promiseOf(c, kind), name);
      if (printStructured(opts.output, r)) return;
      const trees = new Map<string, RunNode>();
      for (const run of pipelineRuns(r)) {
        const tree = await loadTree(c, run).catch(() => undefined);
        if (tree) trees.set(run, tree);
      }
      for (const line of renderResourceTree(r, trees, new Date())) console.log(line);
    });
  resource
    .command('logs <kind> <name>')
    .description("every step's log of the current configure workflow, pipeline by pipeline")
    .option('-f, --follow', 'keep printing until the workflow stops running')
    .action(async (kind: string, name: string, opts: { follow?: boolean }) => {
      const c = connect(globals());
      const p = await promiseOf(c, kind);
      const done = new Set<string>();
      for (;;) {
        const r = await getResource(c, p, name);
        for (const run of pipelineRuns(r)) {
          if (done.has(run)) continue;
          console.log(`== pipeline run ${run}`);
          await printRunLogs(c, run, Boolean(opts.follow));
          done.add(run);
        }
        const phase = r.status?.kruntimes?.workflows?.phase;
        if (!opts.follow || (phase !== 'Running' && phase !== 'Pending')) return;
        await new Promise((res) => setTimeout(res, 500));
      }
    });
}

/** `krt promise list`: the Promises with their APIs and how many resources are configured. */
async function listAll(c: Connection, output: Format): Promise<void> {
  const items = await listPromises(c);
  if (printStructured(output, { apiVersion: 'v1', kind: 'List', items })) return;
  const now = new Date();
  const rows = items.map((p) => [
    p.metadata.name ?? '',
    p.status?.api?.kind ?? '-',
    p.status?.api ? `${p.status.api.group}/${p.status.api.version}` : '-',
    condition(p, 'Available')?.status ?? 'Unknown',
    p.status?.summary ?? '-',
    age(p.metadata.creationTimestamp, now),
    condition(p, 'Available')?.status === 'True' ? '' : (p.status?.message ?? ''),
  ]);
  for (const line of table(['NAME', 'KIND', 'API', 'AVAILABLE', 'CONFIGURED', 'AGE', 'MESSAGE'], rows))
    console.log(line);
}

/** `krt promise get`: one Promise's API, pipelines and conditions. */
async function describePromise(c: Connection, name: string, output: Format): Promise<void> {
  const p = (await listPromises(c)).find((x) => x.metadata.name === name);
  if (!p) throw new UsageError(`promise "${name}" not found`);
  if (printStructured(output, p)) return;
  const api = p.status?.api;
  const flows = p.spec.workflows?.resource ?? {};
  console.log(`Promise/${name}`);
  console.log(`  API:        ${api ? `${api.kind} (${api.plural}.${api.group}/${api.version})` : '-'}`);
  console.log(`  Configure:  ${(flows.configure ?? []).map((x) => x.metadata.name).join(' -> ') || '-'}`);
  console.log(`  Delete:     ${(flows.delete ?? []).map((x) => x.metadata.name).join(', ') || '-'}`);
  console.log(`  Resources:  ${p.status?.resources ?? 0} (${p.status?.configured ?? 0} configured)`);
  for (const x of p.status?.conditions ?? [])
    console.log(`  ${x.type}: ${x.status} (${x.reason ?? ''}) ${x.message ?? ''}`.trimEnd());
}
