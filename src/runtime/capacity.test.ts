import { AGENT_RESERVE_BYTES, stepCapacity } from './capacity.js';

const MiB = 1024 ** 2;

describe('stepCapacity', () => {
  it('keeps the requested concurrency when the agent has no memory limit', () => {
    expect(stepCapacity({ requested: 8, workspaceBytes: 512 * MiB })).toEqual({ concurrency: 8 });
  });

  it('lowers it so that every step can fill both its scratch areas beside the agent', () => {
    // 4 GiB - 256 MiB reserve = 3840 MiB; each step 2 x 256 MiB: 7 fit.
    expect(stepCapacity({ requested: 8, memoryBytes: 4096 * MiB, workspaceBytes: 256 * MiB })).toEqual({
      concurrency: 7,
      limitedBy: 'memory',
    });
    const c = stepCapacity({ requested: 100, memoryBytes: 2048 * MiB, workspaceBytes: 512 * MiB });
    expect(c).toEqual({ concurrency: 1, limitedBy: 'memory' });
  });

  it('keeps a lower request as it is', () => {
    expect(stepCapacity({ requested: 2, memoryBytes: 4096 * MiB, workspaceBytes: 256 * MiB })).toEqual({
      concurrency: 2,
    });
  });

  it('counts exactly: the last step that fits is taken, the next is not', () => {
    const workspaceBytes = 100 * MiB;
    const memoryBytes = AGENT_RESERVE_BYTES + 3 * 2 * workspaceBytes;
    expect(stepCapacity({ requested: 9, memoryBytes, workspaceBytes })).toEqual({
      concurrency: 3,
      limitedBy: 'memory',
    });
    expect(stepCapacity({ requested: 9, memoryBytes: memoryBytes - 1, workspaceBytes })).toEqual({
      concurrency: 2,
      limitedBy: 'memory',
    });
  });

  it('refuses a memory too small for one step, naming both figures and the flag', () => {
    expect(stepCapacity({ requested: 4, memoryBytes: 512 * MiB, workspaceBytes: 512 * MiB })).toEqual({
      error:
        "a step's workspace and /tmp (1024 MiB together) do not fit in 512 MiB of memory beside the agent's own 256 MiB: give the agent more memory or its steps a smaller --step-max-workspace-mb",
    });
  });
});
