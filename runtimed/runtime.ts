// A runtime turns a Run's script into a process. `bash` is built in; a `python` runtime would be
// another entry of the same shape.
export interface Paths {
  /** The fresh working directory of the step, also $KRT_WORKSPACE. */
  workspace: string;
  /** The file holding the script. */
  script: string;
}

export interface Runtime {
  readonly name: string;
  /** A process in the sandbox, or a Pod (the runtime of container steps, docs/runtimes.md). */
  readonly executor: 'process' | 'pod';
  command(paths: Paths): { file: string; args: string[] };
}

export const bashRuntime: Runtime = {
  name: 'bash',
  executor: 'process',
  // docs/design.md §3: no profile or rc files, stop on the first failing command, and on a failure
  // anywhere in a pipeline.
  command: (p) => ({ file: 'bash', args: ['--noprofile', '--norc', '-eo', 'pipefail', p.script] }),
};

/** Each step a Pod (runtimed/pod-executor.ts); served as `--runtimes kubernetes=pod`. */
export const podRuntime: Runtime = {
  name: 'pod',
  executor: 'pod',
  command: () => {
    throw new Error('the pod runtime runs no process of its own');
  },
};

export const BUILT_IN: Record<string, Runtime> = { bash: bashRuntime, pod: podRuntime };

/**
 * Parses `--runtimes bash,fast=bash,kubernetes=pod`: each entry serves Runs whose spec.runtime is the name, with the
 * built-in runtime after "=" (the name itself when there is none), so agents can serve pools.
 */
export function parseRuntimes(flag: string): Map<string, Runtime> | { error: string } {
  const served = new Map<string, Runtime>();
  for (const entry of flag
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [name = '', impl = name] = entry.split('=');
    const runtime = BUILT_IN[impl];
    if (!runtime)
      return {
        error: `--runtimes: unknown runtime "${impl}" (built in: ${Object.keys(BUILT_IN).join(', ')})`,
      };
    served.set(name, runtime);
  }
  return served.size ? served : { error: '--runtimes: at least one runtime is needed' };
}
