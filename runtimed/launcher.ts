// The launcher: a small child process of runtimed that starts and watches the step processes.
// Node forks the whole calling process to start a child, so starting bash from the agent (with its
// API client and caches, ~140 MB) cost a third of the agent's busy time and blocked its event loop;
// from this process (~40 MB, no API client) it is cheaper and off the agent's loop.
// Protocol (process IPC): in {start | stop}, out {end}. When the agent goes away, every step dies.
import '../src/node-version.js';
import type { Run } from '../src/api/types.js';
import { Execution, type ExecuteOptions } from './execute.js';
import { log } from '../src/telemetry/log.js';
import { BUILT_IN } from './runtime.js';
import { sendToPeer } from './ipc.js';

export type ToLauncher =
  | { type: 'start'; id: string; run: Run; runtime: string; opts: ExecuteOptions }
  | { type: 'stop'; id: string; reason: 'timeout' | 'cancel' | 'release' };
export type FromLauncher = { type: 'end'; id: string; ending: Awaited<Execution['done']> };

const executions = new Map<string, Execution>();
const slots = new Set<number>();
const send = (m: FromLauncher) => void sendToPeer(process, m);

process.on('message', (m: ToLauncher) => {
  if (m.type === 'stop') return executions.get(m.id)?.stop(m.reason);
  const runtime = BUILT_IN[m.runtime];
  if (!runtime) {
    const ending = {
      exitCode: null,
      signal: null,
      startError: `unknown runtime "${m.runtime}"`,
      outputFile: '',
      controlFile: '',
      tail: '',
    };
    return send({ type: 'end', id: m.id, ending });
  }
  // Each running step of a root agent gets a uid no other running step has: its processes, files
  // and process limit are its own.
  const sandbox = m.opts.sandbox;
  let slot: number | undefined;
  if (sandbox?.uidBase !== undefined) {
    slot = 0;
    while (slots.has(slot)) slot++;
    slots.add(slot);
  }
  const opts =
    sandbox && slot !== undefined
      ? { ...m.opts, sandbox: { ...sandbox, uid: (sandbox.uidBase ?? 0) + slot } }
      : m.opts;
  const exec = new Execution(m.run, runtime, opts);
  executions.set(m.id, exec);
  void exec.done.then((ending) => {
    if (slot !== undefined) slots.delete(slot);
    executions.delete(m.id);
    send({ type: 'end', id: m.id, ending });
  });
});

// The agent exited or was killed: nobody will report these steps, so none may go on running
// (a restarted agent re-queues their Runs). The line logged after the kill marks when they were
// stopped (make chaos reads it).
process.on('disconnect', () => {
  for (const exec of executions.values()) exec.kill();
  log.warn({ steps: executions.size }, 'the agent went away; stopped its steps');
  process.exit(0);
});
