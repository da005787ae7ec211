// `krt validate -f <files or folders>`: the admission answer without a cluster. The same code and
// messages as the webhook; call targets are looked up among the Workflows in the given files.
import type { Command } from 'commander';
import type { PromiseObject, Run, Workflow, WorkflowRun } from '../../src/api/types.js';
import { formatFieldError } from '../../src/fielderror.js';
import {
  validateRun,
  validateWorkflow,
  validateWorkflowRun,
  validatePromise,
  type ValidationResult,
} from '../../src/validate/index.js';
import { manifestFiles, readManifests, type Manifest } from '../files.js';
import { isObject } from '../../src/helpers.js';

export interface ValidateOutput {
  lines: string[];
  invalid: number;
  valid: number;
}

export function validateManifests(paths: string[]): ValidateOutput {
  const manifests = manifestFiles(paths).flatMap(readManifests);
  const out: ValidateOutput = { lines: [], invalid: 0, valid: 0 };
  const ours = (m: Manifest) =>
    isObject(m.object) &&
    typeof m.object.apiVersion === 'string' &&
    m.object.apiVersion.startsWith('kruntimes.io/');
  const workflows = workflowsByNamespace(manifests.filter(ours));
  for (const m of manifests) {
    const where = `${m.file}${m.index > 1 ? `#${m.index}` : ''}`;
    if (m.parseError) {
      out.invalid++;
      out.lines.push(`${where}: not valid YAML: ${m.parseError}`);
      continue;
    }
    if (m.object === null || m.object === undefined) continue;
    if (!ours(m)) continue;
    const obj = m.object as { kind?: string; metadata?: { name?: string; namespace?: string } };
    const label = `${where}: ${obj.kind}/${obj.metadata?.name ?? '(no name)'}`;
    const result = validateObject(obj, workflows);
    for (const w of result.warnings) out.lines.push(`${label}: warning: ${w}`);
    if (result.errors.length > 0) {
      out.invalid++;
      for (const e of result.errors) out.lines.push(`${label}: ${formatFieldError(e)}`);
    } else {
      out.valid++;
      out.lines.push(`${label}: valid`);
    }
  }
  return out;
}

/** The Workflows among the manifests, by namespace then name: what calls are looked up in. */
function workflowsByNamespace(manifests: Manifest[]): Map<string, Map<string, Workflow>> {
  const workflows = new Map<string, Map<string, Workflow>>();
  for (const m of manifests) {
    if ((m.object as { kind?: string }).kind !== 'Workflow') continue;
    const wf = m.object as Workflow;
    const ns = wf.metadata?.namespace ?? 'default';
    if (!workflows.has(ns)) workflows.set(ns, new Map());
    workflows.get(ns)?.set(wf.metadata?.name ?? '', wf);
  }
  return workflows;
}

/** One object of ours, by the admission rules of its kind. */
function validateObject(
  obj: { kind?: string; metadata?: { namespace?: string } },
  workflows: Map<string, Map<string, Workflow>>,
): ValidationResult {
  const here = workflows.get(obj.metadata?.namespace ?? 'default') ?? new Map<string, Workflow>();
  switch (obj.kind) {
    case 'Workflow':
      return validateWorkflow(obj as Workflow, { others: here });
    case 'WorkflowRun':
      return validateWorkflowRun(obj as WorkflowRun, { lookup: (n) => here.get(n) });
    case 'Run':
      return validateRun(obj as Run);
    case 'Promise':
      return validatePromise(obj as PromiseObject, undefined, (namespace, n) =>
        workflows.get(namespace)?.get(n),
      );
    default:
      return {
        errors: [{ field: 'kind', message: `unknown kind ${JSON.stringify(obj.kind)} in kruntimes.io` }],
        warnings: [],
      };
  }
}

/** Adds `validate -f` to a command (`krt validate` and `krt workflow validate`): exit 0 valid, 2 invalid. */
export function validateCommand(parent: Command, description: string): void {
  parent
    .command('validate')
    .description(description)
    .requiredOption('-f, --filename <paths...>', 'files or folders of manifests')
    .action((opts: { filename: string[] }) => {
      const out = validateManifests(opts.filename);
      for (const line of out.lines) console.log(line);
      if (out.valid + out.invalid === 0) console.log('no kruntimes.io objects found');
      process.exitCode = out.invalid > 0 ? 2 : 0;
    });
}
