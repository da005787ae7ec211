// The executor of the bash runtime: each step a process in a bubblewrap sandbox, started by the
// launcher (launcher-client.ts), in a folder of its own under the agent's work directory.
import { join } from 'node:path';
import type { Run } from '../src/api/types.js';
import type { Ending } from '../src/runtime/lifecycle.js';
import { stepLimitsFor, stepNetwork, type SandboxOptions } from '../src/runtime/sandbox-command.js';
import { log } from '../src/telemetry/log.js';
import { reapOrphans } from './execute.js';
import type { Executor } from './executor.js';
import { Launcher, type RunningStep } from './launcher-client.js';
import type { NamespaceReads } from './namespace-reads.js';
import type { Runtime } from './runtime.js';

export interface ProcessExecutorOptions {
  /** This identity's folder of executions: a restart finds what it left behind there. */
  workDir: string;
  graceMs: number;
  maxLogBytes: number;
  sandbox?: SandboxOptions & { uidBase?: number };
}

export class ProcessExecutor implements Executor {
  readonly outlivesAgent = false;
  private launcher: Launcher | undefined;

  constructor(
    private readonly opts: ProcessExecutorOptions,
    private readonly namespaces: NamespaceReads,
  ) {}

  async start(): Promise<void> {
    this.launcher = new Launcher();
    const orphans = await reapOrphans(this.opts.workDir);
    if (orphans) log.warn({ orphans }, 'stopped steps left running by an earlier process of this agent');
  }

  stop(): void {
    this.launcher?.close();
  }

  healthy(): boolean {
    return true;
  }

  async cancelUnclaimed(): Promise<void> {
    // Nothing runs: a process ends with its agent.
  }

  async execute(claimed: Run, runtime: Runtime, logFile: string, attempts: number): Promise<RunningStep> {
    const base = this.opts.sandbox;
    const sandbox = base
      ? {
          ...base,
          network: stepNetwork(base.network, await this.namespaces.network(claimed.metadata.namespace ?? '')),
        }
      : undefined;
    const limits = sandbox ? stepLimitsFor(sandbox.limits, claimed.spec.limits) : undefined;
    const secrets = await this.namespaces.secretEnv(claimed);
    if ('error' in secrets) return notStarted({ secretError: secrets.error });
    if (!this.launcher) throw new Error('the process executor has not started');
    return this.launcher.start(claimed, runtime, {
      dir: join(this.opts.workDir, `${claimed.metadata.uid ?? ''}-${attempts}`),
      logFile,
      maxLogBytes: this.opts.maxLogBytes,
      graceMs: this.opts.graceMs,
      ...(sandbox && limits ? { sandbox: { ...sandbox, limits: limits.limits } } : {}),
      ...(Object.keys(secrets.values).length ? { secrets: secrets.values } : {}),
      ...(limits?.capped.length ? { notes: limits.capped } : {}),
    });
  }
}

/** A step that ends before it starts (its Secrets could not be read): reported like any other end. */
function notStarted(why: Partial<Omit<Ending, 'now'>>): RunningStep {
  return {
    done: Promise.resolve({
      exitCode: null,
      signal: null,
      outputFile: '',
      controlFile: '',
      tail: '',
      ...why,
    }),
    stopReason: undefined,
    stop: () => undefined,
  };
}
