// The WorkflowRun reconciler over in-memory caches and a recording API client: what it writes, in
// which order, and what a refusal does. The real API server's side is test/integration's.
import { describe, expect, it } from '@jest/globals';
import type { Run, Workflow, WorkflowRun } from '../src/api/types.js';
import type { ResilientInformer } from '../src/kube/informer.js';
import { HttpError } from '../src/kube/raw.js';
import type { KubeClient, ObjectCoordinates } from '../src/kube/rest.js';
import { LABEL_WORKFLOWRUN_UID } from '../src/labels.js';
import { snapshotName } from '../src/names.js';
import { SnapshotSpecs, type Snapshot } from './snapshots.js';
import { workflowRunAsObserved } from '../src/plan/workflowrun.js';
import { reconcileWorkflowRun, type Caches, type ReconcileDeps } from './workflowrun.js';

const NOW = new Date('2026-12-05T10:00:00Z');
const name = snapshotName('release', 'uid-1');

function cache<
  T extends { metadata: { namespace?: string; name?: string; labels?: Record<string, string> } },
>(items: T[]): ResilientInformer<T> {
  const fake = {
    get: (ns: string, n: string) => items.find((o) => o.metadata.namespace === ns && o.metadata.name === n),
    withLabel: (l: string, v: string) => items.filter((o) => o.metadata.labels?.[l] === v),
    list: () => items,
    // As the real cache's write-through: what the reconciler wrote is shown at once.
    written: (o: T) => {
      const i = items.findIndex(
        (x) => x.metadata.namespace === o.metadata.namespace && x.metadata.name === o.metadata.name,
      );
      if (i >= 0) items[i] = o;
      else items.push(o);
    },
  };
  return fake as unknown as ResilientInformer<T>;
}

const spec = { jobs: { build: { 'runs-on': 'bash', steps: [{ name: 'main', run: 'make' }] } } };
const run: WorkflowRun = {
  apiVersion: 'kruntimes.io/v1alpha1',
  kind: 'WorkflowRun',
  metadata: { name: 'release', namespace: 'ns', uid: 'uid-1', generation: 1, resourceVersion: '7' },
  spec: spec as WorkflowRun['spec'],
};
const snapshot: Snapshot = {
  apiVersion: 'apps/v1',
  kind: 'ControllerRevision',
  metadata: {
    name: snapshotName('release', 'uid-1'),
    namespace: 'ns',
    labels: { [LABEL_WORKFLOWRUN_UID]: 'uid-1' },
    ownerReferences: [
      { apiVersion: 'kruntimes.io/v1alpha1', kind: 'WorkflowRun', name: 'release', uid: 'uid-1' },
    ],
  },
  data: { spec: run.spec },
  revision: 1,
};

/**
 * A client that records each call, refusing the ones `refuse` names with the given status code;
 * it reads the snapshots in `stored` (404 for any other), and `stored` gains `conflicting` when a
 * create of it is refused with 409 (made by someone else meanwhile).
 */
function recordingClient(
  refuse: Record<string, number> = {},
  stored: Snapshot[] = [],
  conflicting?: Snapshot,
) {
  const calls: { verb: string; what: string; body?: unknown }[] = [];
  const answer = async (verb: string, what: string, body?: unknown) => {
    calls.push({ verb, what, body });
    const code = refuse[`${verb} ${what}`];
    if (code === 409 && conflicting) stored.push(conflicting);
    if (code) throw new HttpError(code, JSON.stringify({ message: 'quota exceeded' }));
    return body ?? {};
  };
  const kube = {
    create: (c: { plural: string }, body: { metadata: { name: string } }) =>
      answer('create', `${c.plural}/${body.metadata.name}`, body),
    replaceStatus: (o: ObjectCoordinates, body: unknown) => answer('status', `${o.plural}/${o.name}`, body),
    patch: (o: ObjectCoordinates, body: unknown) => answer('patch', `${o.plural}/${o.name}`, body),
    get: async (o: ObjectCoordinates) => {
      await answer('get', `${o.plural}/${o.name}`);
      const found = stored.find((x) => x.metadata.name === o.name && x.metadata.namespace === o.namespace);
      if (!found) throw new HttpError(404, JSON.stringify({ message: 'not found' }));
      return found;
    },
  };
  return { calls, kube: kube as unknown as KubeClient };
}

function deps(o: {
  runs?: Run[];
  /** The controller wrote the run's snapshot before (its spec is in the memo). */
  written?: boolean;
  stored?: Snapshot[];
  conflicting?: Snapshot;
  refuse?: Record<string, number>;
  /** The run's status as cached (none: never planned). */
  status?: WorkflowRun['status'];
}) {
  const client = recordingClient(o.refuse, o.stored, o.conflicting);
  const events: string[] = [];
  const caches: Caches = {
    workflowRuns: cache([o.status ? { ...run, status: o.status } : run]),
    runs: cache(o.runs ?? []),
    workflows: cache<Workflow>([]),
  };
  const d: ReconcileDeps = {
    caches,
    kube: client.kube,
    snapshotSpecs: new SnapshotSpecs(client.kube),
    events: { record: (_o, type, reason, message) => events.push(`${type} ${reason}: ${message}`) },
    clock: () => NOW,
  };
  if (o.written) d.snapshotSpecs.remember('uid-1', run.spec);
  return { d, calls: client.calls, events };
}

describe('reconcileWorkflowRun', () => {
  it('writes the snapshot first, runs from the spec it wrote there, and writes the status once', async () => {
    const { d, calls } = deps({});
    await reconcileWorkflowRun('ns/release', d);
    // A run never planned has no snapshot to read: it is written without asking first.
    expect(calls.map((c) => `${c.verb} ${c.what}`)).toEqual([
      `create controllerrevisions/${name}`,
      'create runs/release-build-main',
      'status workflowruns/release',
    ]);
    const snapshotWritten = calls[0]?.body as Snapshot;
    expect(snapshotWritten.data?.spec).toEqual(run.spec);
    expect((calls[2]?.body as WorkflowRun).status).toMatchObject({ phase: 'Running', snapshotName: name });
    // The spec it wrote is remembered: the next reconcile reads nothing.
    const after = calls.length;
    await reconcileWorkflowRun('ns/release', d);
    expect(calls.slice(after).filter((c) => c.verb === 'get')).toEqual([]);
  });

  it('goes on from the snapshot it finds (a restart): read once, then remembered', async () => {
    const planned = { phase: 'Pending' as const, snapshotName: snapshot.metadata.name };
    const { d, calls } = deps({ stored: [snapshot], status: planned });
    await reconcileWorkflowRun('ns/release', d);
    expect(calls.map((c) => `${c.verb} ${c.what}`)).toEqual([
      `get controllerrevisions/${snapshot.metadata.name}`,
      'create runs/release-build-main',
      'status workflowruns/release',
    ]);
    const after = calls.length;
    await reconcileWorkflowRun('ns/release', d);
    expect(calls.slice(after).filter((c) => c.verb === 'get')).toEqual([]);
  });

  // Its create refused (409: it exists, made by a reconcile cut short), then read.
  const adopting = [`create controllerrevisions/${name}`, `get controllerrevisions/${name}`];

  it("goes on from a snapshot made meanwhile when it is the run's own (its create refused: 409)", async () => {
    const { d, calls } = deps({
      conflicting: snapshot,
      refuse: { [`create controllerrevisions/${name}`]: 409 },
    });
    await reconcileWorkflowRun('ns/release', d);
    expect(calls.map((c) => `${c.verb} ${c.what}`)).toEqual([
      ...adopting,
      'create runs/release-build-main',
      'status workflowruns/release',
    ]);
  });

  it("runs nothing from an object of its snapshot's name that is not the run's", async () => {
    const other: Snapshot = {
      ...snapshot,
      metadata: {
        ...snapshot.metadata,
        ownerReferences: [{ ...snapshot.metadata.ownerReferences![0]!, uid: 'uid-0' }],
      },
    };
    const { d, calls } = deps({ stored: [other], refuse: { [`create controllerrevisions/${name}`]: 409 } });
    await reconcileWorkflowRun('ns/release', d);
    expect(calls.map((c) => `${c.verb} ${c.what}`)).toEqual([...adopting, 'status workflowruns/release']);
    expect((calls[2]?.body as WorkflowRun).status).toMatchObject({ phase: 'Pending', snapshotName: name });
  });

  it('creates the first Run from the snapshot it wrote, and writes the status with the cached resourceVersion', async () => {
    const { d, calls } = deps({ written: true });
    await reconcileWorkflowRun('ns/release', d);
    expect(calls.map((c) => `${c.verb} ${c.what}`)).toEqual([
      'create runs/release-build-main',
      'status workflowruns/release',
    ]);
    const written = calls[1]?.body as WorkflowRun;
    expect(written.metadata.resourceVersion).toBe('7');
    expect(written.status).toMatchObject({ phase: 'Running', startedAt: NOW.toISOString() });
    // The one status write already names the Run it created: no second write for it.
    expect(written.status?.jobs?.build?.steps).toEqual([
      { name: 'main', phase: 'Pending', runName: 'release-build-main' },
    ]);
  });

  it('fails the job whose Run the API server refused, with its words, in the same reconcile', async () => {
    const { d, calls, events } = deps({
      written: true,
      refuse: { 'create runs/release-build-main': 422 },
    });
    await reconcileWorkflowRun('ns/release', d);
    const written = calls.find((c) => c.verb === 'status')?.body as WorkflowRun;
    expect(written.status?.phase).toBe('Failed');
    expect(written.status?.jobs?.build).toMatchObject({
      phase: 'Failed',
      message: 'the API server refused to create Run "release-build-main": quota exceeded',
    });
    expect(events).toContain(
      'Warning JobFailed: job "build" failed: the API server refused to create Run "release-build-main": quota exceeded',
    );
  });

  it('writes the status and then throws when a create failed for a passing reason, to be retried', async () => {
    const { d, calls } = deps({ written: true, refuse: { 'create runs/release-build-main': 503 } });
    await expect(reconcileWorkflowRun('ns/release', d)).rejects.toThrow('HTTP 503');
    expect(calls.map((c) => c.verb)).toEqual(['create', 'status']);
  });

  it('writes nothing once the status says what the caches show', async () => {
    const first = deps({ written: true });
    await reconcileWorkflowRun('ns/release', first.d);
    const created = first.calls[0]?.body as Run;
    // The Run is in the cache now, and the status written with its create names it already.
    const second = deps({ written: true, runs: [created] });
    second.d.caches.workflowRuns = cache<WorkflowRun>([
      { ...run, status: (first.calls[1]?.body as WorkflowRun).status },
    ]);
    await reconcileWorkflowRun('ns/release', second.d);
    expect(second.calls).toEqual([]);
  });

  it('writes nothing for a settled root run cached as the informer keeps it (its jobs left out)', async () => {
    const at = NOW.toISOString();
    const finished = workflowRunAsObserved({
      ...run,
      status: {
        phase: 'Succeeded',
        finishedAt: at,
        observedGeneration: 1,
        jobs: { build: { phase: 'Succeeded', steps: [{ name: 'main', runName: 'release-build-main' }] } },
      },
    });
    expect(finished.status?.jobs).toBeUndefined();
    const { d, calls } = deps({});
    d.caches.workflowRuns = cache<WorkflowRun>([finished]);
    d.defaultTtlSeconds = 3600;
    expect(await reconcileWorkflowRun('ns/release', d)).toEqual({ requeueAfter: 3_600_000 });
    expect(calls).toEqual([]);
  });

  it('forgets the snapshot spec it remembered once the run settled: nothing reads it again', async () => {
    const { d, calls } = deps({
      written: true,
      status: { phase: 'Succeeded', finishedAt: NOW.toISOString(), observedGeneration: 1 },
    });
    expect(d.snapshotSpecs.known('uid-1')).toBeDefined();
    await reconcileWorkflowRun('ns/release', d);
    expect(d.snapshotSpecs.known('uid-1')).toBeUndefined();
    expect(calls).toEqual([]);
  });
});
