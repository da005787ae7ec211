// A CPU profile of a running component, taken on request: the first SIGUSR2 starts V8's sampling
// profiler, the next writes what it saw to `<dir>/<component>-<pid>-<time>.cpuprofile` (the format
// Chrome DevTools and `node --cpu-prof` use) and stops it. The benchmark profiles the controller so;
// docs/benchmarks.md says where its time went.
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { log } from './log.js';

export function profileOnSignal(component: string, dir = tmpdir(), signal: NodeJS.Signals = 'SIGUSR2'): void {
  let session: Session | undefined;
  process.on(signal, () => {
    void toggle().catch((e: unknown) => log.warn({ err: String(e) }, 'cpu profile failed'));
  });
  async function toggle(): Promise<void> {
    if (!session) {
      session = new Session();
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
      log.info('cpu profile started');
      return;
    }
    const { profile } = await session.post('Profiler.stop');
    session.disconnect();
    session = undefined;
    const file = join(dir, `${component}-${process.pid}-${Date.now()}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    log.info({ file }, 'cpu profile written');
  }
}

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

/** Self time by function (name and line), the largest first, as shares of all samples. */
export function selfTimes(profile: { nodes: ProfileNode[] }): { what: string; share: number }[] {
  const byWhat = new Map<string, number>();
  let total = 0;
  for (const n of profile.nodes) {
    const hits = n.hitCount ?? 0;
    total += hits;
    const { functionName, url, lineNumber } = n.callFrame;
    const file = url.split('/').slice(-2).join('/');
    const what = url ? `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}` : functionName;
    byWhat.set(what, (byWhat.get(what) ?? 0) + hits);
  }
  return [...byWhat.entries()]
    .map(([what, hits]) => ({ what, share: total ? hits / total : 0 }))
    .sort((a, b) => b.share - a.share);
}
