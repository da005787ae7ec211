#!/usr/bin/env node
// krt: the command-line client of kruntimes. Exit codes: 0 success, 1 a run failed or was cancelled,
// 2 usage or validation error.
import '../src/node-version.js';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import { log } from '../src/telemetry/log.js';
import { agentCommands } from './commands/agent.js';
import { promiseCommands } from './commands/promise.js';
import { validateCommand } from './commands/validate.js';
import { runCommands } from './commands/run.js';
import { workflowCommands } from './commands/workflow.js';
import { workflowRunCommands } from './commands/workflowrun.js';
import { UsageError } from './connect.js';

export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** The version in this package's package.json, from a clone (cli/) or an install (dist/cli/). */
function packageVersion(): string {
  for (const up of ['..', '../..']) {
    try {
      const pkg = JSON.parse(
        readFileSync(fileURLToPath(new URL(`${up}/package.json`, import.meta.url)), 'utf8'),
      ) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'kruntimes-ts' && pkg.version) return pkg.version;
    } catch {
      // not at this level
    }
  }
  return 'unknown';
}

export function program(): Command {
  const krt = new Command('krt')
    .description('kruntimes: Kubernetes-native workflows, validated at apply time')
    .option('-n, --namespace <namespace>', 'namespace (default: the kubeconfig context, else default)')
    .option(
      '--kubeconfig <file>',
      'kubeconfig file (default: KUBECONFIG, which may list several files, merged as kubectl does)',
    )
    .option('--context <name>', 'kubeconfig context to use (default: its current context)')
    .version(packageVersion(), '--version', 'print the version of krt')
    .exitOverride()
    .configureOutput({ outputError: (s, write) => write(s) });
  workflowCommands(krt, () => krt.opts());
  workflowRunCommands(krt, () => krt.opts());
  runCommands(krt, () => krt.opts());
  agentCommands(krt, () => krt.opts());
  promiseCommands(krt, () => krt.opts());

  validateCommand(krt, 'validate manifests offline with the admission rules (exit 0 valid, 2 invalid)');
  return krt;
}

async function main(argv: string[]): Promise<void> {
  // The shared core logs JSON to stdout for the components; krt's stdout is its output, and it
  // reports its own errors.
  log.level = 'silent';
  try {
    await program().parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      process.exitCode = e.exitCode === 0 ? 0 : EXIT.usage;
      return;
    }
    if (e instanceof UsageError) {
      console.error(`krt: ${e.message}`);
      process.exitCode = EXIT.usage;
      return;
    }
    // Anything else is the cluster's answer or the network: one line, not a stack trace.
    const unreachable = networkError(e);
    if (unreachable) {
      console.error(`krt: cannot reach the cluster: ${unreachable}`);
    } else {
      const { statusMessage } = await import('../src/kube/rest.js');
      console.error(`krt: ${statusMessage(e).split('\n')[0]}`);
    }
    process.exitCode = EXIT.failed;
  }
}

/** The reason of a connection failure anywhere in the error's cause chain, such as ECONNREFUSED. */
function networkError(e: unknown): string | undefined {
  for (let x: unknown = e, i = 0; x && i < 5; i++, x = (x as { cause?: unknown }).cause) {
    const code = (x as { code?: unknown }).code;
    if (
      typeof code === 'string' &&
      /^(ECONNREFUSED|ENOTFOUND|ETIMEDOUT|ECONNRESET|EHOSTUNREACH|EAI_AGAIN)$/.test(code)
    )
      return `${(x as Error).message ?? code}`.split('\n')[0];
  }
  return undefined;
}

await main(process.argv);
