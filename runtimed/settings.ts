// What runtimed's flags say, checked before anything starts: the runtimes it serves, the step
// sandbox's limits, the concurrency that memory holds, its timers. A bad flag is a FlagError naming
// the flag and the rule (runtimed exits 2 with it), never a half-started agent.
import { join } from 'node:path';
import { stepCapacity } from '../src/runtime/capacity.js';
import type { StepLimits } from '../src/runtime/sandbox-command.js';
import { parseRuntimes, type Runtime } from './runtime.js';

const MB = 1024 * 1024;

/** The flags as read (src/flags.ts): strings, booleans, or absent. */
export type FlagValues = Record<string, string | boolean | undefined>;

export class FlagError extends Error {
  constructor(
    message: string,
    /** 2: a flag is wrong; 1: the machine cannot do what the flags ask. */
    readonly exitCode: 1 | 2 = 2,
  ) {
    super(message);
  }
}

export function positive(f: FlagValues, name: string): number {
  const v = Number(f[name]);
  if (!Number.isFinite(v) || v <= 0)
    throw new FlagError(`--${name} must be a positive number, got "${String(f[name])}"`);
  return v;
}

export interface AgentSettings {
  runtimes: Map<string, Runtime>;
  /** Some runtime runs its steps as processes of this agent (in the sandbox), some as Pods. */
  processes: boolean;
  pods: boolean;
  workDir: string;
  /** The first uid of the steps (an agent started as root gives each step its own). */
  uidBase?: number;
  limits: StepLimits;
  network: boolean;
  namespaces: string[];
}

/** The agent's settings from its flags; `root`: it runs as root. */
export function agentSettings(f: FlagValues, root: boolean): AgentSettings {
  const runtimes = parseRuntimes(String(f.runtimes));
  if ('error' in runtimes) throw new FlagError(runtimes.error);
  if (!['host', 'none'].includes(String(f['step-network'])))
    throw new FlagError('--step-network is host or none');
  const executors = [...runtimes.values()].map((r) => r.executor);
  return {
    runtimes,
    processes: executors.includes('process'),
    pods: executors.includes('pod'),
    workDir: typeof f['work-dir'] === 'string' ? f['work-dir'] : join(String(f['data-dir']), 'work'),
    ...(root ? { uidBase: Math.floor(positive(f, 'step-uid-base')) } : {}),
    limits: {
      processes: Math.floor(positive(f, 'step-max-processes')),
      memoryBytes: positive(f, 'step-max-memory-mb') * MB,
      fileBytes: positive(f, 'step-max-file-mb') * MB,
      openFiles: Math.floor(positive(f, 'step-max-open-files')),
      workspaceBytes: positive(f, 'step-max-workspace-mb') * MB,
    },
    network: f['step-network'] === 'host',
    namespaces: String(f.namespaces ?? '')
      .split(',')
      .filter(Boolean),
  };
}

/**
 * The concurrency asked for, lowered so that the scratch areas of the sandboxed steps fit in the
 * agent's memory (--memory-mb); `lowered` when it was.
 */
export function concurrency(
  f: FlagValues,
  sandboxed: AgentSettings | undefined,
): { value: number; lowered: boolean } {
  const requested = Math.floor(positive(f, 'concurrency'));
  if (!sandboxed || f['memory-mb'] === undefined) return { value: requested, lowered: false };
  const c = stepCapacity({
    requested,
    memoryBytes: positive(f, 'memory-mb') * MB,
    workspaceBytes: sandboxed.limits.workspaceBytes,
  });
  if ('error' in c) throw new FlagError(c.error);
  return { value: c.concurrency, lowered: Boolean(c.limitedBy) };
}
