import { describe, expect, it } from '@jest/globals';
import { nodeVersionProblem } from './node-version.js';

describe('nodeVersionProblem', () => {
  it.each(['v24.11.0', 'v24.22.3', 'v25.0.0'])('accepts %s', (v) =>
    expect(nodeVersionProblem(v)).toBeUndefined(),
  );
  it.each(['v20.19.2', 'v24.10.9', 'v18.0.0'])('refuses %s, naming it', (v) =>
    expect(nodeVersionProblem(v)).toContain(`runs on ${v}`),
  );
});
