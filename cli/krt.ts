// krt: the command-line client of kruntimes. Exit codes: 0 success, 1 a run failed or was cancelled,
// 2 usage or validation error.
import { Command, CommanderError } from 'commander';
import { validateManifests } from './commands/validate.js';

export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

export function program(): Command {
  const krt = new Command('krt')
    .description('kruntimes: Kubernetes-native workflows, validated at apply time')
    .exitOverride()
    .configureOutput({ outputError: (s, write) => write(s) });

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
    console.error(`krt: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = EXIT.usage;
  }
}

await main(process.argv);
