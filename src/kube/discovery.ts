// Which resource serves a kind, and whether it is namespaced: the API server's discovery, asked once
// per group version and kept for a minute (a Promise may install a new API at any time).
import type { KubeAccess } from './access.js';
import { rawJson } from './raw.js';
import type { ObjectCoordinates } from './rest.js';

export interface ResourceInfo {
  /** `/api/v1` or `/apis/<group>/<version>`. */
  base: string;
  plural: string;
  namespaced: boolean;
}

const TTL_MS = 60_000;

export class Discovery {
  private readonly cache = new Map<string, { at: number; resources: Map<string, ResourceInfo> }>();

  constructor(
    private readonly kc: KubeAccess,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The resource of a kind, or undefined when the API server serves no such kind. */
  async resource(apiVersion: string, kind: string): Promise<ResourceInfo | undefined> {
    const hit = this.cache.get(apiVersion);
    const found = hit && this.clock() - hit.at < TTL_MS ? hit.resources.get(kind) : undefined;
    if (found) return found;
    const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    let list: { resources?: { name: string; kind: string; namespaced: boolean }[] };
    try {
      list = (await rawJson(this.kc, 'GET', base, { timeoutMs: 10_000 })) as typeof list;
    } catch (e) {
      if ((e as { code?: number }).code === 404) return undefined;
      throw e;
    }
    const resources = new Map<string, ResourceInfo>();
    for (const r of list.resources ?? [])
      if (!r.name.includes('/')) resources.set(r.kind, { base, plural: r.name, namespaced: r.namespaced });
    this.cache.set(apiVersion, { at: this.clock(), resources });
    return resources.get(kind);
  }

  /** The coordinates of one object of the resource, for KubeClient. */
  static coordinates(info: ResourceInfo, namespace: string | undefined, name: string): ObjectCoordinates {
    const [, api, group, version] = info.base.split('/');
    return {
      group: api === 'api' ? '' : (group ?? ''),
      version: (api === 'api' ? group : version) ?? '',
      plural: info.plural,
      ...(info.namespaced ? { namespace: namespace ?? '' } : {}),
      name,
    };
  }
}
