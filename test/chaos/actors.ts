// The second controller replica and the second agent `make chaos` runs beside the local ones, so
// that leadership moves (takeover after a leader's kill), claims race between two agents, and one
// agent can be cut off from the API server or slowed down while the other takes its Runs over.
// Both are real processes of the project's bundles; the chaos run starts them again when it
// kills them, as a Deployment would.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgent, type AgentProcess } from '../harness/agent.js';
import { componentCommand, stateDir } from '../harness/paths.js';
import { localPort } from '../harness/processes.js';
import { relay, type Relay } from '../harness/proxy.js';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The second agent: serves the built-in bash runtime in the chaos namespace through a relay. */
export class SecondAgent {
  private agent: AgentProcess | undefined;
  /** Everything it logged, over all its lives. */
  private logs: string[] = [];
  readonly dataDir = mkdtempSync(join(tmpdir(), 'krt-chaos-agent-b-'));

  private constructor(
    readonly namespace: string,
    readonly link: Relay,
  ) {}

  static async start(namespace: string): Promise<SecondAgent> {
    const a = new SecondAgent(namespace, await relay(Number(localPort('API_PORT'))));
    await a.begin();
    return a;
  }

  /** As the local agent runs (heartbeats, stale period), so either may take the other's Runs. */
  async begin(): Promise<void> {
    this.agent = undefined;
    this.agent = await startAgent({
      identity: 'chaos-agent-b',
      runtime: 'bash',
      dataDir: this.dataDir,
      namespace: this.namespace,
      concurrency: 16,
      heartbeatSeconds: 2,
      staleSeconds: 10,
      apiServer: `https://127.0.0.1:${this.link.port}`,
    });
  }

  get pid(): number {
    return this.agent?.pid ?? 0;
  }

  /**
   * Running again if a start failed (it needs the API server, which a fault of the other stream may
   * have down for a minute): tried again until it runs, as a Deployment keeps starting its Pod.
   */
  async ensure(withinMs = 180_000): Promise<void> {
    const end = Date.now() + withinMs;
    while (!this.agent) {
      try {
        await this.begin();
      } catch (e) {
        if (Date.now() > end) throw e;
        await pause(2000);
      }
    }
  }

  output(): string {
    return [...this.logs, this.agent?.output() ?? ''].join('\n');
  }

  /** SIGKILL; resolves once it is gone (its output kept). */
  async kill(): Promise<void> {
    const a = this.agent;
    if (!a) return;
    a.proc.kill('SIGKILL');
    await a.exited;
    this.logs.push(a.output());
    this.agent = undefined;
  }

  async stop(): Promise<void> {
    await this.kill();
    await this.link.close();
  }
}

/** The second controller replica: the same bundle and account as the local one, its own identity. */
export class SecondController {
  private proc: ChildProcess | undefined;
  private readonly logFile = join(stateDir, 'logs', 'controller-chaos-b.log');
  private port = 0;

  /** Started again until it answers (within 3 minutes), as a Deployment keeps starting its Pod. */
  async ensure(withinMs = 180_000): Promise<void> {
    const end = Date.now() + withinMs;
    for (;;) {
      try {
        return await this.start();
      } catch (e) {
        await this.kill();
        if (Date.now() > end) throw e;
        await pause(2000);
      }
    }
  }

  async start(): Promise<void> {
    // A free port of its own for health and metrics: the local one's plus a fixed offset would clash.
    this.port = 20000 + Math.floor(Math.random() * 20000);
    const out = openSync(this.logFile, 'a');
    this.proc = spawn(
      process.execPath,
      [
        ...componentCommand('controller'),
        '--kubeconfig',
        join(stateDir, 'kubeconfig-controller'),
        '--identity',
        'chaos-controller-b',
        '--health-addr',
        `127.0.0.1:${this.port}`,
        '--metrics-addr',
        `127.0.0.1:${this.port}`,
      ],
      { stdio: ['ignore', out, out], env: { ...process.env, KRT_COMPONENT: 'controller-chaos-b' } },
    );
    // Up once it answers its liveness endpoint (it may wait for the Lease as long as it likes).
    for (let i = 0; i < 200; i++) {
      if (this.proc.exitCode !== null) throw new Error(`the second controller exited (${this.logFile})`);
      if (await this.answers()) return;
      await pause(100);
    }
    throw new Error(`the second controller did not answer within 20 s (${this.logFile})`);
  }

  private answers(): Promise<boolean> {
    return fetch(`http://127.0.0.1:${this.port}/healthz`, { signal: AbortSignal.timeout(1000) })
      .then((r) => r.ok)
      .catch(() => false);
  }

  get pid(): number {
    return this.proc?.pid ?? 0;
  }

  /** 1 while it leads, from its own metric. */
  async leads(): Promise<boolean> {
    const text = await fetch(`http://127.0.0.1:${this.port}/metrics`, { signal: AbortSignal.timeout(1000) })
      .then((r) => r.text())
      .catch(() => '');
    return /^krt_controller_is_leader 1/m.test(text);
  }

  async kill(): Promise<void> {
    const p = this.proc;
    if (!p || p.exitCode !== null) return;
    const gone = new Promise((r) => p.once('exit', r));
    p.kill('SIGKILL');
    await gone;
  }

  async stop(): Promise<void> {
    await this.kill();
    writeFileSync(join(stateDir, 'logs', 'controller-chaos-b.stopped'), new Date().toISOString());
  }
}
