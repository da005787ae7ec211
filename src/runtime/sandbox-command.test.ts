import { DEFAULT_STEP_LIMITS, stepLimitsFor, type StepLimits } from './sandbox-command.js';

const MIB = 1024 ** 2;
const ceiling: StepLimits = {
  processes: 512,
  memoryBytes: 4096 * MIB,
  fileBytes: 256 * MIB,
  openFiles: 1024,
  workspaceBytes: 1024 * MIB,
};

describe('stepLimitsFor', () => {
  it('gives the documented defaults, within the ceiling, when a Run asks nothing', () => {
    expect(stepLimitsFor(ceiling, undefined)).toEqual({
      limits: { ...DEFAULT_STEP_LIMITS, workspaceBytes: DEFAULT_STEP_LIMITS.workspaceBytes },
      capped: [],
    });
    const low = { ...ceiling, processes: 10, memoryBytes: MIB };
    expect(stepLimitsFor(low, {}).limits).toMatchObject({ processes: 10, memoryBytes: MIB });
  });

  it('gives what a Run asks up to the ceiling, more or less than the default', () => {
    expect(stepLimitsFor(ceiling, { processes: 500, memoryMiB: 100, workspaceMiB: 1024 }).limits).toEqual({
      ...DEFAULT_STEP_LIMITS,
      processes: 500,
      memoryBytes: 100 * MIB,
      workspaceBytes: 1024 * MIB,
    });
  });

  it('caps what goes beyond the ceiling and names it', () => {
    expect(stepLimitsFor(ceiling, { processes: 513, fileMiB: 300, openFiles: 1024 })).toEqual({
      limits: { ...DEFAULT_STEP_LIMITS, processes: 512, fileBytes: 256 * MIB, openFiles: 1024 },
      capped: [
        "processes limit 513 asked; the agent's ceiling 512 applies",
        "file size limit 300 MiB asked; the agent's ceiling 256 MiB applies",
      ],
    });
  });
});
