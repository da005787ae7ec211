// Kubernetes Events on the objects the controller acts on, so `kubectl describe wfr` tells the story.
import { randomBytes } from 'node:crypto';
import type { ObjectMeta } from '../src/api/types.js';
import { core, type KubeClient } from '../src/kube/rest.js';
import { log } from '../src/telemetry/log.js';

export interface EventRecorder {
  record(
    obj: { apiVersion?: string; kind?: string; metadata: ObjectMeta },
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
  ): void;
}

export function eventRecorder(kube: KubeClient, component: string): EventRecorder {
  return {
    record(obj, type, reason, message) {
      // A cluster-scoped object's Events live in default, naming no namespace (kubectl describe
      // looks for them so).
      const namespace = obj.metadata.namespace || 'default';
      const now = new Date();
      // Events are best effort: a lost event never fails a reconcile.
      kube
        .create(core('events', namespace), {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name: `${obj.metadata.name}.${randomBytes(6).toString('hex')}`, namespace },
          involvedObject: {
            apiVersion: obj.apiVersion,
            kind: obj.kind,
            name: obj.metadata.name,
            ...(obj.metadata.namespace ? { namespace } : {}),
            uid: obj.metadata.uid,
          },
          type,
          reason,
          message: message.slice(0, 1024),
          source: { component },
          reportingComponent: component,
          firstTimestamp: now,
          lastTimestamp: now,
          count: 1,
        })
        .catch((e: unknown) => log.debug({ err: String(e) }, 'event not recorded'));
    },
  };
}
