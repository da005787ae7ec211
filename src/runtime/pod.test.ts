import type { Run } from '../api/types.js';
import { parseReport, PREPARE_CHUNK, readPrepared, REPORT_PREFIX, stepPod, wholeSecrets } from './pod.js';
import { lastWarning, podInSight, podOutcome, type PodLike } from './pod-outcome.js';

const run = (spec: Partial<Run['spec']>): Run =>
  ({
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'Run',
    metadata: {
      name: 'r-build-s-1',
      namespace: 'team',
      uid: 'u1',
      labels: { 'kruntimes.io/workflow-job': 'build' },
    },
    spec: { runtime: 'kubernetes', container: { image: 'tools:1' }, ...spec },
  }) as Run;
type AnyPod = {
  metadata: {
    name: string;
    labels: Record<string, string>;
    annotations: Record<string, string>;
    ownerReferences: { uid: string; controller: boolean }[];
  };
  spec: {
    automountServiceAccountToken?: boolean;
    serviceAccountName?: string;
    activeDeadlineSeconds?: number;
    securityContext: Record<string, unknown>;
    initContainers: {
      name: string;
      image: string;
      command?: string[];
      args?: string[];
      env: { name: string; value?: string; valueFrom?: unknown }[];
      securityContext: Record<string, unknown>;
    }[];
    containers: { name: string; securityContext: Record<string, unknown> }[];
  };
};
const pod = (r: Run) => stepPod(r, { helperImage: 'kruntimes:1', graceSeconds: 5 }) as unknown as AnyPod;

describe('stepPod', () => {
  it('is named like its Run, owned by it, found by its labels, and shows the step in kubectl logs', () => {
    const p = pod(run({ script: 'echo hi' }));
    expect(p.metadata.name).toBe('r-build-s-1');
    expect(p.metadata.ownerReferences).toEqual([expect.objectContaining({ uid: 'u1', controller: true })]);
    expect(p.metadata.labels).toMatchObject({
      'kruntimes.io/run': 'r-build-s-1',
      'kruntimes.io/run-uid': 'u1',
      'kruntimes.io/workflow-job': 'build',
    });
    expect(p.metadata.annotations['kubectl.kubernetes.io/default-container']).toBe('step');
    expect(p.spec.initContainers.map((c) => c.name)).toEqual(['prepare', 'step']);
    expect(p.spec.containers.map((c) => c.name)).toEqual(['report']);
  });

  it('meets Pod Security "restricted" in every container, and gives no API token unless the job names an account', () => {
    const p = pod(run({ script: 'x' }));
    expect(p.spec.securityContext).toMatchObject({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    for (const c of [...p.spec.initContainers, ...p.spec.containers])
      expect(c.securityContext).toEqual({
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
        runAsNonRoot: true,
      });
    expect(p.spec.automountServiceAccountToken).toBe(false);
    const withAccount = pod(run({ container: { image: 'x', serviceAccountName: 'reader' } }));
    expect(withAccount.spec).toMatchObject({
      serviceAccountName: 'reader',
      automountServiceAccountToken: true,
    });
  });

  it('runs a script through the image shell, an exec form as given, and times out by activeDeadlineSeconds', () => {
    const script = pod(run({ script: 'echo hi', timeoutSeconds: 60 }));
    expect(script.spec.initContainers[1]?.command?.slice(0, 2)).toEqual(['/bin/sh', '-c']);
    expect(script.spec.activeDeadlineSeconds).toBe(60);
    const exec = pod(run({ container: { image: 'x', command: ['printf'], args: ['%s', "a'; rm -rf / #"] } }));
    expect(exec.spec.initContainers[1]).toMatchObject({
      command: ['printf'],
      args: ['%s', "a'; rm -rf / #"],
    });
    const entry = pod(run({ container: { image: 'x' } }));
    expect(entry.spec.initContainers[1]?.command).toBeUndefined();
  });

  it('passes a secret variable as a secretKeyRef (its value never in the Pod) and the KRT_* paths', () => {
    const p = pod(
      run({
        script: 'x',
        env: [
          { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
          { name: 'A', value: '1' },
        ],
      }),
    );
    const env = p.spec.initContainers[1]?.env ?? [];
    expect(env).toContainEqual({ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } });
    expect(env).toContainEqual({ name: 'A', value: '1' });
    expect(env).toContainEqual({ name: 'KRT_INPUT', value: '/kratix/input' });
    expect(env).toContainEqual({ name: 'KRT_CONTROL', value: '/kratix/metadata/workflow-control.yaml' });
  });

  it("mounts the job's volumes into the step only, takes envFrom, and names the Secrets read whole", () => {
    const r = run({
      script: 'x',
      container: {
        image: 'x',
        volumes: [
          { name: 'conf', configMap: { name: 'settings' } },
          { name: 'creds', secret: { secretName: 'tokens' } },
        ],
        volumeMounts: [{ name: 'conf', mountPath: '/conf' }],
        envFrom: [{ secretRef: { name: 'more' } }, { configMapRef: { name: 'settings' } }],
      },
    });
    const p = stepPod(r, { helperImage: 'k', graceSeconds: 5 }) as unknown as {
      spec: {
        volumes: { name: string }[];
        initContainers: { name: string; volumeMounts: { name: string }[]; envFrom?: unknown }[];
        containers: { volumeMounts: { name: string }[] }[];
      };
    };
    expect(p.spec.volumes.map((v) => v.name)).toEqual(['krt', 'kratix', 'conf', 'creds']);
    const [prepare, step] = p.spec.initContainers;
    expect(step?.volumeMounts.map((m) => m.name)).toEqual(['krt', 'kratix', 'conf']);
    expect(prepare?.volumeMounts.map((m) => m.name)).toEqual(['krt', 'kratix']);
    expect(p.spec.containers[0]?.volumeMounts.map((m) => m.name)).toEqual(['krt', 'kratix']);
    expect(step?.envFrom).toEqual([{ secretRef: { name: 'more' } }, { configMapRef: { name: 'settings' } }]);
    expect(wholeSecrets(r)).toEqual(['more', 'tokens']);
  });

  it('carries the script and files to prepare in chunks an environment can hold, read back whole', () => {
    const big = 'x'.repeat(PREPARE_CHUNK * 2 + 17);
    const p = pod(
      run({ script: 'echo', inputFiles: { 'object.yaml': big }, outputFiles: { 'a/b.yaml': 'k: v' } }),
    );
    const env = p.spec.initContainers[0]?.env ?? [];
    expect(env.length).toBe(3);
    for (const e of env) expect((e.value ?? '').length).toBeLessThanOrEqual(PREPARE_CHUNK);
    const back = readPrepared(Object.fromEntries(env.map((e) => [e.name, e.value])));
    expect(back).toEqual({ script: 'echo', input: { 'object.yaml': big }, output: { 'a/b.yaml': 'k: v' } });
  });
});

describe('parseReport', () => {
  const good = {
    output: 'a=1\n',
    control: '',
    status: { bytes: 999999 },
    files: { files: { 'x.yaml': 'k: v' } },
  };
  it('reads the last result line', () => {
    expect(parseReport(`noise\n${REPORT_PREFIX}${JSON.stringify(good)}\n`)).toEqual(good);
  });
  it.each([
    ['', 'the reporter printed no result'],
    [`${REPORT_PREFIX}{nope`, 'the reporter printed a result that is not JSON'],
    [
      `${REPORT_PREFIX}${JSON.stringify({ ...good, output: 3 })}`,
      'the reporter printed a result of the wrong shape',
    ],
    [
      `${REPORT_PREFIX}${JSON.stringify({ ...good, files: { files: { a: 1 } } })}`,
      'the reporter printed a result of the wrong shape',
    ],
  ])('refuses %j', (log, error) => {
    expect(parseReport(log)).toEqual({ error });
  });
});

describe('podOutcome', () => {
  const T0 = Date.parse('2026-12-04T10:00:00Z');
  const base = (status: PodLike['status']): PodLike => ({
    metadata: { creationTimestamp: new Date(T0).toISOString() },
    spec: {
      initContainers: [
        { name: 'prepare', image: 'k' },
        { name: 'step', image: 'nope:1' },
      ],
      containers: [{ name: 'report' }],
    },
    status,
  });
  const waiting = (name: string, reason: string, message = '') => ({
    name,
    state: { waiting: { reason, message } },
  });
  const ended = (name: string, exitCode: number, reason?: string) => ({
    name,
    state: { terminated: { exitCode, ...(reason ? { reason } : {}) } },
  });

  it('waits for an image until the bound, then fails with a reason and the image', () => {
    const p = base({
      phase: 'Pending',
      initContainerStatuses: [ended('prepare', 0), waiting('step', 'ImagePullBackOff', 'Back-off pulling')],
    });
    expect(podOutcome(p, T0 + 1000, 60_000)).toEqual({ state: 'pending' });
    expect(podOutcome(p, T0 + 60_000, 60_000)).toEqual({
      state: 'failed',
      reason: 'ImagePullBackOff',
      message: 'image "nope:1" of container step cannot be pulled: Back-off pulling',
    });
  });
  it('fails a missing Secret and an unschedulable Pod after the bound', () => {
    const secret = base({
      initContainerStatuses: [
        ended('prepare', 0),
        waiting('step', 'CreateContainerConfigError', 'secret "s" not found'),
      ],
    });
    expect(podOutcome(secret, T0, 1000).state).toBe('pending');
    expect(podOutcome(secret, T0 + 1000, 1000)).toMatchObject({
      reason: 'CreateContainerConfigError',
      message: 'container step cannot be created: secret "s" not found',
    });
    const unsched = base({
      phase: 'Pending',
      conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/1 nodes' }],
    });
    expect(podOutcome(unsched, T0 + 1000, 1000)).toMatchObject({
      reason: 'Unschedulable',
      message: 'no node can run the step Pod: 0/1 nodes',
    });
  });
  it('fails a Pod that has not started its step by the bound, for any other cause (a volume not mounted)', () => {
    const mounting = base({
      phase: 'Pending',
      initContainerStatuses: [waiting('prepare', 'PodInitializing')],
    });
    expect(podOutcome(mounting, T0 + 59_999, 60_000)).toEqual({ state: 'pending' });
    expect(podOutcome(mounting, T0 + 60_000, 60_000)).toEqual({
      state: 'failed',
      reason: 'PodStuck',
      message: 'the step Pod did not start its step within 60s',
    });
    // Once the step runs, or ran, no bound of starting holds.
    const started = base({
      phase: 'Running',
      initContainerStatuses: [ended('prepare', 0), { name: 'step', state: { running: {} } }],
    });
    expect(podOutcome(started, T0 + 3_600_000, 60_000)).toEqual({ state: 'running' });
  });
  it.each([
    [
      base({ phase: 'Failed', reason: 'DeadlineExceeded' }),
      { state: 'failed', reason: 'Timeout', timeout: true },
    ],
    [
      base({ phase: 'Failed', reason: 'Evicted', message: 'low on memory' }),
      { reason: 'Evicted', message: 'the node evicted the step Pod: low on memory' },
    ],
    [
      base({
        phase: 'Failed',
        initContainerStatuses: [ended('prepare', 0), ended('step', 137, 'OOMKilled')],
      }),
      { reason: 'OOMKilled', exitCode: 137 },
    ],
    [
      base({ phase: 'Failed', initContainerStatuses: [ended('prepare', 0), ended('step', 3)] }),
      { reason: 'NonZeroExit', exitCode: 3 },
    ],
    [base({ phase: 'Failed', initContainerStatuses: [ended('prepare', 1)] }), { reason: 'StartError' }],
    [
      base({
        phase: 'Running',
        initContainerStatuses: [ended('prepare', 0), ended('step', 0)],
        containerStatuses: [ended('report', 0)],
      }),
      { state: 'reported' },
    ],
    [
      base({
        phase: 'Running',
        initContainerStatuses: [ended('prepare', 0), { name: 'step', state: { running: {} } }],
      }),
      { state: 'running' },
    ],
    [
      base({ phase: 'Pending', initContainerStatuses: [waiting('step', 'InvalidImageName')] }),
      { reason: 'InvalidImageName' },
    ],
  ])('reads %j', (p, expected) => {
    expect(podOutcome(p, T0, 60_000)).toMatchObject(expected);
  });
});

describe('lastWarning', () => {
  it('quotes the latest Warning of the Events, ignoring Normal ones', () => {
    expect(
      lastWarning([
        {
          type: 'Warning',
          reason: 'FailedMount',
          message: 'configmap "a" not found',
          lastTimestamp: '2026-12-04T10:00:05Z',
        },
        { type: 'Normal', reason: 'Scheduled', message: 'assigned', lastTimestamp: '2026-12-04T10:00:09Z' },
        {
          type: 'Warning',
          reason: 'FailedMount',
          message: 'configmap "b" not found ',
          eventTime: '2026-12-04T10:00:07Z',
        },
        {
          type: 'Warning',
          reason: 'Old',
          message: 'x',
          metadata: { creationTimestamp: '2026-12-04T10:00:01Z' },
        },
      ]),
    ).toBe('FailedMount: configmap "b" not found');
    expect(lastWarning([{ type: 'Normal', reason: 'Pulled' }])).toBeUndefined();
    expect(lastWarning([])).toBeUndefined();
  });
});

describe('podInSight', () => {
  const pod: PodLike = { metadata: { creationTimestamp: '2026-12-04T10:00:00Z' } };
  const deleting: PodLike = { metadata: { ...pod.metadata, deletionTimestamp: '2026-12-04T10:01:00Z' } };

  it('goes by the Pod it was shown, from wherever it came', () => {
    for (const source of ['created', 'cache', 'server'] as const)
      for (const seen of [false, true]) expect(podInSight(source, pod, seen)).toBe(pod);
  });

  it('takes a Pod being deleted as gone', () => {
    for (const source of ['created', 'cache', 'server'] as const)
      expect(podInSight(source, deleting, true)).toBe('gone');
  });

  it('learns nothing from a watch cache that has not shown the Pod yet', () => {
    expect(podInSight('cache', undefined, false)).toBe('unknown');
  });

  it('takes a Pod gone from the cache that showed it, or not found by the API server, as gone', () => {
    expect(podInSight('cache', undefined, true)).toBe('gone');
    expect(podInSight('server', undefined, false)).toBe('gone');
    expect(podInSight('server', undefined, true)).toBe('gone');
  });
});
