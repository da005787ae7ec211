// The command line of the three components, said once: node:util's parseArgs with a description per
// flag, `--help` (every flag with its default), and a bad flag reported as `<component>: <reason>`
// with exit code 2 instead of a stack trace.
import { parseArgs } from 'node:util';

export interface Flag {
  type: 'string' | 'boolean';
  default?: string | boolean;
  /** One line for --help. */
  help: string;
}
export type Flags = Record<string, Flag>;

type Values<F extends Flags> = {
  [K in keyof F]: F[K]['type'] extends 'boolean' ? boolean | undefined : string | undefined;
};

/** The --help text: a summary, then each flag with its default. */
export function usage(component: string, summary: string, flags: Flags): string {
  const rows = Object.entries(flags).map(([name, f]) => {
    const head = `  --${name}${f.type === 'string' ? ' <value>' : ''}`;
    const def =
      f.default === undefined || f.default === false ? '' : ` (default ${JSON.stringify(f.default)})`;
    return `${head}\n      ${f.help}${def}`;
  });
  return `Usage: kruntimes ${component} [flags]\n\n${summary}\n\nFlags:\n${rows.join('\n')}\n  --help\n      Print this and exit.\n`;
}

/** Parses argv, or tells why it cannot: { help } when --help was asked for. */
export function readFlags<F extends Flags>(
  component: string,
  flags: F,
  argv: string[],
): { values: Values<F> } | { error: string } | { help: true } {
  if (argv.includes('--help') || argv.includes('-h')) return { help: true };
  const options = Object.fromEntries(
    Object.entries(flags).map(([name, f]) => [
      name,
      f.default === undefined ? { type: f.type } : { type: f.type, default: f.default },
    ]),
  ) as Parameters<typeof parseArgs>[0] extends infer C
    ? C extends { options?: infer O }
      ? O
      : never
    : never;
  try {
    const { values } = parseArgs({ args: argv, options, strict: true, allowPositionals: false });
    return { values: values as Values<F> };
  } catch (e) {
    return { error: `${component}: ${(e as Error).message} (see --help)` };
  }
}

/** readFlags for a process: prints --help or the error, and exits. */
export function processFlags<F extends Flags>(component: string, summary: string, flags: F): Values<F> {
  const r = readFlags(component, flags, process.argv.slice(2));
  if ('help' in r) {
    process.stdout.write(usage(component, summary, flags));
    process.exit(0);
  }
  if ('error' in r) {
    console.error(r.error);
    process.exit(2);
  }
  return r.values;
}
