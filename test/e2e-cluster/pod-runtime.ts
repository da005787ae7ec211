// The Pod executor on the one-node cluster (docs/runtimes.md): container steps of two images
// passing outputs, a job's service account, Pod-level failures with their reasons, cancel and
// timeout, an executor Pod deleted mid-step, logs while a step runs, Pod Security "restricted", and
// a Promise of Kratix-shaped container pipelines. Registered inside install.test.ts's suite, which
// deploys the install (with the bash agent beside the executor) and removes it afterwards.
import { expect, it } from '@jest/globals';
import { join } from 'node:path';
import { LABEL_RUN } from '../../src/labels.js';
import { repoRoot } from '../harness/paths.js';
import { spawnSync } from 'node:child_process';
import { ck, ckJson, clusterEnv, clusterKubeconfig, clusterState, krt } from '../harness/node-cluster.js';
import {
  EXECUTOR_PODS,
  krtAs,
  krtBackgroundAs,
  NS,
  podJob,
  step,
  until,
  userKubeconfig,
  workflowRun,
} from './helpers.js';

export { EXECUTOR_PODS, NS, podJob, step, workflowRun } from './helpers.js';

export interface RunObj {
  metadata: { name: string; labels?: Record<string, string> };
  status?: {
    phase?: string;
    reason?: string;
    message?: string;
    outputs?: Record<string, string>;
    attempts?: number;
    assignedTo?: string;
    logTail?: string;
    exitCode?: number;
  };
}
interface PodObj {
  metadata: { name: string; ownerReferences?: { kind: string; name: string }[] };
  spec: { automountServiceAccountToken?: boolean };
  status: { initContainerStatuses?: { name: string; restartCount: number }[] };
}

const project = () => clusterEnv('IMAGE') ?? '';
export const uniq = (s: string) => `${s}-${Date.now().toString(36)}`;

export function apply(obj: object): void {
  const r = ck(['apply', '-f', '-'], JSON.stringify(obj));
  if (r.status !== 0) throw new Error(`kubectl apply: ${r.stderr}`);
}

export const run = (name: string) => ckJson<RunObj>(['get', '-n', NS, 'run', name]);
const phaseOf = (name: string) =>
  ck(['get', '-n', NS, 'run', name, '-o', 'jsonpath={.status.phase}']).stdout || '';
export const ended = (name: string) =>
  until(`Run ${name} ended`, 240, () => {
    const p = phaseOf(name);
    return ['Succeeded', 'Failed', 'Cancelled', 'Timeout'].includes(p) ? run(name) : undefined;
  });
const wfrPhase = (name: string) =>
  ck(['get', '-n', NS, 'wfr', name, '-o', 'jsonpath={.status.phase}']).stdout;
export const podsOf = (runName: string) =>
  ckJson<{ items: PodObj[] }>(['get', 'pods', '-n', NS, '-l', `${LABEL_RUN}=${runName}`]).items;

export function podRuntimeTests(): void {
  it('runs container steps as Pods: two images passing an output, exec-form words as data, kubectl logs, no API token by default', async () => {
    const name = uniq('two-images');
    apply(
      workflowRun(name, {
        make: {
          ...podJob([
            {
              name: 'write',
              image: step(),
              run: [
                'echo "made in $(cat /etc/debian_version)"',
                'echo "greeting=it\'s $(id -u); \\$(x)" >> "$KRT_OUTPUT"',
                'test ! -e /var/run/secrets/kubernetes.io/serviceaccount/token',
              ].join('\n'),
            },
          ]),
          outputs: { greeting: '${{ steps.write.outputs.greeting }}' },
        },
        read: {
          needs: ['make'],
          ...podJob([
            {
              name: 'node',
              image: project(),
              command: [
                'node',
                '-e',
                'console.log(JSON.stringify(process.argv.slice(1)))',
                '${{ jobs.make.outputs.greeting }}',
              ],
            },
          ]),
        },
      }),
    );
    const read = await ended(`${name}-read-node`);
    expect(read.status?.phase).toBe('Succeeded');
    // One argument, exactly the value: no shell read it.
    expect(read.status?.logTail).toBe(`${JSON.stringify(["it's 65532; $(x)"])}\n`);
    const write = run(`${name}-make-write`);
    expect(write.status?.logTail).toMatch(/^made in 12\./);
    // One Pod per Run, named like it and owned by it; kubectl logs shows the step.
    const [pod] = podsOf(`${name}-read-node`);
    expect(pod?.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Run', name: `${name}-read-node` }),
    ]);
    expect(pod?.spec.automountServiceAccountToken).toBe(false);
    expect(ck(['logs', '-n', NS, `${name}-read-node`]).stdout).toBe(read.status?.logTail);
    await until('the WorkflowRun Succeeded', 60, () => wfrPhase(name) === 'Succeeded');
    // The Pods go with their Runs, and those with the WorkflowRun (owner references).
    expect(ck(['delete', '-n', NS, 'wfr', name, '--wait=false']).status).toBe(0);
    await until(
      'the step Pods collected',
      120,
      () => podsOf(`${name}-read-node`).length + podsOf(`${name}-make-write`).length === 0,
    );
  });

  it("mounts a ConfigMap and a Secret and reads them whole (envFrom), masking the Secret's values in what runtimed keeps", async () => {
    const secret = uniq('token');
    expect(
      ck(['create', 'secret', 'generic', secret, '-n', NS, '--from-literal=token=s3cr3t-v4lue']).status,
    ).toBe(0);
    expect(ck(['create', 'configmap', secret, '-n', NS, '--from-literal=greeting=hello']).status).toBe(0);
    const name = uniq('masked');
    apply(
      workflowRun(name, {
        a: podJob(
          [
            {
              name: 's',
              image: step(),
              run: [
                'echo "token is $TOKEN"',
                'echo "file holds $(cat /creds/token), env holds $S_token"',
                'echo "greeting $(cat /conf/greeting) $C_greeting"',
                'echo "leak=$TOKEN" >> "$KRT_OUTPUT"',
              ].join('\n'),
              secretEnv: { TOKEN: { name: secret, key: 'token' } },
              volumeMounts: [
                { name: 'conf', mountPath: '/conf', readOnly: true },
                { name: 'creds', mountPath: '/creds', readOnly: true },
              ],
              envFrom: [
                { secretRef: { name: secret }, prefix: 'S_' },
                { configMapRef: { name: secret }, prefix: 'C_' },
              ],
            },
          ],
          {
            volumes: [
              { name: 'conf', configMap: { name: secret } },
              { name: 'creds', secret: { secretName: secret } },
            ],
          },
        ),
      }),
    );
    const r = await ended(`${name}-a-s`);
    const expected = 'token is ***\nfile holds ***, env holds ***\ngreeting hello hello\n';
    expect(r.status).toMatchObject({ phase: 'Succeeded', logTail: expected, outputs: { leak: '***' } });
    const logs = krt(['-n', NS, 'run', 'logs', `${name}-a-s`]);
    expect([logs.status, logs.stdout]).toEqual([0, expected]);
    // The value is in no object: the Pod names the Secret.
    expect(ck(['get', 'pod', '-n', NS, `${name}-a-s`, '-o', 'json']).stdout).not.toContain('s3cr3t');
  });

  it("gives a job's service account to its step Pod: the ConfigMap its RBAC allows is read, another refused", async () => {
    const sa = uniq('cm-reader');
    for (const args of [
      ['create', 'serviceaccount', sa],
      ['create', 'configmap', `${sa}-allowed`, '--from-literal=v=1'],
      ['create', 'configmap', `${sa}-other`, '--from-literal=v=2'],
      ['create', 'role', sa, '--verb=get', '--resource=configmaps', `--resource-name=${sa}-allowed`],
      ['create', 'rolebinding', sa, `--role=${sa}`, `--serviceaccount=${NS}:${sa}`],
    ])
      expect(ck([...args, '-n', NS]).stderr).toBe('');
    const script = [
      "import https from 'node:https';",
      "import { readFileSync } from 'node:fs';",
      "const sa = '/var/run/secrets/kubernetes.io/serviceaccount';",
      'const get = (n) => new Promise((ok, no) => https.get({ host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT,',
      `  path: '/api/v1/namespaces/${NS}/configmaps/' + n, ca: readFileSync(sa + '/ca.crt'),`,
      "  headers: { authorization: 'Bearer ' + readFileSync(sa + '/token', 'utf8') } }, (r) => { r.resume(); ok(r.statusCode); }).on('error', no));",
      `console.log('allowed=' + await get('${sa}-allowed'));`,
      `console.log('other=' + await get('${sa}-other'));`,
    ].join('\n');
    const name = uniq('reader');
    apply(
      workflowRun(name, {
        read: podJob(
          [
            {
              name: 'get',
              image: project(),
              run: `cat > /tmp/get.mjs <<'JS'\n${script}\nJS\nnode /tmp/get.mjs | tee -a "$KRT_OUTPUT"`,
            },
          ],
          { serviceAccountName: sa },
        ),
      }),
    );
    const r = await ended(`${name}-read-get`);
    expect([r.status?.phase, r.status?.outputs]).toEqual(['Succeeded', { allowed: '200', other: '403' }]);
  });

  it('fails a Run with the reason of its Pod: a missing image, OOM, a missing Secret, an exit code, no node, a volume never mounted', async () => {
    const name = uniq('fails');
    const s = (extra: object) => [{ name: 's', image: step(), run: 'echo bye; exit 3', ...extra }];
    apply(
      workflowRun(name, {
        noimage: podJob(s({ image: 'localhost/kruntimes-missing:1', run: 'true' })),
        oom: podJob(s({ run: 'tail /dev/zero', resources: { limits: { memory: '32Mi' } } })),
        nosecret: podJob(s({ run: 'echo "$X"', secretEnv: { X: { name: 'kruntimes-missing', key: 'k' } } })),
        exit: podJob(s({})),
        nonode: podJob(s({ run: 'true' }), { nodeSelector: { 'kruntimes.dev/none': 'x' } }),
        nomount: podJob(s({ run: 'true', volumeMounts: [{ name: 'conf', mountPath: '/conf' }] }), {
          volumes: [{ name: 'conf', configMap: { name: 'kruntimes-missing' } }],
        }),
      }),
    );
    const expected: Record<string, [string, RegExp]> = {
      noimage: [
        'ImagePullBackOff',
        /image "localhost\/kruntimes-missing:1" of container step cannot be pulled/,
      ],
      oom: ['OOMKilled', /more memory than its limit/],
      nosecret: ['CreateContainerConfigError', /secret "kruntimes-missing" not found/],
      exit: ['NonZeroExit', /exited with code 3/],
      nonode: ['Unschedulable', /no node can run the step Pod: 0\/1 nodes are available/],
      // No rule names this cause: the bound of --pod-stuck-seconds ends it, quoting the Event.
      nomount: [
        'PodStuck',
        /did not start its step within 20s: FailedMount: .*configmap "kruntimes-missing" not found/,
      ],
    };
    for (const [job, [reason, message]] of Object.entries(expected)) {
      const r = await ended(`${name}-${job}-s`);
      expect([job, r.status?.phase, r.status?.reason]).toEqual([job, 'Failed', reason]);
      expect(r.status?.message).toMatch(message);
    }
    expect(run(`${name}-exit-s`).status).toMatchObject({ exitCode: 3, logTail: 'bye\n' });
  });

  it('cancels a running step by deleting its Pod, and stops one at its timeout', async () => {
    const name = uniq('stop');
    const forever = [{ name: 's', image: step(), run: 'echo up; sleep 600' }];
    apply(
      workflowRun(name, {
        cancel: podJob(forever),
        timeout: podJob([{ ...forever[0], 'timeout-minutes': 1 }]),
      }),
    );
    const cancelRun = `${name}-cancel-s`;
    await until(
      'the step running',
      120,
      () => phaseOf(cancelRun) === 'Running' && podsOf(cancelRun).length === 1,
    );
    const r = ck([
      'patch',
      '-n',
      NS,
      'run',
      cancelRun,
      '--type=merge',
      '-p',
      '{"spec":{"cancelRequested":true}}',
    ]);
    expect(r.stderr).toBe('');
    const cancelled = await ended(cancelRun);
    expect([cancelled.status?.phase, cancelled.status?.reason]).toEqual(['Cancelled', 'Cancelled']);
    await until('the cancelled step Pod gone', 60, () => podsOf(cancelRun).length === 0);
    const timedOut = await ended(`${name}-timeout-s`);
    expect([timedOut.status?.phase, timedOut.status?.reason]).toEqual(['Timeout', 'Timeout']);
  });

  it('waits out a full ResourceQuota, saying so in the Run; a step cancelled meanwhile never gets a Pod', async () => {
    const name = uniq('quota');
    const quota = `kruntimes-full-${name}`;
    expect(ck(['create', 'quota', quota, '-n', NS, '--hard=pods=0']).status).toBe(0);
    try {
      const one = [{ name: 's', image: step(), run: 'echo made=it >> "$KRT_OUTPUT"' }];
      apply(workflowRun(name, { waits: podJob(one), dropped: podJob(one) }));
      const [waits, dropped] = [`${name}-waits-s`, `${name}-dropped-s`];
      for (const r of [waits, dropped])
        await until(`Run ${r} to say it waits for the quota`, 60, () =>
          /^QuotaExceeded: waiting to create the step Pod: .*exceeded quota/.test(
            run(r).status?.message ?? '',
          ),
        );
      expect(phaseOf(waits)).toBe('Running');
      const cancel = ck([
        'patch',
        '-n',
        NS,
        'run',
        dropped,
        '--type=merge',
        '-p',
        '{"spec":{"cancelRequested":true}}',
      ]);
      expect(cancel.stderr).toBe('');
      expect((await ended(dropped)).status?.phase).toBe('Cancelled');
      expect(ck(['delete', 'quota', quota, '-n', NS]).status).toBe(0);
      const done = await ended(waits);
      // The whole status on a failure: its reason and message say what ended it.
      expect(done.status).toMatchObject({ phase: 'Succeeded', outputs: { made: 'it' } });
      expect(podsOf(dropped)).toEqual([]);
    } finally {
      ck(['delete', 'quota', quota, '-n', NS, '--ignore-not-found']);
    }
  });

  it('completes a step whose executor Pod is deleted while it runs: the Pod adopted, the step run once', async () => {
    const name = uniq('adopt');
    apply(
      workflowRun(name, {
        a: podJob([
          {
            name: 's',
            image: step(),
            run: 'echo started; sleep 12; echo "done=yes" >> "$KRT_OUTPUT"; echo ended',
          },
        ]),
      }),
    );
    const runName = `${name}-a-s`;
    const holder = await until('the step running', 120, () => {
      const r = run(runName);
      return r.status?.phase === 'Running' && podsOf(runName).length === 1 && r.status.assignedTo;
    });
    expect(ck(['delete', 'pod', '-n', 'kruntimes-system', holder, '--wait=false']).status).toBe(0);
    const r = await ended(runName);
    expect(r.status).toMatchObject({
      phase: 'Succeeded',
      outputs: { done: 'yes' },
      logTail: 'started\nended\n',
    });
    expect(r.status?.assignedTo).not.toBe(holder);
    expect(r.status?.attempts).toBe(2);
    const pods = podsOf(runName);
    expect(pods).toHaveLength(1);
    expect(pods[0]?.status.initContainerStatuses?.map((c) => c.restartCount)).toEqual([0, 0]);
    await until('the executor back to two Pods', 120, () => {
      const ready = ckJson<{ items: { status: { conditions?: { type: string; status: string }[] } }[] }>(
        EXECUTOR_PODS,
      ).items.filter((p) => p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
      return ready.length === 2;
    });
  });

  it('shows a running step in kubectl logs and in krt run logs -f for a user allowed to read it', async () => {
    const reader = userKubeconfig('pod-log-reader');
    ck([
      'create',
      'rolebinding',
      'pod-log-reader',
      '-n',
      NS,
      '--clusterrole=kruntimes-log-reader',
      '--user=pod-log-reader',
    ]);
    const name = uniq('follow');
    apply(
      workflowRun(name, {
        a: podJob([{ name: 's', image: step(), run: 'echo first; sleep 8; echo second' }]),
      }),
    );
    const runName = `${name}-a-s`;
    await until(
      'the step running',
      120,
      () => phaseOf(runName) === 'Running' && podsOf(runName).length === 1,
    );
    const follow = krtBackgroundAs(reader, ['-n', NS, 'run', 'logs', '-f', runName]);
    await until('the first line while the step runs', 60, () => {
      const live = ck(['logs', '-n', NS, runName]).stdout;
      return live === 'first\n' && follow.output().includes('first\n') && phaseOf(runName) === 'Running';
    });
    const done = await follow.done;
    expect({ status: done.status, stdout: done.stdout }).toEqual({ status: 0, stdout: 'first\nsecond\n' });
    const stranger = krtAs(userKubeconfig('pod-log-stranger'), ['-n', NS, 'run', 'logs', runName]);
    expect(stranger.status).not.toBe(0);
  });

  it('admits step Pods where Pod Security "restricted" is enforced, and the install but its bash agent meets it', async () => {
    expect(
      ck(['label', '--overwrite', 'namespace', NS, 'pod-security.kubernetes.io/enforce=restricted']).status,
    ).toBe(0);
    try {
      const name = uniq('restricted');
      apply(workflowRun(name, { a: podJob([{ name: 's', image: step(), run: 'id -u' }]) }));
      const r = await ended(`${name}-a-s`);
      expect([r.status?.phase, r.status?.logTail]).toEqual(['Succeeded', '65532\n']);
    } finally {
      ck(['label', 'namespace', NS, 'pod-security.kubernetes.io/enforce-']);
    }
    // A server-side dry run of the label lists the Pods that would violate it.
    const dry = ck([
      'label',
      '--dry-run=server',
      '--overwrite',
      'namespace',
      'kruntimes-system',
      'pod-security.kubernetes.io/enforce=restricted',
    ]);
    const violating = dry.stderr.split('\n').filter((l) => /^Warning: kruntimes-/.test(l));
    expect(violating).toEqual([
      expect.stringMatching(/^Warning: kruntimes-bash-agent-\S+ \(and 1 other pod\): privileged/),
    ]);
  });

  it('runs a Promise of Kratix-shaped container pipelines: files between pipelines, status.yaml, suspend until approved, a delete pipeline', async () => {
    const sample = join(repoRoot, 'config', 'samples', 'team-promise');
    // From a clean start, should an earlier run have left Teams behind.
    ck(['delete', '-n', NS, 'teams', '--all', '--ignore-not-found', '--timeout=120s']);
    // Cleaned up whatever happens, or the install's uninstall waits on the Promise's resources.
    try {
      expect(ck(['apply', '-k', sample]).status).toBe(0);
      expect(ck(['wait', '--for=condition=Available', '--timeout=90s', 'promise/team']).stderr).toBe('');
      // The install applies again over it: the Promise's ClusterRole, aggregated into the
      // controller's, is not a conflict.
      const again = spawnSync(
        join(repoRoot, 'tools', 'deploy.sh'),
        [join(repoRoot, 'test', 'e2e-cluster', 'overlay')],
        {
          encoding: 'utf8',
          env: {
            ...process.env,
            KUBECTL: join(clusterState, 'bin', 'kubectl'),
            KUBECONFIG: clusterKubeconfig,
          },
        },
      );
      expect([again.status, again.stderr]).toEqual([0, '']);
      const team = (name: string, spec: object) => ({
        apiVersion: 'teams.kruntimes.dev/v1',
        kind: 'Team',
        metadata: { name, namespace: NS },
        spec,
      });
      apply(team('blue', { owner: 'alice', cpu: '3' }));
      apply(team('green', { owner: 'bob', requiresApproval: true }));
      type Team = {
        metadata: { labels?: Record<string, string> };
        status?: {
          message?: string;
          namespace?: string;
          kruntimes?: { workflows?: { phase?: string; pipelines?: { name: string; message?: string }[] } };
        };
      };
      const get = (n: string) => ckJson<Team>(['get', '-n', NS, 'team', n]);
      const blue = await until('team blue configured', 240, () => {
        const t = get('blue');
        return t.status?.kruntimes?.workflows?.phase === 'Succeeded' && t;
      });
      expect(blue.status).toMatchObject({
        message: 'team ready: namespace team-blue',
        namespace: 'team-blue',
      });
      const quota = ckJson<{ spec: { hard: Record<string, string> } }>([
        'get',
        '-n',
        'team-blue',
        'resourcequota',
        'team',
      ]);
      expect(quota.spec.hard).toEqual({ 'requests.cpu': '3', 'requests.memory': '4Gi' });
      const binding = ckJson<{ subjects: { name: string }[] }>([
        'get',
        '-n',
        'team-blue',
        'rolebinding',
        'owner',
      ]);
      expect(binding.subjects.map((s) => s.name)).toEqual(['alice']);
      // Every step of the pipelines ran in a Pod.
      const runs = ckJson<{ items: RunObj[] }>([
        'get',
        '-n',
        NS,
        'runs',
        '-l',
        'kruntimes.io/workflow-job in (render,access)',
      ]).items;
      expect(runs.length).toBeGreaterThanOrEqual(8);
      for (const r of runs) expect(podsOf(r.metadata.name)).toHaveLength(1);
      // Suspended until approved; approving (a new spec) runs the workflow again to the end.
      await until(
        'team green suspended',
        240,
        () => get('green').metadata.labels?.['kruntimes.io/workflow-suspended'] === 'true',
      );
      // kubectl get shows what the pipeline wrote to status.yaml; the control's message is describe's.
      expect(ck(['get', '-n', NS, 'team', 'green']).stdout).toMatch(/\sSuspended\s+waiting for approval\s/);
      expect(get('green').status?.kruntimes?.workflows?.pipelines?.map((p) => p.message)).toContain(
        'waiting for approval of team green',
      );
      // What the pipelines before the suspended one wrote is applied; the suspended one's is not yet.
      expect(ck(['get', 'namespace', 'team-green']).status).toBe(0);
      expect(ck(['get', '-n', 'team-green', 'rolebinding', 'owner']).status).not.toBe(0);
      expect(
        ck(['patch', '-n', NS, 'team', 'green', '--type=merge', '-p', '{"spec":{"approved":true}}']).status,
      ).toBe(0);
      await until(
        'team green configured',
        240,
        () => get('green').status?.message === 'team ready: namespace team-green',
      );
      // The delete pipeline runs as containers before the Team goes, and its Works' objects with it.
      expect(ck(['delete', '-n', NS, 'team', 'blue', '--wait=false']).status).toBe(0);
      const farewell = await until('the delete pipeline Succeeded', 120, () => {
        const [r] = ckJson<{ items: RunObj[] }>([
          'get',
          '-n',
          NS,
          'runs',
          '-l',
          'kruntimes.io/workflow-job=farewell',
        ]).items;
        return r?.status?.phase === 'Succeeded' && r;
      });
      expect(farewell.status?.logTail).toBe('team blue removed (delete)\n');
      await until(
        'team blue and its namespace gone',
        180,
        () =>
          ck(['get', '-n', NS, 'team', 'blue']).status !== 0 &&
          ck(['get', 'namespace', 'team-blue']).status !== 0,
      );
    } finally {
      ck(['delete', '-n', NS, 'team', '--all', '--timeout=180s']);
      ck(['delete', '-k', sample, '--timeout=120s']);
    }
  });

  /** Applies a Promise of these pipelines over a small API, with the role granting the controller it. */
  function applyContainerPromise(
    name: string,
    api: { group: string; kind: string; plural: string },
    configure: object[],
  ): void {
    apply({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: {
        name: `kruntimes-promise-${name}`,
        labels: { 'kruntimes.io/aggregate-to-promises': 'true' },
      },
      rules: [
        {
          apiGroups: [api.group],
          resources: [api.plural],
          verbs: ['get', 'list', 'watch', 'patch', 'delete'],
        },
        { apiGroups: [api.group], resources: [`${api.plural}/status`], verbs: ['update'] },
      ],
    });
    apply({
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'Promise',
      metadata: { name },
      spec: {
        api: {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: `${api.plural}.${api.group}` },
          spec: {
            group: api.group,
            scope: 'Namespaced',
            names: { kind: api.kind, plural: api.plural },
            versions: [
              {
                name: 'v1',
                served: true,
                storage: true,
                schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object' } } } },
              },
            ],
          },
        },
        workflows: { resource: { configure } },
      },
    });
    expect(ck(['wait', '--for=condition=Available', '--timeout=90s', `promise/${name}`]).stderr).toBe('');
  }

  it("halts a container pipeline at its first failing container, as Kratix's pipelines do", async () => {
    const container = (name: string, script: string) => ({
      name,
      image: step(),
      command: ['bash', '-euc', script],
    });
    applyContainerPromise('halter', { group: 'halt.kruntimes.dev', kind: 'Halt', plural: 'halts' }, [
      {
        apiVersion: 'kruntimes.io/v1alpha1',
        kind: 'Pipeline',
        metadata: { name: 'three' },
        spec: {
          containers: [
            container('first', 'echo first'),
            container('second', 'echo second; exit 3'),
            container('third', 'echo third'),
          ],
        },
      },
      {
        apiVersion: 'kruntimes.io/v1alpha1',
        kind: 'Pipeline',
        metadata: { name: 'after' },
        spec: { containers: [container('never', 'echo never')] },
      },
    ]);
    apply({
      apiVersion: 'halt.kruntimes.dev/v1',
      kind: 'Halt',
      metadata: { name: 'h', namespace: NS },
      spec: {},
    });
    type Halt = {
      metadata: { uid: string };
      status?: { message?: string; kruntimes?: { workflows?: { phase?: string } } };
    };
    const failed = await until('the pipeline failed', 240, () => {
      const h = ckJson<Halt>(['get', '-n', NS, 'halts', 'h']);
      return h.status?.kruntimes?.workflows?.phase === 'Failed' && h;
    });
    expect(failed.status?.message).toMatch(/^pipeline "three" failed/);
    // One Run (and Pod) each for the first two containers, in order; none for the third or the next pipeline.
    type Runs = { items: { metadata: { name: string }; status?: { exitCode?: number } }[] };
    const runs = ckJson<Runs>(['get', '-n', NS, 'runs', '-l', 'kruntimes.io/workflow-job=three']).items;
    expect(runs.map((r) => [r.metadata.name.replace(/^.*-three-/, ''), r.status?.exitCode]).sort()).toEqual([
      ['first', 0],
      ['second', 3],
    ]);
    const wfrs = ckJson<{ items: { metadata: { labels?: Record<string, string> } }[] }>([
      'get',
      '-n',
      NS,
      'wfr',
      '-l',
      `kruntimes.io/resource-uid=${failed.metadata.uid}`,
    ]).items;
    expect(wfrs.map((w) => w.metadata.labels?.['kruntimes.io/pipeline'])).toEqual(['three']);
    ck(['delete', '-n', NS, 'halts', '--all', '--timeout=120s']);
    ck(['delete', 'promise', 'halter', '--timeout=120s']);
    ck(['delete', 'clusterrole', 'kruntimes-promise-halter']);
  });

  it('re-runs a container pipeline at its retryAfter, counting attempts, then goes on', async () => {
    // Its third attempt's Run is named <...>-a3 (the name is what a container sees of its attempt).
    applyContainerPromise('retrier', { group: 'retry.kruntimes.dev', kind: 'Retry', plural: 'retries' }, [
      {
        apiVersion: 'kruntimes.io/v1alpha1',
        kind: 'Pipeline',
        metadata: { name: 'until-third' },
        spec: {
          containers: [
            {
              name: 'try',
              image: step(),
              command: [
                'bash',
                '-euc',
                'case "$KRT_RUN" in *-a3) echo "message: third time" > /kratix/metadata/status.yaml ;; *) printf "retryAfter: 1s\\nmessage: not yet\\n" > /kratix/metadata/workflow-control.yaml ;; esac',
              ],
            },
          ],
        },
      },
    ]);
    apply({
      apiVersion: 'retry.kruntimes.dev/v1',
      kind: 'Retry',
      metadata: { name: 'thrice', namespace: NS },
      spec: {},
    });
    type Retry = {
      status?: {
        message?: string;
        kruntimes?: { workflows?: { phase?: string; pipelines?: { attempts?: number }[] } };
      };
    };
    const done = await until('the retried pipeline done', 240, () => {
      const r = ckJson<Retry>(['get', '-n', NS, 'retries', 'thrice']);
      return r.status?.kruntimes?.workflows?.phase === 'Succeeded' && r;
    });
    expect(done.status?.message).toBe('third time');
    expect(done.status?.kruntimes?.workflows?.pipelines?.[0]?.attempts).toBe(3);
    ck(['delete', '-n', NS, 'retries', '--all', '--timeout=120s']);
    ck(['delete', 'promise', 'retrier', '--timeout=120s']);
    ck(['delete', 'clusterrole', 'kruntimes-promise-retrier']);
  });
}
