// The agent's side of the step sandbox: its options from the flags and the machine, and the check at
// start that it works here (a missing bwrap or a kernel that refuses user namespaces stops the agent
// with the failed check named, unless --insecure-no-sandbox).
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import {
  ETC_FILES,
  sandboxCommand,
  SYSTEM_PATHS,
  type SandboxOptions,
  type StepLimits,
} from '../src/runtime/sandbox-command.js';
import { seccompFilter, seccompSupported } from '../src/runtime/seccomp.js';
import { log } from '../src/telemetry/log.js';
import { FlagError, type AgentSettings } from './settings.js';

/** What the host has of each system folder: a folder, a link (merged /usr), or nothing. */
export function systemOf(paths = SYSTEM_PATHS): SandboxOptions['system'] {
  const out: SandboxOptions['system'] = [];
  for (const path of paths) {
    if (!existsSync(path)) continue;
    const st = lstatSync(path);
    out.push(st.isSymbolicLink() ? { path, link: readlinkSync(path) } : { path });
  }
  return out;
}

export function sandboxOptions(bwrap: string, limits: StepLimits, network: boolean): SandboxOptions {
  return { bwrap, limits, network, system: systemOf(), etc: ETC_FILES.filter((f) => existsSync(f)) };
}

/**
 * The seccomp filter written where the agent opens it for each step (only the agent reads it: bwrap
 * gets it as an open file). Without it on a machine the filter is not written for.
 */
export function withSeccomp(o: SandboxOptions, workDir: string): SandboxOptions {
  if (!seccompSupported()) return o;
  const dir = join(workDir, '.sandbox');
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  const file = join(dir, 'seccomp.bpf');
  writeFileSync(file, seccompFilter(), { mode: 0o600 });
  return { ...o, seccomp: file };
}

/** The stdio of a sandboxed step: its seccomp filter open as fd SECCOMP_FD when it has one. */
export function sandboxStdio(o: SandboxOptions | undefined): {
  stdio: ('ignore' | 'pipe' | number)[];
  close(): void;
} {
  const fd = o?.seccomp ? openSync(o.seccomp, 'r') : undefined;
  return {
    stdio: ['ignore', 'pipe', 'pipe', ...(fd !== undefined ? [fd] : [])],
    close: () => {
      if (fd !== undefined) closeSync(fd);
    },
  };
}

/**
 * For a root agent whose steps run as other uids: bwrap copied where those uids may run it (a cache
 * under /root is not), in the agent's work folder.
 */
export function prepareSandbox(o: SandboxOptions, workDir: string): SandboxOptions {
  const dir = join(workDir, '.sandbox');
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  chmodSync(dir, 0o755);
  const bwrap = join(dir, 'bwrap');
  copyFileSync(o.bwrap, `${bwrap}.new`);
  chmodSync(`${bwrap}.new`, 0o755);
  rmSync(bwrap, { force: true });
  copyFileSync(`${bwrap}.new`, bwrap);
  chmodSync(bwrap, 0o755);
  rmSync(`${bwrap}.new`, { force: true });
  return { ...o, bwrap };
}

/**
 * Runs a trial step in the sandbox as `uid`, with its files in `workDir` as a real step's are; the
 * reason when it does not work, else undefined.
 */
export function sandboxProblem(
  o: SandboxOptions,
  uid: number | undefined,
  workDir: string,
): string | undefined {
  const version = spawnSync(o.bwrap, ['--version'], { encoding: 'utf8' });
  if (version.error || version.status !== 0)
    return `bubblewrap is not there: "${o.bwrap} --version" failed (${version.error?.message ?? version.stderr.trim()})`;
  mkdirSync(workDir, { recursive: true, mode: 0o755 });
  chmodSync(workDir, 0o755);
  const dir = mkdtempSync(join(workDir, '.sandbox-check-'));
  chmodSync(dir, 0o755);
  try {
    const f = (n: string) => {
      const p = join(dir, n);
      writeFileSync(p, '');
      return p;
    };
    const files = {
      script: f('script'),
      output: f('output'),
      control: f('control'),
      status: f('status'),
      passwd: f('passwd'),
      group: f('group'),
      input: dir,
      outputDir: dir,
    };
    const { file, args } = sandboxCommand(o, files, ['/bin/sh', '-c', 'test "$(id -u)" != 0']);
    const io = sandboxStdio(o);
    const r = spawnSync(file, args, {
      encoding: 'utf8',
      timeout: 10_000,
      stdio: io.stdio,
      ...(uid !== undefined ? { uid, gid: uid } : {}),
    });
    io.close();
    if (r.error || r.status !== 0)
      return `a trial step in the sandbox failed (are user namespaces allowed, and every folder above ${workDir} open to other users?): ${(r.error?.message ?? r.stderr).trim() || `exit ${r.status}`}`;
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The sandbox the agent's process steps run in, set up and tried once; undefined when no step runs
 * as a process, or with --insecure-no-sandbox. A sandbox that does not work here is a FlagError.
 */
export function stepSandbox(bwrap: string, s: AgentSettings, insecure: boolean): SandboxOptions | undefined {
  // Only Pods: nothing runs in this agent's own container, so there is no sandbox to set up.
  if (!s.processes) return undefined;
  if (insecure) {
    log.warn('--insecure-no-sandbox: steps run as this agent, and can reach everything it can');
    return undefined;
  }
  let sandbox = sandboxOptions(bwrap, s.limits, s.network);
  try {
    if (s.uidBase !== undefined) sandbox = prepareSandbox(sandbox, s.workDir);
  } catch (e) {
    throw new FlagError(`the step sandbox cannot be set up: --bwrap ${bwrap}: ${(e as Error).message}`, 1);
  }
  sandbox = withSeccomp(sandbox, s.workDir);
  if (!sandbox.seccomp) log.warn({ arch: process.arch }, 'no seccomp filter for steps on this architecture');
  const problem = sandboxProblem(sandbox, s.uidBase, s.workDir);
  if (problem)
    throw new FlagError(
      `the step sandbox does not work here: ${problem}. Fix it, or start with --insecure-no-sandbox to run steps without one.`,
      1,
    );
  return sandbox;
}
