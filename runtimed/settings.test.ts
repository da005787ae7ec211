// runtimed's flags, read as runtimed reads them (src/flags.ts with RUNTIMED_FLAGS' defaults): what
// each setting becomes, and a clear error naming the flag for each bad one.
import { describe, expect, it } from '@jest/globals';
import { readFlags } from '../src/flags.js';
import { RUNTIMED_FLAGS } from './flags.js';
import { agentSettings, concurrency, FlagError, type FlagValues } from './settings.js';

const MB = 1024 * 1024;

function flags(...argv: string[]): FlagValues {
  const r = readFlags('runtimed', RUNTIMED_FLAGS, ['--data-dir', '/var/lib/krt', ...argv]);
  if (!('values' in r)) throw new Error(JSON.stringify(r));
  return r.values as FlagValues;
}

const error = (read: () => unknown) => {
  try {
    read();
  } catch (e) {
    if (e instanceof FlagError) return e.message;
    throw e;
  }
  return undefined;
};

describe('agentSettings', () => {
  it('reads the defaults: bash in the sandbox, no network, the work folder in the data folder', () => {
    const s = agentSettings(flags(), false);
    expect(s).toMatchObject({
      processes: true,
      pods: false,
      workDir: '/var/lib/krt/work',
      network: false,
      namespaces: [],
      limits: { processes: 256, memoryBytes: 2048 * MB, workspaceBytes: 512 * MB },
    });
    expect(s.uidBase).toBeUndefined();
    expect([...s.runtimes.keys()]).toEqual(['bash']);
  });

  it('gives a root agent the first uid of its steps, and reads the namespaces it serves', () => {
    const s = agentSettings(flags('--step-uid-base', '300000', '--namespaces', 'a,b'), true);
    expect([s.uidBase, s.namespaces]).toEqual([300000, ['a', 'b']]);
  });

  it('names the flag and the rule of each bad one', () => {
    expect(error(() => agentSettings(flags('--step-network', 'bridge'), false))).toBe(
      '--step-network is host or none',
    );
    expect(error(() => agentSettings(flags('--step-max-processes', '0'), false))).toBe(
      '--step-max-processes must be a positive number, got "0"',
    );
    expect(error(() => agentSettings(flags('--step-uid-base', 'x'), true))).toBe(
      '--step-uid-base must be a positive number, got "x"',
    );
    expect(error(() => agentSettings(flags('--runtimes', ''), false))).toMatch(/runtime/);
  });
});

describe('concurrency', () => {
  it('is what was asked when no memory limit is given, or nothing runs in the sandbox', () => {
    const f = flags('--concurrency', '12');
    expect(concurrency(f, agentSettings(f, false))).toEqual({ value: 12, lowered: false });
    const withMemory = flags('--concurrency', '12', '--memory-mb', '1024');
    expect(concurrency(withMemory, undefined)).toEqual({ value: 12, lowered: false });
  });

  it('is lowered so the steps scratch areas fit in the agent memory', () => {
    const f = flags('--concurrency', '12', '--memory-mb', '4096');
    const c = concurrency(f, agentSettings(f, false));
    expect(c.lowered).toBe(true);
    expect(c.value).toBeLessThan(12);
    expect(c.value).toBeGreaterThan(0);
  });

  it('refuses a memory limit that holds no step at all', () => {
    const f = flags('--memory-mb', '64');
    expect(error(() => concurrency(f, agentSettings(f, false)))).toBeDefined();
  });
});
