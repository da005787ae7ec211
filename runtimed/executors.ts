// The executors an agent needs, one per kind its runtimes name: processes in a sandbox, or Pods.
import { join } from 'node:path';
import type * as k8s from '@kubernetes/client-node';
import { KubeClient } from '../src/kube/rest.js';
import type { Executor } from './executor.js';
import type { LogStore } from './logstore.js';
import { NamespaceReads } from './namespace-reads.js';
import { PodExecutor, type PodExecutorOptions } from './pod-executor.js';
import { ProcessExecutor } from './process-executor.js';
import type { Runtime } from './runtime.js';
import type { SandboxOptions } from '../src/runtime/sandbox-command.js';

export interface ExecutorsOptions {
  identity: string;
  /** Namespaces served; empty means all. */
  namespaces: string[];
  runtimes: Map<string, Runtime>;
  graceMs: number;
  maxLogBytes: number;
  /**
   * Where executions' folders go (default <data-dir>/work): with the sandbox of a root agent, every
   * folder above it must be open to other users, since bwrap runs as the step's uid.
   */
  workDir?: string;
  /** The step sandbox; `uidBase` when the agent is root (each step its own uid). */
  sandbox?: SandboxOptions & { uidBase?: number };
  /** For runtimes whose executor is a Pod: the helper image and how long a Pod may be stuck. */
  pods?: Pick<PodExecutorOptions, 'helperImage' | 'stuckMs'>;
}

export function executorsFor(
  kc: k8s.KubeConfig,
  opts: ExecutorsOptions,
  logs: LogStore,
): Map<Runtime['executor'], Executor> {
  const executors = new Map<Runtime['executor'], Executor>();
  const namespaces = new NamespaceReads(new KubeClient(kc));
  const kinds = new Set([...opts.runtimes.values()].map((r) => r.executor));
  if (kinds.has('process'))
    executors.set(
      'process',
      new ProcessExecutor(
        {
          workDir: join(opts.workDir ?? join(logs.dataDir, 'work'), opts.identity),
          graceMs: opts.graceMs,
          maxLogBytes: opts.maxLogBytes,
          ...(opts.sandbox ? { sandbox: opts.sandbox } : {}),
        },
        namespaces,
      ),
    );
  if (kinds.has('pod')) {
    if (!opts.pods) throw new Error('a runtime of Pods needs the pods options (helper image)');
    executors.set(
      'pod',
      new PodExecutor(
        kc,
        { ...opts.pods, graceMs: opts.graceMs, maxLogBytes: opts.maxLogBytes, namespaces: opts.namespaces },
        namespaces,
      ),
    );
  }
  return executors;
}
