import { MAX_CALL_DEPTH } from '../limits.js';
import { calleesOf, validateCallGraph, validateCallGraphSync, type CallingWorkflow } from './callgraph.js';

/** Workflows from a compact description: { A: ['B', 'C'] } means A has jobs calling B and C. */
function graph(calls: Record<string, string[]>): Map<string, CallingWorkflow> {
  const m = new Map<string, CallingWorkflow>();
  for (const [name, callees] of Object.entries(calls)) {
    const jobs: Record<string, { uses?: string }> = { build: {} };
    callees.forEach((c, i) => (jobs[`call-${String(i).padStart(2, '0')}`] = { uses: c }));
    m.set(name, { spec: { jobs } });
  }
  return m;
}

function chain(n: number): Record<string, string[]> {
  const names = Array.from({ length: n }, (_, i) => String.fromCharCode(65 + i));
  return Object.fromEntries(names.map((x, i) => [x, i + 1 < n ? [names[i + 1] as string] : []]));
}

const sync = (calls: Record<string, string[]>, root: string, missing?: 'error' | 'warning') => {
  const g = graph(calls);
  return validateCallGraphSync(root, (n) => g.get(n), { missing });
};

describe('validateCallGraph', () => {
  it('accepts an acyclic graph', () => {
    expect(sync({ A: ['B', 'C'], B: ['C'], C: [] }, 'A')).toEqual({ error: null, warnings: [] });
  });

  it('reports a cycle with the exact text', () => {
    expect(sync({ A: ['B'], B: ['A'] }, 'A').error).toBe('workflow call cycle: A -> B -> A');
  });

  it('reports a self-reference', () => {
    expect(sync({ A: ['A'] }, 'A').error).toBe('workflow call cycle: A -> A');
  });

  it('reports a cycle below the root with the whole path', () => {
    expect(sync({ R: ['A'], A: ['B'], B: ['C'], C: ['A'] }, 'R').error).toBe(
      'workflow call cycle: R -> A -> B -> C -> A',
    );
  });

  it('reports a missing Workflow with its path', () => {
    expect(sync({ A: ['B'], B: ['C'] }, 'A').error).toBe('workflow "C" not found: A -> B -> C');
  });

  it('reports a missing root', () => {
    expect(sync({}, 'A').error).toBe('workflow "A" not found: A');
  });

  it('turns missing Workflows into warnings when asked, and still finds cycles', () => {
    expect(sync({ A: ['B', 'X'], B: ['Y'] }, 'A', 'warning')).toEqual({
      error: null,
      warnings: ['workflow "Y" not found: A -> B -> Y', 'workflow "X" not found: A -> X'],
    });
    expect(sync({ A: ['B', 'X'], B: ['A'] }, 'A', 'warning').error).toBe('workflow call cycle: A -> B -> A');
  });

  it(`allows a chain of exactly ${MAX_CALL_DEPTH} Workflows and rejects ${MAX_CALL_DEPTH + 1}`, () => {
    expect(sync(chain(8), 'A').error).toBeNull();
    expect(sync(chain(9), 'A').error).toBe(
      'workflow call depth exceeds maximum 8: A -> B -> C -> D -> E -> F -> G -> H -> I',
    );
  });

  it('reports depth before looking up the Workflow that is one too deep', () => {
    const c = chain(8);
    c.H = ['Z']; // Z does not exist; the depth limit is hit first
    expect(sync(c, 'A').error).toBe(
      'workflow call depth exceeds maximum 8: A -> B -> C -> D -> E -> F -> G -> H -> Z',
    );
  });

  it('is deterministic: jobs are visited in sorted order', () => {
    const wf = (jobs: Record<string, { uses?: string }>): CallingWorkflow => ({ spec: { jobs } });
    const g = new Map<string, CallingWorkflow>([
      ['A', wf({ zeta: { uses: 'Z' }, alpha: { uses: 'M' } })],
      ['M', wf({ x: {} })],
    ]);
    const r = validateCallGraphSync('A', (n) => g.get(n));
    expect(r.error).toBe('workflow "Z" not found: A -> Z');
    expect(calleesOf(wf({ b: { uses: 'Y' }, a: { uses: 'X' }, c: { uses: 'X' }, d: {} }))).toEqual([
      'X',
      'Y',
    ]);
  });

  it('finds an over-deep path through a node already explored on a shorter path', () => {
    // A -> H directly (short) is explored first in sorted order, then A -> B -> ... -> G -> H -> I.
    const calls: Record<string, string[]> = {
      A: ['H', 'B'],
      B: ['C'],
      C: ['D'],
      D: ['E'],
      E: ['F'],
      F: ['G'],
      G: ['H'],
      H: ['I'],
      I: [],
    };
    const g = new Map<string, CallingWorkflow>();
    for (const [n, cs] of Object.entries(calls)) {
      g.set(n, {
        spec: { jobs: Object.fromEntries(cs.map((c) => [`j${c === 'H' ? '0' : '1'}${c}`, { uses: c }])) },
      });
    }
    expect(validateCallGraphSync('A', (n) => g.get(n)).error).toBe(
      'workflow call depth exceeds maximum 8: A -> B -> C -> D -> E -> F -> G -> H -> I',
    );
  });

  it('explores a wide diamond graph once per Workflow, not once per path', () => {
    // 7 layers of 10 Workflows, each calling every Workflow of the next layer: 10^6 paths.
    const calls: Record<string, string[]> = { R: [] };
    const layer = (l: number) => Array.from({ length: 10 }, (_, i) => `L${l}N${i}`);
    calls.R = layer(0);
    for (let l = 0; l < 7; l++) for (const n of layer(l)) calls[n] = l < 6 ? layer(l + 1) : [];
    const g = graph(calls);
    let lookups = 0;
    const r = validateCallGraphSync('R', (n) => (lookups++, g.get(n)));
    expect(r.error).toBeNull();
    expect(lookups).toBe(71);
  });

  it('works with an asynchronous lookup and gives the same answers', async () => {
    const g = graph({ A: ['B'], B: ['A'] });
    const r = await validateCallGraph('A', async (n) => g.get(n));
    expect(r.error).toBe('workflow call cycle: A -> B -> A');
    const ok = await validateCallGraph('A', (n) => graph(chain(8)).get(n));
    expect(ok.error).toBeNull();
  });

  it('refuses an asynchronous lookup in the synchronous variant', () => {
    expect(() => validateCallGraphSync('A', (() => Promise.resolve(undefined)) as never)).toThrow(
      'validateCallGraphSync needs a synchronous lookup',
    );
  });

  it('honours a custom maximum depth', () => {
    const g = graph(chain(3));
    expect(validateCallGraphSync('A', (n) => g.get(n), { maxDepth: 2 }).error).toBe(
      'workflow call depth exceeds maximum 2: A -> B -> C',
    );
  });
});
