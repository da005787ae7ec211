// A hostile tenant against the local runtimed (issue "steps isolated from the agent and from each
// other"): ordinary Runs in their own namespace try what a step once could do on the agent's machine,
// and each attempt fails. Real API server, real runtimed, real bubblewrap and bash.
import { readFileSync } from 'node:fs';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { join } from 'node:path';
import { eventually, testCluster, type TestCluster } from '../harness/cluster.js';
import { channel, type Channel } from '../harness/channel.js';
import { createRun, processesWith, runInPhase } from '../harness/objects.js';
import { stateDir } from '../harness/paths.js';
import { pidOf } from '../harness/processes.js';
import { runLogFile } from '../../src/runtime/logpaths.js';

let c: TestCluster;
let ch: Channel;
beforeAll(async () => {
  c = await testCluster('e2e-sandbox');
  ch = await channel();
});
afterAll(async () => {
  await c?.cleanup();
  await ch?.close();
});

const apiServer = () => {
  const kc = readFileSync(join(stateDir, 'kubeconfig-runtimed'), 'utf8');
  return /server: (\S+)/.exec(kc)?.[1] ?? '';
};

/** Runs a script as an ordinary Run and returns its outputs once it ended. */
async function attempt(name: string, script: string, phases = ['Succeeded']) {
  await createRun(c, name, { script });
  const run = await runInPhase(c, name, phases, 60_000);
  return run;
}

describe('a hostile step', () => {
  it('cannot read the agent kubeconfig, data folder, logs or command line', async () => {
    const files = [
      join(stateDir, 'kubeconfig-runtimed'),
      join(stateDir, 'kubeconfig'),
      join(stateDir, 'runtimed'),
      join(stateDir, 'runtimed', 'logs'),
      join(stateDir, 'pki'),
      '/var/run/secrets/kubernetes.io/serviceaccount/token',
    ];
    const run = await attempt(
      'snoop',
      [
        ...files.map(
          (f, i) =>
            `[ -e '${f}' ] && echo "f${i}=seen" >> "$KRT_OUTPUT" || echo "f${i}=hidden" >> "$KRT_OUTPUT"`,
        ),
        // Every command line this step can see: none of the agent's.
        // ([r]: so that grep's own command line does not count.)
        'echo "agent=$(cat /proc/[0-9]*/cmdline 2>/dev/null | tr "\\0" " " | grep -c "[r]untimed/main.js")" >> "$KRT_OUTPUT"',
        'echo "kube=$(env | grep -ci kube)" >> "$KRT_OUTPUT"',
        'echo "uid=$(id -u)" >> "$KRT_OUTPUT"',
      ].join('\n'),
    );
    const out = run.status?.outputs ?? {};
    expect(Object.fromEntries(files.map((_, i) => [`f${i}`, out[`f${i}`]]))).toEqual(
      Object.fromEntries(files.map((_, i) => [`f${i}`, 'hidden'])),
    );
    expect(out).toMatchObject({ agent: '0', kube: '0', uid: '1000' });
  });

  it('is refused the system calls of its seccomp filter (keyctl here), and no others', async () => {
    const run = await attempt(
      'seccomp',
      [
        // keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0): an unprivileged call that works
        // outside the filter.
        `perl -e 'print "keyctl=", (syscall(250, 0, -3, 0) == -1 && $!{EPERM} ? "refused" : "allowed"), "\n"' >> "$KRT_OUTPUT"`,
        `perl -e 'print "getpid=", (syscall(39) > 0 ? "allowed" : "refused"), "\n"' >> "$KRT_OUTPUT"`,
      ].join('\n'),
    );
    expect(run.status?.outputs).toMatchObject({ keyctl: 'refused', getpid: 'allowed' });
  });

  it('cannot make a user namespace of its own (bwrap --disable-userns)', async () => {
    const run = await attempt(
      'userns',
      'unshare -U true 2>/dev/null && echo "userns=made" >> "$KRT_OUTPUT" || echo "userns=refused" >> "$KRT_OUTPUT"',
    );
    expect(run.status?.outputs).toMatchObject({ userns: 'refused' });
  });

  it('cannot list Runs through anything it can reach: the API server answers without credentials only', async () => {
    const run = await attempt(
      'list-runs',
      `code=$(curl -sk -o /dev/null -w '%{http_code}' '${apiServer()}/apis/kruntimes.io/v1alpha1/runs'); echo "code=$code" >> "$KRT_OUTPUT"`,
    );
    expect(['401', '403']).toContain(run.status?.outputs?.code);
  });

  it("cannot see or write another running step's files", async () => {
    const gate = ch.gate();
    await createRun(c, 'victim', { script: `echo "mine=ok" >> "$KRT_OUTPUT"\n${gate.wait}` });
    await runInPhase(c, 'victim', ['Running'], 30_000);
    const run = await attempt(
      'intruder',
      [
        `[ -e '${join(stateDir, 'runtimed', 'work')}' ] && echo "work=seen" >> "$KRT_OUTPUT" || echo "work=hidden" >> "$KRT_OUTPUT"`,
        // Its own output file is the only one it has: the victim's is not under any path it sees.
        'echo "found=$(find / -xdev -name output -path "*meta*" 2>/dev/null | wc -l)" >> "$KRT_OUTPUT"',
      ].join('\n'),
    );
    expect(run.status?.outputs).toMatchObject({ work: 'hidden', found: '0' });
    gate.open();
    const victim = await runInPhase(c, 'victim', ['Succeeded'], 30_000);
    expect(victim.status?.outputs).toEqual({ mine: 'ok' });
  });

  it('a fork bomb ends its own step with LimitExceeded, and the agent keeps serving', async () => {
    const bomb = await attempt('bomb', 'b() { b | b & }; b; sleep 2', ['Failed', 'Succeeded']);
    expect(bomb.status).toMatchObject({ reason: 'LimitExceeded' });
    expect(bomb.status?.message).toMatch(/^LimitExceeded: processes/);
    const after = await attempt('after-bomb', 'echo fine=yes >> "$KRT_OUTPUT"');
    expect(after.status?.outputs).toEqual({ fine: 'yes' });
  });

  it('filling its /tmp and workspace fails its own step (no space left), while another step and the agent go on', async () => {
    const agent = pidOf('runtimed');
    const gate = ch.gate();
    await createRun(c, 'beside', { script: `${gate.wait}\necho "mine=ok" >> "$KRT_OUTPUT"` });
    await runInPhase(c, 'beside', ['Running'], 30_000);
    // Files under the largest a step may write (256 MiB), three of them over its 512 MiB tmpfs.
    for (const [name, dir] of [
      ['fill-tmp', '/tmp'],
      ['fill-workspace', '.'],
    ] as const) {
      const filler = await attempt(name, `for i in 1 2 3; do head -c 200M /dev/zero > ${dir}/fill$i; done`, [
        'Failed',
        'Succeeded',
      ]);
      expect(filler.status?.phase).toBe('Failed');
      const logFile = runLogFile(join(stateDir, 'runtimed'), c.namespace, filler.metadata.uid ?? '', 1);
      expect(readFileSync(logFile, 'utf8')).toContain('No space left on device');
    }
    gate.open();
    expect((await runInPhase(c, 'beside', ['Succeeded'], 30_000)).status?.outputs).toEqual({ mine: 'ok' });
    expect(pidOf('runtimed')).toBe(agent);
    const after = await attempt('after-fill', 'echo fine=yes >> "$KRT_OUTPUT"');
    expect(after.status?.outputs).toEqual({ fine: 'yes' });
  });

  it('leaves no process behind when it exits', async () => {
    const marker = `krt-left-${c.namespace}`;
    await attempt('leaver', `(exec -a ${marker} sleep infinity) &\necho left`);
    await eventually(
      async () => processesWith(marker).length === 0,
      10_000,
      'no process of the step to remain',
    );
  });

  it('a namespace labelled kruntimes.io/step-network=none gives its steps no network', async () => {
    const list = `echo "ifs=$(awk -F: 'NR > 2 { gsub(/ /, "", $1); print $1 }' /proc/net/dev | tr '\\n' ,)" >> "$KRT_OUTPUT"`;
    const open = await attempt('net-open', list);
    expect(open.status?.outputs?.ifs).not.toBe('lo,');
    await c.admin.core.patchNamespace(
      { name: c.namespace, body: { metadata: { labels: { 'kruntimes.io/step-network': 'none' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    // The agent reads the label again within its 10 s cache: each new step tells what it got.
    let n = 0;
    await eventually(
      async () => (await attempt(`net-closed-${n++}`, list)).status?.outputs?.ifs === 'lo,',
      30_000,
      'a step in the labelled namespace to see only lo',
    );
  });
});
