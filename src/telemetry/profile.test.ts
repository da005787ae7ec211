import { describe, expect, it } from '@jest/globals';
import { selfTimes } from './profile.js';

describe('selfTimes', () => {
  it('adds up the samples of each function and ranks them as shares', () => {
    const frame = (functionName: string, url = '', lineNumber = 0) => ({ functionName, url, lineNumber });
    const profile = {
      nodes: [
        { id: 1, callFrame: frame('(root)'), hitCount: 0 },
        { id: 2, callFrame: frame('(idle)'), hitCount: 50 },
        { id: 3, callFrame: frame('plan', 'file:///a/dist/bundle/main.js', 9), hitCount: 20 },
        { id: 4, callFrame: frame('plan', 'file:///a/dist/bundle/main.js', 9), hitCount: 10 },
        { id: 5, callFrame: frame('', 'file:///a/dist/bundle/main.js', 99), hitCount: 20 },
      ],
    };
    expect(selfTimes(profile)).toEqual([
      { what: '(idle)', share: 0.5 },
      { what: 'plan bundle/main.js:10', share: 0.3 },
      { what: '(anonymous) bundle/main.js:100', share: 0.2 },
      { what: '(root)', share: 0 },
    ]);
  });
});
