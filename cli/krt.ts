// krt: the command-line client of kruntimes. Exit codes: 0 success, 1 a run failed or was cancelled,
// 2 usage or validation error.
import { Command, CommanderError } from 'commander';
import { validateManifests } from './commands/validate.js';
import { workflowCommands } from './commands/workflow.js';
import { UsageError } from './connect.js';

export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

export function program(): Command {
  const krt = new Command('krt')
    .description('kruntimes: Kubernetes-native workflows, validated at apply time')
    .option('-n, --namespace <namespace>', 'namespace (default: the kubeconfig context, else default)')
    .option('--kubeconfig <file>', 'kubeconfig file (default: KUBECONFIG)')
    .exitOverride()
    .configureOutput({ outputError: (s, write) => write(s) });
  workflowCommands(krt, () => krt.opts());

  krt
    .command('validate')
    .description('validate manifests offline with the admission rules (exit 0 valid, 2 invalid)')
    .requiredOption('-f, --filename <paths...>', 'files or folders of manifests')
    .action((opts: { filename: string[] }) => {
      const out = validateManifests(opts.filename);
      for (const line of out.lines) console.log(line);
      if (out.valid + out.invalid === 0) console.log('no kruntimes.io objects found');
      process.exitCode = out.invalid > 0 ? EXIT.usage : EXIT.ok;
    });
  return krt;
}

async function main(argv: string[]): Promise<void> {
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
    const { statusMessage } = await import('../src/kube/client.js');
    console.error(`krt: ${statusMessage(e).split('\n')[0]}`);
    process.exitCode = EXIT.failed;
  }
}

await main(process.argv);
