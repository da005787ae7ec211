import { PeerSet, preferredAgent } from './share.js';

describe('preferredAgent', () => {
  it('is one of the agents, the same for every caller, and spreads Runs evenly', () => {
    const agents = ['a', 'b', 'c'];
    const counts = new Map<string, number>();
    for (let i = 0; i < 3000; i++) {
      const p = preferredAgent(`uid-${i}`, agents) as string;
      expect(agents).toContain(p);
      expect(preferredAgent(`uid-${i}`, [...agents].reverse())).toBe(p);
      counts.set(p, (counts.get(p) ?? 0) + 1);
    }
    for (const a of agents) expect(counts.get(a)).toBeGreaterThan(850);
  });
  it('moves only the Runs of an agent that leaves', () => {
    let moved = 0;
    for (let i = 0; i < 1000; i++) {
      const before = preferredAgent(`u${i}`, ['a', 'b', 'c']);
      const after = preferredAgent(`u${i}`, ['a', 'b']);
      if (before !== 'c') expect(after).toBe(before);
      else moved++;
    }
    expect(moved).toBeGreaterThan(250);
  });
  it('is undefined without agents', () => {
    expect(preferredAgent('u', [])).toBeUndefined();
  });
});

describe('PeerSet', () => {
  it('holds itself and the agents seen within the window', () => {
    const p = new PeerSet('me', 1000);
    p.saw('other', 5000);
    p.saw('other', 4000); // an older sighting does not move it back
    p.saw('me', 100);
    expect(p.live(5500)).toEqual(['me', 'other']);
    expect(p.live(6001)).toEqual(['me']);
    expect(p.live(6002)).toEqual(['me']);
  });
});
