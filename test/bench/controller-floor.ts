// The controller bench's floor: the API writes the bench's workload needs, made by one client with
// nothing between them. Each WorkflowRun goes through the controller's own planned reconcile
// (`reconcilePlanned` over `planWorkflowRun`) with what the client itself wrote as its observation:
// no work queue, no waiting for watch events, no cache. Each Run it creates is ended at once by the
// stand-in executor's one status write. So the floor makes the same writes with the same bodies
// (snapshot, Run creates through the admission webhook, WorkflowRun status writes, the executor's
// Run status), while two cluster-wide watches of WorkflowRuns and Runs stay open as a controller's
// would. What the floor reaches is what this API server allows for this workload on this machine;
// no controller with the same writes can go faster.
import { performance } from 'node:perf_hooks';
import type { Run, WorkflowRun, WorkflowRunSpec } from '../../src/api/types.js';
import { reconcilePlanned } from '../../src/kube/controller/planned.js';
import { ResilientInformer } from '../../src/kube/informer.js';
import type { KubeAccess } from '../../src/kube/access.js';
import { crd, KubeClient } from '../../src/kube/rest.js';
import { buildSnapshot } from '../../src/plan/build-objects.js';
import { snapshotsIn } from '../../controller/snapshots.js';
import { actionId } from '../../controller/workflowrun.js';
import { planWorkflowRun, settled, type Action, type Plan } from '../../src/plan/workflowrun.js';

/** One WorkflowRun from its create to its end. */
async function runOne(kube: KubeClient, namespace: string, body: WorkflowRun): Promise<void> {
  let run = await kube.create<WorkflowRun>(crd('workflowruns', namespace), body);
  let snapshot: WorkflowRunSpec | undefined;
  const runs = new Map<string, Run>();
  const coordinates = { ...crd('workflowruns', namespace), name: run.metadata.name ?? '' };
  for (let pass = 0; !settled(run); pass++) {
    if (pass > 1000) throw new Error(`${run.metadata.name}: the floor made no progress`);
    await reconcilePlanned<WorkflowRun, NonNullable<WorkflowRun['status']>, Action, Plan>({
      object: run,
      statusOf: (r) => r.status,
      plan: (now) =>
        planWorkflowRun({
          run,
          snapshot,
          runs: [...runs.values()],
          children: [],
          workflow: () => undefined,
          now,
        }),
      replanAfter: () => true,
      id: actionId,
      apply: async (a) => {
        if (a.type === 'createSnapshot') {
          await kube.create(snapshotsIn(namespace), buildSnapshot(run, a.name, a.spec));
          snapshot = a.spec;
        } else if (a.type === 'createRun') {
          const created = await kube.create<Run>(crd('runs', namespace), a.run);
          runs.set(created.metadata.name ?? '', created);
        } else throw new Error(`the floor does not apply ${a.type}`);
      },
      failed: () => 'fatal',
      writeStatus: async (target, status) => {
        run = await kube.replaceStatus<WorkflowRun>(coordinates, { ...target, status });
      },
    });
    // The stand-in executor: each Run not ended yet ends now, with its one status write.
    for (const [name, r] of runs)
      if (!r.status?.phase)
        runs.set(
          name,
          await kube.patchStatus<Run>(
            { ...crd('runs', namespace), name },
            { status: { phase: 'Succeeded', exitCode: 0 } },
          ),
        );
  }
}

/**
 * `count` WorkflowRuns made by `body`, `inFlight` at a time, through the floor: steps per second and
 * the sorted create-to-Succeeded latencies in ms.
 */
export async function floor(
  kc: KubeAccess,
  namespace: string,
  count: number,
  inFlight: number,
  body: (name: string) => WorkflowRun,
): Promise<{ seconds: number; latencies: number[] }> {
  const kube = new KubeClient(kc);
  const watches = ['workflowruns', 'runs'].map(
    (plural) => new ResilientInformer(kc, { path: `/apis/kruntimes.io/v1alpha1/${plural}` }),
  );
  await Promise.all(watches.map((w) => w.start()));
  const latencies: number[] = [];
  let next = 0;
  const start = performance.now();
  const worker = async () => {
    while (next < count) {
      const t = performance.now();
      await runOne(kube, namespace, body(`floor-${next++}`));
      latencies.push(performance.now() - t);
    }
  };
  try {
    await Promise.all(Array.from({ length: inFlight }, worker));
  } finally {
    for (const w of watches) w.stop();
  }
  return { seconds: (performance.now() - start) / 1000, latencies: latencies.sort((a, b) => a - b) };
}
