// The agent's side of the launcher (launcher.ts): one child process, executions addressed by id.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Run } from '../src/api/types.js';
import type { Ending } from '../src/runtime/lifecycle.js';
import { log } from '../src/telemetry/log.js';
import type { ExecuteOptions } from './execute.js';
import type { FromLauncher, ToLauncher } from './launcher.js';
import type { Runtime } from './runtime.js';
import { sendToPeer } from './ipc.js';

type StopReason = 'timeout' | 'cancel' | 'release';

/** What the agent holds of one execution: the same face as a local Execution. */
export interface RunningStep {
  readonly done: Promise<Omit<Ending, 'now'>>;
  readonly stopReason: StopReason | undefined;
  stop(reason: StopReason): void;
  /** Why the step has not started yet, when it waits (a full quota): the Run's message says it. */
  readonly waiting?: string | undefined;
}

export class Launcher {
  private readonly child: ChildProcess;
  private readonly waiting = new Map<string, (e: Omit<Ending, 'now'>) => void>();
  private next = 0;
  private closing = false;

  constructor() {
    this.child = fork(fileURLToPath(new URL('./launcher.js', import.meta.url)), [], {
      serialization: 'advanced',
      env: { ...process.env, KRT_COMPONENT: 'runtimed-launcher' },
    });
    this.child.on('message', (m: FromLauncher) => {
      this.waiting.get(m.id)?.(m.ending);
      this.waiting.delete(m.id);
    });
    this.child.on('exit', (code, signal) => {
      if (this.closing) return;
      // Steps it ran are gone with it; a clean restart of the agent re-queues their Runs.
      log.fatal({ code, signal }, 'the launcher exited; stopping the agent');
      process.exit(1);
    });
  }

  start(run: Run, runtime: Runtime, opts: ExecuteOptions): RunningStep {
    const id = String(this.next++);
    let reason: StopReason | undefined;
    const done = new Promise<Omit<Ending, 'now'>>((resolve) => this.waiting.set(id, resolve));
    this.send({ type: 'start', id, run, runtime: runtime.name, opts });
    return {
      done,
      get stopReason() {
        return reason;
      },
      stop: (r) => {
        if (reason) return;
        reason = r;
        this.send({ type: 'stop', id, reason: r });
      },
    };
  }

  close(): void {
    this.closing = true;
    this.child.disconnect();
  }

  private send(m: ToLauncher): void {
    void sendToPeer(this.child, m);
  }
}
