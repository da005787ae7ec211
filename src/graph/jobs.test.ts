import { isUpstream, jobGraphErrors, topologicalOrder, upstreamJobs } from './jobs.js';

describe('jobGraphErrors', () => {
  it('accepts a DAG', () => {
    expect(jobGraphErrors({ a: {}, b: { needs: ['a'] }, c: { needs: ['a', 'b'] } })).toEqual([]);
  });

  it('names a need that does not exist', () => {
    expect(jobGraphErrors({ a: { needs: ['x'] } })).toEqual([
      { field: 'spec.jobs.a.needs', message: 'job "x" does not exist' },
    ]);
  });

  it('refuses a self-need', () => {
    expect(jobGraphErrors({ a: { needs: ['a'] } })).toEqual([
      { field: 'spec.jobs.a.needs', message: 'job "a" cannot need itself' },
    ]);
  });

  it('names a two-job cycle', () => {
    expect(jobGraphErrors({ b: { needs: ['a'] }, a: { needs: ['b'] } })).toEqual([
      { field: 'spec.jobs', message: 'job dependency cycle: a -> b -> a' },
    ]);
  });

  it('names only the cycle, not the path into it, deterministically', () => {
    const jobs = { start: { needs: ['x'] }, x: { needs: ['y'] }, y: { needs: ['z'] }, z: { needs: ['x'] } };
    expect(jobGraphErrors(jobs, 'spec.jobs')).toEqual([
      { field: 'spec.jobs', message: 'job dependency cycle: x -> y -> z -> x' },
    ]);
  });

  it('uses the base path it is given', () => {
    expect(jobGraphErrors({ a: { needs: ['q'] } }, 'data.spec.jobs')[0]?.field).toBe(
      'data.spec.jobs.a.needs',
    );
  });
});

describe('upstreamJobs and topologicalOrder', () => {
  const jobs = { d: { needs: ['b', 'c'] }, c: { needs: ['a'] }, b: { needs: ['a'] }, a: {}, e: {} };
  it('collects transitive needs', () => {
    expect([...upstreamJobs(jobs, 'd')].sort()).toEqual(['a', 'b', 'c']);
    expect([...upstreamJobs(jobs, 'a')]).toEqual([]);
  });
  it('answers whether one job is upstream of another', () => {
    expect(isUpstream(jobs, 'd', 'a')).toBe(true);
    expect(isUpstream(jobs, 'd', 'b')).toBe(true);
    expect(isUpstream(jobs, 'b', 'c')).toBe(false);
    expect(isUpstream(jobs, 'a', 'a')).toBe(false);
    expect(isUpstream(jobs, 'e', 'd')).toBe(false);
  });
  it('orders jobs after what they need, ties by name', () => {
    expect(topologicalOrder(jobs)).toEqual(['a', 'e', 'b', 'c', 'd']);
    expect(() => topologicalOrder({ a: { needs: ['a'] } })).toThrow('cycle');
  });
});
