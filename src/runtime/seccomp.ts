// The seccomp filter of a bash step's sandbox (bwrap --seccomp): a classic BPF program that refuses,
// with EPERM, the system calls a step has no use for and that reach kernel code no namespace
// isolates (keyrings, BPF, perf, userfaultfd, io_uring, modules, kexec, mounts, clocks), the x32
// ABI, and any other architecture's calls. Everything else is allowed, as in Docker's default
// profile; the namespaces and limits of sandbox-command.ts do the rest.

/** The system calls refused on x86_64, by number. */
export const REFUSED_X86_64: Record<string, number> = {
  syslog: 103,
  vhangup: 153,
  pivot_root: 155,
  adjtimex: 159,
  acct: 163,
  settimeofday: 164,
  mount: 165,
  umount2: 166,
  swapon: 167,
  swapoff: 168,
  reboot: 169,
  init_module: 175,
  delete_module: 176,
  quotactl: 179,
  lookup_dcookie: 212,
  clock_settime: 227,
  kexec_load: 246,
  add_key: 248,
  request_key: 249,
  keyctl: 250,
  unshare: 272,
  perf_event_open: 298,
  name_to_handle_at: 303,
  open_by_handle_at: 304,
  clock_adjtime: 305,
  setns: 308,
  finit_module: 313,
  kexec_file_load: 320,
  bpf: 321,
  userfaultfd: 323,
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  open_tree: 428,
  move_mount: 429,
  mount_setattr: 442,
};

export const AUDIT_ARCH_X86_64 = 0xc000003e;
const X32_SYSCALL_BIT = 0x40000000;
const EPERM = 1;

export const SECCOMP_RET = { KILL_PROCESS: 0x80000000, ERRNO: 0x00050000, ALLOW: 0x7fff0000 } as const;
/** The BPF instructions the filter uses (linux/filter.h). */
export const BPF = { LD_W_ABS: 0x20, JEQ_K: 0x15, JGE_K: 0x35, RET_K: 0x06 } as const;
/** Offsets in struct seccomp_data. */
const NR = 0;
const ARCH = 4;

type Insn = [code: number, jt: number, jf: number, k: number];

/** The filter as bwrap reads it: struct sock_filter entries, 8 bytes each, in this machine's order. */
export function seccompFilter(refused: readonly number[] = Object.values(REFUSED_X86_64)): Buffer {
  const errno = SECCOMP_RET.ERRNO | EPERM;
  const n = refused.length;
  const program: Insn[] = [
    [BPF.LD_W_ABS, 0, 0, ARCH],
    [BPF.JEQ_K, 1, 0, AUDIT_ARCH_X86_64],
    [BPF.RET_K, 0, 0, SECCOMP_RET.KILL_PROCESS],
    [BPF.LD_W_ABS, 0, 0, NR],
    // The x32 ABI (numbers with bit 30 set) is refused whole; the jump lands on the errno return.
    [BPF.JGE_K, n + 1, 0, X32_SYSCALL_BIT],
    // Each refused number jumps to the errno return, past the ones after it and the allow.
    ...refused.map((nr, i): Insn => [BPF.JEQ_K, n - i, 0, nr]),
    [BPF.RET_K, 0, 0, SECCOMP_RET.ALLOW],
    [BPF.RET_K, 0, 0, errno],
  ];
  const out = Buffer.alloc(program.length * 8);
  program.forEach(([code, jt, jf, k], i) => {
    out.writeUInt16LE(code, i * 8);
    out.writeUInt8(jt, i * 8 + 2);
    out.writeUInt8(jf, i * 8 + 3);
    out.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return out;
}

/** Whether this machine's steps can have the filter: it is written for x86_64 (little-endian). */
export const seccompSupported = (arch: string = process.arch) => arch === 'x64';
