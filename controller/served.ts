// One resources/<promise> controller per Promise that serves an API, started and stopped while the
// controller runs: the reconciler of the API's resources, and the Promise's count of them.
import type { PromiseObject, ResourceObject } from '../src/api/types.js';
import { defineController, keyOf } from '../src/kube/controller/controller.js';
import type { ControllerManager } from '../src/kube/controller/manager.js';
import type { ResilientInformer } from '../src/kube/informer.js';
import type { ResourceApi } from '../src/promise/api.js';
import { reconcileResource, type ResourceDeps } from './resource.js';

/** What every resources controller shares; each adds its API, its Promise and its resources. */
export type ServedDeps = Omit<ResourceDeps, 'api' | 'promise' | 'resources' | 'clock'> & {
  promises: ResilientInformer<PromiseObject>;
};

const pathOf = (api: ResourceApi) => `/apis/${api.group}/${api.version}/${api.plural}`;

export class ServedApis {
  private readonly served = new Map<string, { path: string; informer: ResilientInformer<ResourceObject> }>();

  constructor(
    private readonly m: ControllerManager,
    private readonly deps: ServedDeps,
  ) {}

  /** Whether the Promise's resources are reconciled at this API's path now. */
  isServed(promise: string, api: ResourceApi): boolean {
    return this.served.get(promise)?.path === pathOf(api);
  }

  /** Starts the Promise's resources controller (again, when its API moved); returns its cache. */
  async serve(promise: string, api: ResourceApi): Promise<ResilientInformer<ResourceObject>> {
    const path = pathOf(api);
    const running = this.served.get(promise);
    if (running?.path === path) return running.informer;
    if (running) await this.m.remove(`resources/${promise}`);
    const resources = this.m.informer<ResourceObject>({ path });
    this.served.set(promise, { path, informer: resources });
    await this.m.add(this.controllerOf(promise, api, resources));
    this.countResources(promise, resources);
    return resources;
  }

  async unserve(promise: string): Promise<void> {
    if (!this.served.delete(promise)) return;
    await this.m.remove(`resources/${promise}`);
  }

  private controllerOf(promise: string, api: ResourceApi, resources: ResilientInformer<ResourceObject>) {
    const { promises, works, workflowRuns } = this.deps;
    const deps: ResourceDeps = { ...this.deps, api, promise: () => promises.get('', promise), resources };
    return defineController({
      name: `resources/${promise}`,
      for: resources,
      owns: [
        { source: workflowRuns, kind: api.kind, clusterScoped: !api.namespaced },
        { source: works, kind: api.kind, clusterScoped: !api.namespaced },
      ],
      // A change of the Promise's spec runs every resource's workflow again.
      watches: [
        {
          source: promises,
          changed: (old: PromiseObject, now: PromiseObject) =>
            old.metadata.generation !== now.metadata.generation,
          map: (o) => (o.metadata?.name === promise ? resources.list().map(keyOf) : []),
        },
      ],
      reconcile: (key) => reconcileResource(key, deps),
      workers: 4,
    });
  }

  /**
   * The Promise counts its resources: a resource that comes or goes changes them (from the cache's
   * events, so the count it makes sees the change).
   */
  private countResources(promise: string, resources: ResilientInformer<ResourceObject>): void {
    const recount = () => this.m.enqueue('promise', `/${promise}`);
    resources.on('add', recount);
    resources.on('delete', recount);
    resources.on('update', (old: ResourceObject, now: ResourceObject) => {
      const a = old.status?.kruntimes?.workflows;
      const b = now.status?.kruntimes?.workflows;
      if (a?.phase !== b?.phase || a?.hash !== b?.hash) recount();
    });
  }
}
