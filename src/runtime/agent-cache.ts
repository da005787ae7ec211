// What runtimed keeps of the objects it watches. A Run that has ended is only looked up (to serve
// its log, to know its holder, to drop its log when it goes): its script, environment, files and
// results are not kept for the days it may stay. A step Pod is kept with what its outcome is read
// from, not the env of its containers (the prepare container's carries the step's files).
import type { Run } from '../api/types.js';
import { metadataWithoutManagedFields } from '../api/objects.js';
import { isTerminal } from './lifecycle.js';
import type { PodLike } from './pod-outcome.js';

export function runAsCached(run: Run): Run {
  const metadata = metadataWithoutManagedFields(run.metadata);
  if (!isTerminal(run)) return { ...run, metadata };
  const s = run.status ?? {};
  return {
    apiVersion: run.apiVersion,
    kind: run.kind,
    metadata,
    spec: {
      runtime: run.spec.runtime,
      ...(run.spec.cancelRequested !== undefined ? { cancelRequested: run.spec.cancelRequested } : {}),
    },
    status: {
      ...(s.phase !== undefined ? { phase: s.phase } : {}),
      ...(s.assignedTo !== undefined ? { assignedTo: s.assignedTo } : {}),
      ...(s.attempts !== undefined ? { attempts: s.attempts } : {}),
      ...(s.startTime !== undefined ? { startTime: s.startTime } : {}),
      ...(s.heartbeatTime !== undefined ? { heartbeatTime: s.heartbeatTime } : {}),
      ...(s.completionTime !== undefined ? { completionTime: s.completionTime } : {}),
      ...(s.reason !== undefined ? { reason: s.reason } : {}),
    },
  } as Run;
}

type CachedPod = PodLike & { metadata?: Record<string, unknown> };

export function podAsCached<P extends CachedPod>(pod: P): P {
  const names = (cs?: { name: string; image?: string }[]) =>
    cs?.map((c) => ({ name: c.name, ...(c.image !== undefined ? { image: c.image } : {}) }));
  const spec = pod.spec ?? {};
  return {
    ...pod,
    ...(pod.metadata ? { metadata: metadataWithoutManagedFields(pod.metadata) } : {}),
    spec: {
      ...(spec.initContainers ? { initContainers: names(spec.initContainers) } : {}),
      ...(spec.containers ? { containers: names(spec.containers) } : {}),
    },
  };
}
