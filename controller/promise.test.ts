// The Promise reconciler's reconcile-resources label over a recording API client: what the label
// makes it write, and that a label the cache still shows after it went makes it write nothing.
import { describe, expect, it } from '@jest/globals';
import { HttpError } from '../src/kube/raw.js';
import type { ObjectCoordinates } from '../src/kube/rest.js';
import type { PromiseObject, ResourceObject } from '../src/api/types.js';
import { LABEL_MANUAL_RECONCILIATION, LABEL_RECONCILE_RESOURCES } from '../src/labels.js';
import type { ResourceApi } from '../src/promise/api.js';
import { reconcileAll, type PromiseDeps } from './promise.js';

const api = { group: 'test.kruntimes.dev', version: 'v1', kind: 'Db', plural: 'dbs' } as ResourceApi;

function promise(labels: Record<string, string>): PromiseObject {
  return {
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'Promise',
    metadata: { name: 'db', uid: 'p-1', labels },
    spec: {},
  } as unknown as PromiseObject;
}

function resource(name: string, labels: Record<string, string> = {}): ResourceObject {
  return {
    apiVersion: 'test.kruntimes.dev/v1',
    kind: 'Db',
    metadata: { name, namespace: 'ns', labels },
  } as ResourceObject;
}

/** Deps whose API server holds `live` as the Promise; each patch is recorded as "<plural>/<name> <labels>". */
function deps(live: PromiseObject | undefined) {
  const writes: string[] = [];
  const events: string[] = [];
  const kube = {
    get: async () => {
      if (!live) throw new HttpError(404, '{}');
      return live;
    },
    patch: async (o: ObjectCoordinates, body: { metadata: object }) => {
      writes.push(`${o.plural}/${o.name} ${JSON.stringify(body.metadata)}`);
    },
  };
  const d = { kube, events: { record: (_o: unknown, _t: string, reason: string) => events.push(reason) } };
  return { d: d as unknown as PromiseDeps, writes, events };
}

describe('the reconcile-resources label', () => {
  const labelled = promise({ [LABEL_RECONCILE_RESOURCES]: 'true' });

  it('labels every resource for manual reconciliation, then removes its own label', async () => {
    const { d, writes, events } = deps(labelled);
    await reconcileAll(labelled, api, [resource('a'), resource('b')], d);
    const manual = JSON.stringify({ labels: { [LABEL_MANUAL_RECONCILIATION]: 'true' } });
    expect(writes).toEqual([
      `dbs/a ${manual}`,
      `dbs/b ${manual}`,
      `promises/db ${JSON.stringify({ labels: { [LABEL_RECONCILE_RESOURCES]: null } })}`,
    ]);
    expect(events).toEqual(['ResourcesReconciling']);
  });

  it('skips a resource being deleted or already labelled', async () => {
    const { d, writes } = deps(labelled);
    const gone = {
      ...resource('gone'),
      metadata: { ...resource('gone').metadata, deletionTimestamp: new Date() },
    };
    await reconcileAll(labelled, api, [gone, resource('held', { [LABEL_MANUAL_RECONCILIATION]: 'true' })], d);
    expect(writes).toEqual([
      `promises/db ${JSON.stringify({ labels: { [LABEL_RECONCILE_RESOURCES]: null } })}`,
    ]);
  });

  it('writes nothing when the API server no longer has the label the cache still shows', async () => {
    const { d, writes, events } = deps(promise({}));
    await reconcileAll(labelled, api, [resource('a')], d);
    expect(writes).toEqual([]);
    expect(events).toEqual([]);
  });

  it('writes nothing when the Promise is gone', async () => {
    const { d, writes } = deps(undefined);
    await reconcileAll(labelled, api, [resource('a')], d);
    expect(writes).toEqual([]);
  });
});
