// The install manifests (config/default through kustomize): the image is set by kustomize, an
// overlay with another namespace carries every namespace-bearing name with it, and the Pods pass
// the real API server's Pod Security admission at the levels config/rbac/namespace.yaml promises.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { testCluster, type TestCluster } from '../harness/cluster.js';
import { kubectl } from '../harness/kubectl.js';
import { stepPod } from '../../src/runtime/pod.js';
import { statusCode } from '../../src/kube/rest.js';
import { adminKubeconfig, kubectlPath, repoRoot } from '../harness/paths.js';

interface Obj {
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  [k: string]: unknown;
}

/** `kubectl kustomize` of a kustomization written in a temporary folder inside config/. */
function render(kustomization: string): Obj[] {
  const dir = mkdtempSync(join(repoRoot, 'config', '.test-overlay-'));
  try {
    writeFileSync(join(dir, 'kustomization.yaml'), kustomization);
    const r = kubectl(['kustomize', dir]);
    if (r.status !== 0) throw new Error(r.stderr);
    return parseAllDocuments(r.stdout).map((d) => d.toJS() as Obj);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const find = (objs: Obj[], kind: string, name: string) => {
  const o = objs.find((x) => x.kind === kind && x.metadata.name === name);
  if (!o) throw new Error(`${kind}/${name} is not rendered`);
  return o;
};
type PodTemplate = { metadata: Record<string, unknown>; spec: Record<string, unknown> };
const template = (objs: Obj[], name: string) =>
  (find(objs, 'Deployment', name).spec as { template: PodTemplate }).template;

describe('install manifests', () => {
  it('builds the same objects from the root kustomization as from config/default, with the image kustomize sets', () => {
    const root = kubectl(['kustomize', repoRoot]);
    const def = kubectl(['kustomize', join(repoRoot, 'config', 'default')]);
    expect(root.status).toBe(0);
    expect(root.stdout).toBe(def.stdout);
    const objs = parseAllDocuments(def.stdout).map((d) => d.toJS() as Obj);
    for (const name of ['kruntimes-webhook', 'kruntimes-controller', 'kruntimes-runtimed']) {
      const containers = template(objs, name).spec.containers as { image: string }[];
      expect(containers.map((c) => c.image)).toEqual(['localhost/kruntimes-ts:0.1.0']);
    }
    const moved = render(
      `resources: [../default]\nimages: [{ name: localhost/kruntimes-ts, newName: registry.example/kruntimes-ts, newTag: '1.2.3' }]\n`,
    );
    expect((template(moved, 'kruntimes-webhook').spec.containers as { image: string }[])[0]?.image).toBe(
      'registry.example/kruntimes-ts:1.2.3',
    );
  });

  it('carries every namespace-bearing name into an overlay with another namespace', () => {
    const objs = render(
      'namespace: krt-elsewhere\nresources: [../default]\ntransformers: [../namespace-follow]\n',
    );
    expect(JSON.stringify(objs)).not.toContain('kruntimes-system');
    for (const name of ['kruntimes-webhook', 'kruntimes-runtimed'])
      expect(find(objs, 'Certificate', name).spec?.dnsNames).toEqual([
        `${name}.krt-elsewhere.svc`,
        `${name}.krt-elsewhere.svc.cluster.local`,
      ]);
    for (const kind of ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']) {
      const cfg = objs.find((o) => o.kind === kind) as Obj & {
        webhooks: { clientConfig: { service: { namespace: string } } }[];
      };
      expect(cfg.metadata.annotations?.['cert-manager.io/inject-ca-from']).toBe('krt-elsewhere/kruntimes-ca');
      expect(new Set(cfg.webhooks.map((w) => w.clientConfig.service.namespace))).toEqual(
        new Set(['krt-elsewhere']),
      );
    }
    // runtimed's rights stay in the namespace it serves, bound to its account in the new namespace.
    const binding = find(objs, 'RoleBinding', 'kruntimes-runtimed') as Obj & {
      subjects: { name: string; namespace: string }[];
    };
    expect(binding.metadata.namespace).toBe('default');
    expect(binding.subjects).toEqual([
      expect.objectContaining({ name: 'kruntimes-runtimed', namespace: 'krt-elsewhere' }),
    ]);
    const env = (
      template(objs, 'kruntimes-runtimed').spec.containers as { env: { name: string; value?: string }[] }[]
    )[0]?.env;
    expect(env?.find((e) => e.name === 'SERVED_NAMESPACES')?.value).toBe('default');
  });

  it('refuses to deploy on a cluster without cert-manager, naming it, and applies nothing', () => {
    // The local environment has no cert-manager.
    const r = spawnSync(join(repoRoot, 'tools', 'deploy.sh'), [], {
      encoding: 'utf8',
      env: { ...process.env, KUBECTL: kubectlPath, KUBECONFIG: adminKubeconfig },
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      'deploy: cert-manager is not installed in this cluster (no certificates.cert-manager.io issuers.cert-manager.io): install it first (docs/install.md). Nothing was applied.\n',
    );
    expect(kubectl(['get', 'deployments', '-n', 'kruntimes-system', '-o', 'name']).stdout).toBe('');
    expect(
      kubectl([
        'get',
        'validatingwebhookconfiguration',
        'kruntimes-validating',
        '-o',
        'jsonpath={.metadata.annotations}',
      ]).stdout,
    ).not.toContain('cert-manager');
  });

  describe('Pod Security admission', () => {
    let restricted: TestCluster;
    const objs = () => parseAllDocuments(kubectl(['kustomize', repoRoot]).stdout).map((d) => d.toJS() as Obj);
    beforeAll(async () => {
      restricted = await testCluster('pod-security', {
        'pod-security.kubernetes.io/enforce': 'restricted',
        'pod-security.kubernetes.io/enforce-version': 'latest',
      });
      // A Pod without a service account gets the namespace's "default", which kube-controller-manager
      // makes some time after the namespace (up to a minute when an earlier suite restarted the API
      // server and its reflectors back off): admission refuses the Pod until then. Made here instead.
      await restricted.admin.core
        .createNamespacedServiceAccount({
          namespace: restricted.namespace,
          body: { metadata: { name: 'default' } },
        })
        .catch((e: unknown) => {
          if (statusCode(e) !== 409) throw e;
        });
    });
    afterAll(() => restricted.cleanup());
    const tryPod = (ns: string, t: PodTemplate, name: string) =>
      kubectl(
        ['create', '--dry-run=server', '-n', ns, '-f', '-'],
        // Its service account is not in the test namespace, and Pod Security does not look at it.
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name },
          spec: { ...t.spec, serviceAccountName: undefined },
        }),
      );

    it.each(['kruntimes-webhook', 'kruntimes-controller', 'kruntimes-runtimed'])(
      'admits the %s Pod under "restricted", in a namespace that enforces it',
      (name) => {
        const r = tryPod(restricted.namespace, template(objs(), name), name);
        expect(r.stderr).toBe('');
        expect(r.status).toBe(0);
        const ns = find(objs(), 'Namespace', 'kruntimes-system');
        expect(ns.metadata).toMatchObject({ labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } });
      },
    );

    it('admits a step Pod of the Pod executor under "restricted", a script and an exec form alike', () => {
      for (const container of [{ image: 'tools:1' }, { image: 'tools:1', command: ['x'], args: ['a b'] }]) {
        const pod = stepPod(
          {
            apiVersion: 'kruntimes.io/v1alpha1',
            kind: 'Run',
            metadata: { name: 'step', namespace: restricted.namespace, uid: 'u' },
            spec: { runtime: 'kubernetes', container, ...(container.command ? {} : { script: 'echo hi' }) },
          },
          { helperImage: 'localhost/kruntimes-ts:0.1.0', graceSeconds: 5 },
        );
        const r = kubectl(['create', '--dry-run=server', '-f', '-'], JSON.stringify(pod));
        expect(r.stderr).toBe('');
        expect(r.status).toBe(0);
      }
    });

    it('refuses the bash agent Pod under "restricted" for its privileged container only; its component lets the namespace admit it', () => {
      const withBash = render('resources: [../default]\ncomponents: [../components/bash-agent]\n');
      const t = template(withBash, 'kruntimes-bash-agent');
      expect((t.spec.containers as { image: string }[])[0]?.image).toBe('localhost/kruntimes-ts:0.1.0');
      const r = tryPod(restricted.namespace, t, 'bash-agent');
      expect(r.status).not.toBe(0);
      expect(r.stderr).toMatch(
        /violates PodSecurity "restricted:latest": .*privileged \(container "runtimed" must not set securityContext.privileged=true\)/,
      );
      const ns = find(withBash, 'Namespace', 'kruntimes-system');
      expect(ns.metadata).toMatchObject({ labels: { 'pod-security.kubernetes.io/enforce': 'privileged' } });
    });
  });
});
