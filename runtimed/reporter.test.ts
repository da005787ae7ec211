// Reporting an end over a real result store on disk and a stand-in for the Run writes: a result
// is on disk before its first report and gone once the API server took it; an answer that the Run
// is not this execution's drops it; a busy API server is retried; an agent that stops keeps it for
// its next start, which reports it without running the step again.
import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import type { Run } from '../src/api/types.js';
import { HttpError } from '../src/kube/raw.js';
import { agentMetrics } from './agent-metrics.js';
import { AgentState } from './agent-state.js';
import { Reporter } from './reporter.js';
import { ResultStore, type PendingResult } from './results.js';
import type { RunWrites } from './run-writes.js';

const result = (name: string): PendingResult => ({
  namespace: 'ns',
  name,
  uid: `uid-${name}`,
  attempts: 2,
  status: { phase: 'Succeeded', exitCode: 0 },
});

/** A reporter over a fresh folder, whose writes answer with `answers` in turn (undefined: taken). */
function reporter(answers: (Error | undefined)[] = [], state = new AgentState()) {
  const dir = mkdtempSync(join(tmpdir(), 'krt-reporter-'));
  const store = new ResultStore(dir);
  const calls: string[] = [];
  const onDisk: string[][] = [];
  const writes = {
    owned: async (r: Run, attempts: number, ops: { path: string; value: { phase?: string } }[]) => {
      onDisk.push(readdirSync(dir));
      calls.push(
        `${r.metadata.namespace}/${r.metadata.name} #${attempts} ${ops[0]?.path} ${ops[0]?.value.phase}`,
      );
      const answer = answers.shift();
      if (answer) throw answer;
      return r;
    },
  } as unknown as RunWrites;
  const metrics = agentMetrics(new Registry(), () => 0, 1);
  const rep = new Reporter(state, writes, store, metrics, 1000);
  return { rep, store, dir, calls, onDisk, state, metrics };
}

const ended = async (m: ReturnType<typeof reporter>['metrics']) =>
  (await m.ended.get()).values.map((v) => `${v.labels.phase}=${v.value}`);

describe('Reporter', () => {
  it('keeps the result on disk before the first report, and removes it once the API server took it', async () => {
    const r = reporter();
    await expect(r.rep.keepAndReport(result('a'))).resolves.toBe(true);
    expect(r.calls).toEqual(['ns/a #2 /status Succeeded']);
    expect(r.onDisk).toEqual([['uid-a-2.json']]);
    expect(readdirSync(r.dir)).toEqual([]);
    expect(r.state.reporting.size).toBe(0);
    expect(await ended(r.metrics)).toEqual(['Succeeded=1']);
  });

  it('drops the result when the Run was deleted, re-queued or ended by another', async () => {
    for (const code of [404, 409, 422]) {
      const r = reporter([new HttpError(code, '{}')]);
      await expect(r.rep.keepAndReport(result('a'))).resolves.toBe(false);
      expect([code, readdirSync(r.dir), await ended(r.metrics)]).toEqual([code, [], []]);
    }
  });

  it('reports again while the API server is busy, until it takes the result', async () => {
    const r = reporter([new HttpError(503, '{}'), new Error('socket hang up')]);
    await expect(r.rep.keepAndReport(result('a'))).resolves.toBe(true);
    expect(r.calls).toHaveLength(3);
    expect(readdirSync(r.dir)).toEqual([]);
  });

  it('keeps an unreported result on disk when the agent stops, and its next start reports it', async () => {
    const stopping = new AgentState();
    stopping.stopping = true;
    const first = reporter([new HttpError(503, '{}')], stopping);
    await expect(first.rep.keepAndReport(result('a'))).resolves.toBe(false);
    expect(readdirSync(first.dir)).toEqual(['uid-a-2.json']);
    // The next life of the agent, over the same folder: reported, never run again.
    const state = new AgentState();
    const calls: string[] = [];
    const writes = {
      owned: async (r: Run) => void calls.push(`reported ${r.metadata.name}`),
    } as unknown as RunWrites;
    const next = new Reporter(state, writes, new ResultStore(first.dir), first.metrics, 1000);
    await next.resumeKept();
    expect(state.reporting.has('ns/a')).toBe(true); // never re-queued by this agent meanwhile
    for (let i = 0; i < 50 && readdirSync(first.dir).length > 0; i++)
      await new Promise((r) => setImmediate(r));
    expect(calls).toEqual(['reported a']);
    expect(readdirSync(first.dir)).toEqual([]);
  });
});
