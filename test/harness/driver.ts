// A stand-in for the runtime agent in controller suites (the issue allows a test driver until
// runtimed lands): it claims the Runs of one namespace, runs each script with real bash, reads
// KEY=VALUE lines from $KRT_OUTPUT, honours cancelRequested, and writes the Run status as admin.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { Run } from '../../src/api/types.js';
import { crd, type Clients } from '../../src/kube/client.js';

export class RunDriver {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly active = new Map<string, ChildProcess>();
  private readonly done = new Set<string>();

  constructor(
    private readonly clients: Clients,
    private readonly namespace: string,
  ) {}

  start(): void {
    const tick = async () => {
      try {
        await this.poll();
      } catch {
        // the next tick tries again
      }
      if (!this.stopped) this.timer = setTimeout(tick, 150);
    };
    void tick();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    for (const p of this.active.values()) if (p.pid) process.kill(-p.pid, 'SIGKILL');
  }

  private async poll(): Promise<void> {
    const list = (await this.clients.custom.listNamespacedCustomObject({
      ...crd('runs', this.namespace),
    })) as { items: Run[] };
    for (const run of list.items) {
      const name = run.metadata.name ?? '';
      if (this.done.has(name) || run.status?.phase) {
        const p = this.active.get(name);
        if (p && run.spec.cancelRequested && p.pid) process.kill(-p.pid, 'SIGTERM');
        continue;
      }
      if (run.spec.cancelRequested) {
        this.done.add(name);
        await this.setStatus(name, { phase: 'Cancelled', reason: 'Cancelled' });
        continue;
      }
      this.done.add(name);
      await this.setStatus(name, { phase: 'Running', startTime: new Date().toISOString() });
      this.execute(run);
    }
  }

  private execute(run: Run): void {
    const name = run.metadata.name ?? '';
    const dir = mkdtempSync(join(tmpdir(), 'krt-driver-'));
    const output = join(dir, 'output');
    writeFileSync(output, '');
    const env = {
      ...process.env,
      KRT_OUTPUT: output,
      ...Object.fromEntries((run.spec.env ?? []).map((e) => [e.name, e.value ?? ''])),
    };
    const p = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', run.spec.script], {
      cwd: dir,
      env,
      detached: true,
      stdio: 'ignore',
    });
    this.active.set(name, p);
    p.on('exit', (code, signal) => {
      this.active.delete(name);
      const outputs = Object.fromEntries(
        readFileSync(output, 'utf8')
          .split('\n')
          .filter((l) => l.includes('='))
          .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
      );
      const phase = signal ? 'Cancelled' : code === 0 ? 'Succeeded' : 'Failed';
      void this.setStatus(name, {
        phase,
        exitCode: code ?? undefined,
        outputs,
        completionTime: new Date().toISOString(),
        reason: signal ? 'Cancelled' : code === 0 ? 'Completed' : 'NonZeroExit',
      });
    });
  }

  private async setStatus(name: string, status: Record<string, unknown>): Promise<void> {
    await this.clients.custom.patchNamespacedCustomObjectStatus(
      { ...crd('runs', this.namespace), name, body: { status } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  }
}
