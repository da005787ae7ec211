// The Promise load of `make chaos`: one Promise whose configure pipeline (bash) writes a ConfigMap
// for each resource from the resource's own fields, and resources created beside the runs while the
// faults go on. Each must end configured: its workflow Succeeded and its ConfigMap applied (through
// its Work, as the Promise's account) with the size it was given.
import type { ResourceObject } from '../../src/api/types.js';
import type { TestCluster } from '../harness/cluster.js';
import {
  applyPromise,
  grantTestGroup,
  newApi,
  pipeline,
  promiseFor,
  resourceClient,
} from '../harness/promises.js';

/** Objects of the Promise load (resources, their pipeline runs and Runs) go by this prefix. */
export const PROMISE_LOAD_PREFIX = 'chaos-res-';
export const ofPromiseLoad = (name: string) => name.startsWith(PROMISE_LOAD_PREFIX);

const WRITE_CONFIGMAP = [
  'printf "apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: cm-%s\\ndata:\\n  size: \\"%s\\"\\n" "$NAME" "$SIZE" \\',
  '  > "$KRT_OUTPUT_DIR/cm.yaml"',
].join('\n');

export async function promiseLoad(c: TestCluster) {
  await grantTestGroup();
  const api = newApi();
  await applyPromise(
    promiseFor(api, [
      pipeline('make', WRITE_CONFIGMAP, {
        NAME: '${{ resource.metadata.name }}',
        SIZE: '${{ resource.spec.size }}',
      }),
    ]),
  );
  const resources = resourceClient(c, api);
  const made = new Map<string, string>();
  const configured = async (name: string, size: string): Promise<string | undefined> => {
    const r = (await resources.get(name).catch(() => undefined)) as ResourceObject | undefined;
    const phase = r?.status?.kruntimes?.workflows?.phase;
    if (phase !== 'Succeeded') return `${name}: configure workflow ${phase ?? 'not started'}`;
    const cm = (await c.admin.core
      .readNamespacedConfigMap({ name: `cm-${name}`, namespace: c.namespace })
      .catch(() => undefined)) as { data?: Record<string, string> } | undefined;
    if (cm?.data?.size !== size)
      return `${name}: ConfigMap cm-${name} ${cm ? `has size ${cm.data?.size}` : 'missing'}`;
    return undefined;
  };
  return {
    promise: api.promise,
    /** Creates resource `i`; the caller retries it until the API server takes it. */
    create: async (i: number) => {
      const name = `${PROMISE_LOAD_PREFIX}${i}`;
      await resources.create(name, { size: String(i) });
      made.set(name, String(i));
    },
    /** The resources not configured as they should be, each with what it shows. */
    unconfigured: async (): Promise<string[]> => {
      const out: string[] = [];
      for (const [name, size] of made) {
        const why = await configured(name, size);
        if (why) out.push(why);
      }
      return out;
    },
    count: () => made.size,
  };
}
