// One execution of a Run's script: a fresh working directory, the KRT_* files, the process in its
// own process group (so a stop reaches every child), the full log on disk and a tail in memory.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { chown, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Run } from '../src/api/types.js';
import { MAX_CONTROL_FILE_BYTES } from '../src/runtime/control-file.js';
import { MAX_STATUS_FILE_BYTES } from '../src/runtime/statusfile.js';
import type { Ending } from '../src/runtime/lifecycle.js';
import { MAX_OUTPUT_FILE_BYTES } from '../src/runtime/outputs.js';
import { readBounded, readOutputDir, writeFiles } from '../src/runtime/outputdir.js';
import {
  INSIDE,
  limitHit,
  sandboxCommand,
  STEP_GROUP,
  STEP_PASSWD,
  type SandboxOptions,
} from '../src/runtime/sandbox-command.js';
import type { Runtime } from './runtime.js';
import { StepLog } from './step-log.js';
import { sandboxStdio } from './sandbox-setup.js';

export interface ExecuteOptions {
  /** The folder for this execution; removed afterwards. */
  dir: string;
  /** Where the full output goes. */
  logFile: string;
  /** Bytes of log kept on disk per execution; output beyond it is dropped with a note. */
  maxLogBytes: number;
  /** Between SIGTERM and SIGKILL. */
  graceMs: number;
  /** Runs the step in a bubblewrap sandbox; without it, on the host as the agent (insecure). */
  sandbox?: SandboxOptions & {
    /** The uid and gid the sandbox runs as on the host (a root agent gives each step its own). */
    uid?: number;
    /** Where the launcher takes those uids from: base + a slot no running step holds. */
    uidBase?: number;
  };
  /** Variables read from Secrets (valueFrom.secretKeyRef): given to the step, masked in its output. */
  secrets?: Record<string, string>;
  /** Lines runtimed writes at the head of the log (a limit capped to the agent's ceiling). */
  notes?: string[];
}

export class Execution {
  readonly done: Promise<Omit<Ending, 'now'>>;
  private pgid: number | undefined;
  private stoppedFor: Ending['stoppedFor'] | 'release';
  private killTimer: NodeJS.Timeout | undefined;
  private timeoutTimer: NodeJS.Timeout | undefined;

  constructor(
    run: Run,
    runtime: Runtime,
    private readonly opts: ExecuteOptions,
  ) {
    this.done = this.execute(run, runtime);
  }

  /** SIGTERM to the process group, then SIGKILL after the grace period. The first reason wins. */
  stop(reason: 'timeout' | 'cancel' | 'release'): void {
    if (this.stoppedFor) return;
    this.stoppedFor = reason;
    if (this.pgid !== undefined) this.terminate();
  }

  /** SIGKILL to the process group at once: the agent is going away and cannot wait. */
  kill(): void {
    this.stoppedFor ??= 'release';
    this.signal('SIGKILL');
  }

  private terminate(): void {
    this.signal('SIGTERM');
    this.killTimer = setTimeout(() => this.signal('SIGKILL'), this.opts.graceMs);
  }

  /** Why runtimed stopped it ('release' when the agent shuts down and hands it back). */
  get stopReason(): 'timeout' | 'cancel' | 'release' | undefined {
    return this.stoppedFor;
  }

  private signal(sig: NodeJS.Signals): void {
    try {
      if (this.pgid !== undefined) process.kill(-this.pgid, sig);
    } catch {
      // the group is already gone
    }
  }

  private async execute(run: Run, runtime: Runtime): Promise<Omit<Ending, 'now'>> {
    try {
      return await this.run(run, runtime);
    } catch (e) {
      // The folder or the files could not be made (a full or read-only disk): the Run fails
      // with the reason instead of staying Running until its heartbeat goes stale.
      await rm(this.opts.dir, { recursive: true, force: true }).catch(() => undefined);
      return {
        exitCode: null,
        signal: null,
        startError: `cannot prepare the step: ${(e as Error | undefined)?.message ?? String(e)}`,
        outputFile: '',
        controlFile: '',
        outputDir: { files: {} },
        tail: '',
      };
    }
  }

  private async run(run: Run, runtime: Runtime): Promise<Omit<Ending, 'now'>> {
    const { dir, sandbox } = this.opts;
    const paths = await stepFolder(dir, run, sandbox?.uid, sandbox !== undefined);
    await mkdir(dirname(this.opts.logFile), { recursive: true });
    const log = new StepLog(this.opts.logFile, this.opts.maxLogBytes, this.opts.secrets ?? {});
    // The step sees only its own variables and the KRT_* contract, not the agent's credentials;
    // in the sandbox, at the paths it mounts them.
    const at = sandbox ? { ...INSIDE } : { ...paths.files, ...paths };
    const env = { ...stepEnv(run, at, sandbox !== undefined), ...this.opts.secrets };
    for (const note of this.opts.notes ?? []) log.note(note);
    const plain = runtime.command({ workspace: at.workspace, script: at.script });
    const { file, args } = sandbox
      ? sandboxCommand(
          sandbox,
          {
            ...paths.files,
            input: paths.input,
            outputDir: paths.outputDir,
            passwd: join(paths.meta, 'passwd'),
            group: join(paths.meta, 'group'),
          },
          [plain.file, ...plain.args],
        )
      : plain;
    const result = await this.spawn(run, file, args, { cwd: paths.workspace, env, onData: log.data });
    // Children that left the group's leader behind are stopped with it.
    this.signal('SIGKILL');
    clearTimeout(this.killTimer);
    clearTimeout(this.timeoutTimer);
    const { tail, raw } = await log.end();
    // What the step reports back is masked like its log: the values must not reach the Run.
    const masked = (v: string | { bytes: number }) => (typeof v === 'string' ? log.masker.text(v) : v);
    const outputFile = masked(await readBounded(paths.files.output, MAX_OUTPUT_FILE_BYTES));
    const control = masked(await readBounded(paths.files.control, MAX_CONTROL_FILE_BYTES));
    const statusFile = masked(await readBounded(paths.files.status, MAX_STATUS_FILE_BYTES));
    const outputDirFiles = await readOutputDir(paths.outputDir);
    await rm(dir, { recursive: true, force: true });
    return {
      ...result,
      stoppedFor: this.stoppedFor === 'release' ? undefined : this.stoppedFor,
      outputFile,
      controlFile: control,
      statusFile,
      outputDir: outputDirFiles,
      ...(sandbox ? stepLimit(result, raw) : {}),
      tail,
      ...(run.spec.timeoutSeconds ? { timeoutSeconds: run.spec.timeoutSeconds } : {}),
    };
  }

  /** The step's process, the leader of its own group; resolves when it and its output pipes end. */
  private spawn(
    run: Run,
    file: string,
    args: string[],
    o: { cwd: string; env: Record<string, string>; onData: (b: Buffer) => void },
  ): Promise<{ exitCode: number | null; signal: string | null; startError?: string }> {
    const uid = this.opts.sandbox?.uid;
    return new Promise((resolve) => {
      const io = sandboxStdio(this.opts.sandbox);
      const child = spawn(file, args, {
        cwd: o.cwd,
        env: o.env,
        detached: true,
        stdio: io.stdio,
        ...(uid !== undefined ? { uid, gid: uid } : {}),
      });
      // The child has its own copy of the filter's descriptor once it is spawned.
      io.close();
      this.pgid = child.pid;
      // A restarted agent stops what its previous life left running (see reapOrphans).
      if (child.pid) writeFileSync(join(this.opts.dir, 'pgid'), String(child.pid));
      child.stdout?.on('data', o.onData);
      child.stderr?.on('data', o.onData);
      child.on('error', (e) => resolve({ exitCode: null, signal: null, startError: e.message }));
      // 'close' waits for the output pipes, so the tail is complete.
      child.on('close', (code, sig) => resolve({ exitCode: code, signal: sig }));
      if (this.stoppedFor) this.terminate();
      const seconds = run.spec.timeoutSeconds;
      if (seconds) this.timeoutTimer = setTimeout(() => this.stop('timeout'), seconds * 1000);
    });
  }
}

/** The execution's folder: workspace, the KRT_* files, the input and output trees. */
async function stepFolder(dir: string, run: Run, uid: number | undefined, sandboxed: boolean) {
  const workspace = join(dir, 'workspace');
  const meta = join(dir, 'meta');
  await mkdir(workspace, { recursive: true });
  await mkdir(meta, { recursive: true });
  const input = join(dir, 'input');
  const outputDir = join(dir, 'output');
  await writeFiles(input, run.spec.inputFiles ?? {});
  await writeFiles(outputDir, run.spec.outputFiles ?? {});
  const files = {
    script: join(meta, 'script'),
    output: join(meta, 'output'),
    control: join(meta, 'workflow-control.yaml'),
    status: join(meta, 'status.yaml'),
  };
  await Promise.all([
    writeFile(files.script, run.spec.script ?? ''),
    writeFile(files.output, ''),
    writeFile(files.control, ''),
    writeFile(files.status, ''),
  ]);
  if (sandboxed) {
    await writeFile(join(meta, 'passwd'), STEP_PASSWD);
    await writeFile(join(meta, 'group'), STEP_GROUP);
    // What the step writes is its own; everything else it may only read.
    if (uid !== undefined)
      for (const f of [files.output, files.control, files.status, outputDir]) await chownTree(f, uid);
  }
  return { workspace, meta, input, outputDir, files };
}

/** The step's whole environment: the KRT_* contract at `at`, and its own plain variables. */
function stepEnv(
  run: Run,
  at: {
    workspace: string;
    output: string;
    control: string;
    status: string;
    input: string;
    outputDir: string;
  },
  sandboxed: boolean,
): Record<string, string> {
  return {
    PATH: sandboxed ? '/usr/local/bin:/usr/bin:/bin' : (process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin'),
    HOME: at.workspace,
    LANG: process.env.LANG ?? 'C.UTF-8',
    KRT_OUTPUT: at.output,
    KRUNTIME_OUTPUTS: at.output,
    KRT_CONTROL: at.control,
    KRT_STATUS: at.status,
    KRT_WORKSPACE: at.workspace,
    KRT_INPUT: at.input,
    KRT_OUTPUT_DIR: at.outputDir,
    KRT_RUN: run.metadata.name ?? '',
    KRT_ATTEMPT: String(run.status?.attempts ?? 1),
    ...Object.fromEntries(
      (run.spec.env ?? []).flatMap((e) => (e.valueFrom ? [] : [[e.name, e.value ?? '']])),
    ),
  };
}

/**
 * The limit a step ran into: any, when it failed; the process limit even when its script exited 0,
 * since commands it could not fork never ran (a fork bomb's script often ends well).
 */
function stepLimit(
  result: { exitCode: number | null; signal: string | null },
  tail: string,
): { limit?: string } {
  const limit = limitHit(result, tail);
  return limit && (result.exitCode !== 0 || limit === 'processes') ? { limit } : {};
}

async function chownTree(path: string, uid: number): Promise<void> {
  await chown(path, uid, uid);
  const st = await stat(path);
  if (st.isDirectory()) for (const e of await readdir(path)) await chownTree(join(path, e), uid);
}

/**
 * Kills the process groups of executions left in `workDir` by an earlier process of the same agent
 * (one that was killed and could not stop its steps), so a re-queued Run never runs twice at once.
 */
export async function reapOrphans(workDir: string): Promise<number> {
  let killed = 0;
  for (const entry of await readdir(workDir).catch(() => [] as string[])) {
    const dir = join(workDir, entry);
    const pgid = Number(await readFile(join(dir, 'pgid'), 'utf8').catch(() => ''));
    if (Number.isInteger(pgid) && pgid > 1) {
      try {
        process.kill(-pgid, 'SIGKILL');
        killed++;
      } catch {
        // already gone
      }
    }
    await rm(dir, { recursive: true, force: true });
  }
  return killed;
}
