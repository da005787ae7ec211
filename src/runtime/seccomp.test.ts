// The filter read back by a small interpreter of the BPF instructions it uses, for every refused
// call, ordinary calls, the x32 ABI and another architecture. (Run for real by the sandbox e2e.)
import { describe, expect, it } from '@jest/globals';
import { AUDIT_ARCH_X86_64, BPF, REFUSED_X86_64, SECCOMP_RET, seccompFilter } from './seccomp.js';

function decide(filter: Buffer, arch: number, nr: number): number {
  let acc = 0;
  for (let pc = 0; pc * 8 < filter.length; pc++) {
    const code = filter.readUInt16LE(pc * 8);
    const jt = filter.readUInt8(pc * 8 + 2);
    const jf = filter.readUInt8(pc * 8 + 3);
    const k = filter.readUInt32LE(pc * 8 + 4);
    if (code === BPF.LD_W_ABS) acc = k === 4 ? arch : nr;
    else if (code === BPF.JEQ_K) pc += acc === k ? jt : jf;
    else if (code === BPF.JGE_K) pc += acc >= k ? jt : jf;
    else if (code === BPF.RET_K) return k;
    else throw new Error(`unexpected instruction ${code}`);
  }
  throw new Error('the filter ran off its end');
}

const filter = seccompFilter();
const EPERM = SECCOMP_RET.ERRNO | 1;

describe('the step seccomp filter', () => {
  it.each(Object.entries(REFUSED_X86_64))('refuses %s with EPERM', (_, nr) => {
    expect(decide(filter, AUDIT_ARCH_X86_64, nr)).toBe(EPERM);
  });
  it.each([
    ['read', 0],
    ['write', 1],
    ['clone', 56],
    ['execve', 59],
    ['ptrace', 101],
    ['the highest refused + 1', 443],
  ])('allows %s', (_, nr) => {
    expect(decide(filter, AUDIT_ARCH_X86_64, nr)).toBe(SECCOMP_RET.ALLOW);
  });
  it('refuses the x32 ABI and kills any other architecture', () => {
    expect(decide(filter, AUDIT_ARCH_X86_64, 0x40000000 + 1)).toBe(EPERM);
    expect(decide(filter, 0x40000003 /* i386 */, 1)).toBe(SECCOMP_RET.KILL_PROCESS);
  });
});
