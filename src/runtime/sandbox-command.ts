// The sandbox of a step (docs/design.md §3; issue "steps isolated from the agent and from each other"):
// bubblewrap with new user, PID, IPC and UTS namespaces (and network, when asked), an unprivileged
// uid inside, a read-only view of the system, a workspace and /tmp of their own (tmpfs, bounded),
// the KRT_* files bound one by one, nothing else of the agent's machine, and resource limits set
// with prlimit before bwrap starts. Pure: runtimed turns this into a process.

import type { Run } from '../api/types.js';

export interface StepLimits {
  /** Processes of the step (RLIMIT_NPROC of its uid): a fork bomb ends the step, not the agent. */
  processes: number;
  /** Bytes of address space (RLIMIT_AS). */
  memoryBytes: number;
  /** Largest file the step may write (RLIMIT_FSIZE). */
  fileBytes: number;
  /** Open files (RLIMIT_NOFILE). */
  openFiles: number;
  /** Bytes of the workspace and of /tmp (each a tmpfs of this size). */
  workspaceBytes: number;
}

export const DEFAULT_STEP_LIMITS: StepLimits = {
  processes: 256,
  memoryBytes: 2 * 1024 ** 3,
  fileBytes: 256 * 1024 ** 2,
  openFiles: 1024,
  workspaceBytes: 512 * 1024 ** 2,
};

/** The host paths of one execution's KRT_* files and folders. */
export interface StepFiles {
  script: string;
  output: string;
  control: string;
  status: string;
  input: string;
  outputDir: string;
  passwd: string;
  group: string;
}

/** Where a step sees them, and so what its KRT_* variables say. */
export const INSIDE = {
  workspace: '/workspace',
  script: '/krt/script',
  output: '/krt/output',
  control: '/krt/workflow-control.yaml',
  status: '/krt/status.yaml',
  input: '/krt/input',
  outputDir: '/krt/output-dir',
} as const;

/** The uid and gid a step has inside its user namespace. */
export const STEP_ID = 1000;

export interface SandboxOptions {
  bwrap: string;
  limits: StepLimits;
  /** Off: the step gets a network namespace of its own (loopback only). */
  network: boolean;
  /**
   * The system folders mounted read-only, with what each is on the host: a folder, a symbolic link
   * (merged /usr: /bin -> usr/bin), or absent.
   */
  system: { path: string; link?: string }[];
  /** Files of /etc a step needs (name resolution, certificates, the dynamic linker), if present. */
  etc: string[];
  /** The seccomp filter (seccomp.ts) to give each step, a file opened as fd SECCOMP_FD of bwrap. */
  seccomp?: string;
}

/** The file descriptor bwrap reads the seccomp filter from: the first after stdin, stdout, stderr. */
export const SECCOMP_FD = 3;

/** The folders of a Debian-like system a step needs, read-only. */
export const SYSTEM_PATHS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
/** Of /etc, only what programs need to run and reach the network; nothing secret. */
export const ETC_FILES = [
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/alternatives',
  '/etc/ssl/certs',
  '/etc/ca-certificates',
  '/etc/resolv.conf',
  '/etc/hosts',
  '/etc/nsswitch.conf',
  '/etc/host.conf',
  '/etc/protocols',
  '/etc/services',
  '/etc/localtime',
  '/etc/mime.types',
];

/** The passwd and group files a step sees: itself only. */
export const STEP_PASSWD = `step:x:${STEP_ID}:${STEP_ID}:krt step:${INSIDE.workspace}:/bin/bash\n`;
export const STEP_GROUP = `step:x:${STEP_ID}:\n`;

/** The command that runs `inner` (the runtime's command, with INSIDE paths) in the sandbox. */
export function sandboxCommand(
  o: SandboxOptions,
  files: StepFiles,
  inner: string[],
): { file: string; args: string[] } {
  const l = o.limits;
  const size = String(l.workspaceBytes);
  const args = [
    `--nproc=${l.processes}`,
    `--as=${l.memoryBytes}`,
    `--fsize=${l.fileBytes}`,
    `--nofile=${l.openFiles}`,
    '--',
    o.bwrap,
    ...namespaces(o),
    ...systemMounts(o, files),
    ...['--size', size, '--tmpfs', '/tmp', '--size', size, '--tmpfs', INSIDE.workspace],
    ...stepFileMounts(files),
    '--chdir',
    INSIDE.workspace,
    '--',
    ...inner,
  ];
  return { file: 'prlimit', args };
}

/** bwrap's options for the step's namespaces, identity and seccomp filter. */
function namespaces(o: SandboxOptions): string[] {
  return [
    // A killed agent (and launcher) leaves no step behind.
    '--die-with-parent',
    '--unshare-user',
    // No user namespace inside it: a step cannot give itself the capabilities one brings, the way
    // into most kernel bugs reachable from an unprivileged process.
    '--disable-userns',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(o.network ? [] : ['--unshare-net']),
    '--uid',
    String(STEP_ID),
    '--gid',
    String(STEP_ID),
    '--hostname',
    'krt-step',
    ...(o.seccomp ? ['--seccomp', String(SECCOMP_FD)] : []),
  ];
}

/** The read-only system, the step's own passwd and group, /proc and /dev. */
function systemMounts(o: SandboxOptions, files: StepFiles): string[] {
  const args: string[] = [];
  for (const s of o.system) {
    if (s.link !== undefined) args.push('--symlink', s.link, s.path);
    else args.push('--ro-bind', s.path, s.path);
  }
  for (const f of o.etc) args.push('--ro-bind-try', f, f);
  args.push('--ro-bind', files.passwd, '/etc/passwd', '--ro-bind', files.group, '/etc/group');
  args.push('--proc', '/proc', '--dev', '/dev');
  return args;
}

/** The KRT_* files, one by one: the script and input read-only, what the step writes bound. */
function stepFileMounts(files: StepFiles): string[] {
  return [
    ...['--ro-bind', files.script, INSIDE.script],
    ...['--bind', files.output, INSIDE.output],
    ...['--bind', files.control, INSIDE.control],
    ...['--bind', files.status, INSIDE.status],
    ...['--ro-bind', files.input, INSIDE.input],
    ...['--bind', files.outputDir, INSIDE.outputDir],
  ];
}

/**
 * Which limit a failed step ran into, from how it ended and the end of its output; undefined when
 * nothing says a limit was hit.
 */
export function limitHit(
  ending: { exitCode: number | null; signal: string | null },
  tail: string,
): 'processes' | 'memory' | 'file size' | 'open files' | 'workspace' | undefined {
  if (ending.signal === 'SIGXFSZ' || /File size limit exceeded/.test(tail)) return 'file size';
  if (/fork: (retry: )?Resource temporarily unavailable|Cannot fork/.test(tail)) return 'processes';
  if (/Too many open files/.test(tail)) return 'open files';
  if (/No space left on device/.test(tail)) return 'workspace';
  if (/Cannot allocate memory|cannot allocate \d+ bytes|out of memory/i.test(tail)) return 'memory';
  return undefined;
}

/** On a namespace: `none` takes the network away from its steps (the agent's setting still caps it). */
export const LABEL_STEP_NETWORK = 'kruntimes.io/step-network';

/**
 * Whether a step gets the network: only when its agent gives it and its namespace does not say
 * `none`; a namespace whose label could not be read gets none (a policy fails closed).
 */
export function stepNetwork(agentGives: boolean, namespaceLabel: string | undefined | Error): boolean {
  if (!agentGives || namespaceLabel instanceof Error) return false;
  return namespaceLabel !== 'none';
}

/** What a Run may ask (spec.limits), in the API's units. */
export type AskedLimits = NonNullable<Run['spec']['limits']>;

const MIB = 1024 ** 2;
const ASKED: { [K in keyof StepLimits]: { field: keyof AskedLimits; unit: number; name: string } } = {
  processes: { field: 'processes', unit: 1, name: 'processes' },
  memoryBytes: { field: 'memoryMiB', unit: MIB, name: 'memory' },
  fileBytes: { field: 'fileMiB', unit: MIB, name: 'file size' },
  openFiles: { field: 'openFiles', unit: 1, name: 'open files' },
  workspaceBytes: { field: 'workspaceMiB', unit: MIB, name: 'workspace' },
};

/**
 * The limits of one step: what its Run asks, else the documented default, never above the agent's
 * ceiling (--step-max-*). Each limit capped is named, so the step's log can say so.
 */
export function stepLimitsFor(
  ceiling: StepLimits,
  asked: AskedLimits | undefined,
  defaults: StepLimits = DEFAULT_STEP_LIMITS,
): { limits: StepLimits; capped: string[] } {
  const limits = { ...ceiling };
  const capped: string[] = [];
  for (const k of Object.keys(ASKED) as (keyof StepLimits)[]) {
    const { field, unit, name } = ASKED[k];
    const want = asked?.[field];
    if (want === undefined) limits[k] = Math.min(defaults[k], ceiling[k]);
    else if (want * unit > ceiling[k]) {
      capped.push(
        `${name} limit ${fieldText(field, want)} asked; the agent's ceiling ${fieldText(field, ceiling[k] / unit)} applies`,
      );
    } else limits[k] = want * unit;
  }
  return { limits, capped };
}

const fieldText = (field: keyof AskedLimits, n: number) =>
  field.endsWith('MiB') ? `${Math.floor(n)} MiB` : String(Math.floor(n));
