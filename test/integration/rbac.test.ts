// config/rbac: what each process may do, asked of the real API server's RBAC authorizer. The local
// environment runs the webhook, controller and runtimed as these service accounts, so the other
// suites prove the rules are enough; this one proves they are not more than needed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { agentKubeconfig } from '../harness/agent.js';
import { kubectl } from '../harness/kubectl.js';
import { repoRoot } from '../harness/paths.js';

/** `kubectl auth can-i` as a user; `runs.kruntimes.io/status` names a subresource. */
function canAs(user: string, verb: string, resource: string, ns = 'default'): string {
  const [plural = '', subresource] = resource.split('/');
  return kubectl([
    'auth',
    'can-i',
    verb,
    plural,
    ...(subresource ? [`--subresource=${subresource}`] : []),
    '-n',
    ns,
    `--as=${user}`,
  ]).stdout.trim();
}

/** The same, as one of config/rbac's service accounts. */
const can = (who: string, verb: string, resource: string, ns = 'default') =>
  canAs(`system:serviceaccount:kruntimes-system:kruntimes-${who}`, verb, resource, ns);

describe('service accounts of config/rbac', () => {
  it.each([
    ['runtimed', 'watch', 'runs.kruntimes.io', 'yes'],
    ['runtimed', 'patch', 'runs.kruntimes.io/status', 'yes'],
    ['runtimed', 'create', 'tokenreviews.authentication.k8s.io', 'yes'],
    ['runtimed', 'create', 'subjectaccessreviews.authorization.k8s.io', 'yes'],
    ['runtimed', 'create', 'runs.kruntimes.io', 'no'],
    ['runtimed', 'patch', 'runs.kruntimes.io', 'no'],
    ['runtimed', 'get', 'workflowruns.kruntimes.io', 'no'],
    // The local runtimed serves every namespace (config/rbac/all-namespaces); below, a per-namespace one.
    ['runtimed', 'get', 'secrets', 'yes'],
    ['runtimed', 'list', 'secrets', 'no'],
    ['runtimed', 'get', 'namespaces', 'yes'],
    ['runtimed', 'list', 'namespaces', 'no'],
    ['controller', 'create', 'runs.kruntimes.io', 'yes'],
    ['controller', 'create', 'workflowruns.kruntimes.io', 'yes'],
    ['controller', 'update', 'workflowruns.kruntimes.io/status', 'yes'],
    ['controller', 'create', 'controllerrevisions.apps', 'yes'],
    ['controller', 'get', 'controllerrevisions.apps', 'yes'],
    ['controller', 'list', 'controllerrevisions.apps', 'no'],
    ['controller', 'create', 'events', 'yes'],
    ['controller', 'patch', 'runs.kruntimes.io/status', 'no'],
    ['controller', 'update', 'runs.kruntimes.io/status', 'yes'],
    ['controller', 'delete', 'workflowruns.kruntimes.io', 'yes'],
    // The tree of a run deleted before it ended (controller/teardown.ts).
    ['controller', 'delete', 'runs.kruntimes.io', 'yes'],
    ['controller', 'delete', 'controllerrevisions.apps', 'yes'],
    ['controller', 'update', 'workflows.kruntimes.io', 'no'],
    ['controller', 'update', 'workflows.kruntimes.io/status', 'yes'],
    // A Run's Secrets and service account are checked for its WorkflowRun's creator.
    ['controller', 'create', 'subjectaccessreviews.authorization.k8s.io', 'yes'],
    // Works act as their Promise's account, impersonated; only accounts of its own namespace.
    ['controller', 'impersonate', 'serviceaccounts', 'no'],
    ['controller', 'create', 'secrets', 'no'],
    ['webhook', 'list', 'workflows.kruntimes.io', 'yes'],
    ['webhook', 'list', 'runs.kruntimes.io', 'no'],
  ])('%s %s %s: %s', (who, verb, resource, answer) => {
    expect(can(who, verb, resource)).toBe(answer);
  });

  it('the view role does not grant step logs (kruntimes-log-reader does, bound per namespace)', () => {
    kubectl([
      'create',
      'rolebinding',
      'viewer',
      '--clusterrole=view',
      '--user=just-a-viewer',
      '-n',
      'default',
    ]);
    kubectl([
      'create',
      'rolebinding',
      'logs',
      '--clusterrole=kruntimes-log-reader',
      '--user=log-reader',
      '-n',
      'default',
    ]);
    try {
      // view is aggregated by the controller manager; it does grant ordinary objects...
      expect(canAs('just-a-viewer', 'get', 'configmaps')).toBe('yes');
      expect(canAs('just-a-viewer', 'get', 'runs.kruntimes.io/log')).toBe('no');
      expect(canAs('log-reader', 'get', 'runs.kruntimes.io/log')).toBe('yes');
    } finally {
      kubectl(['delete', 'rolebinding', 'viewer', 'logs', '-n', 'default', '--ignore-not-found']);
    }
  });

  it('the controller may hold its Lease in kruntimes-system only', () => {
    expect(can('controller', 'update', 'leases.coordination.k8s.io', 'kruntimes-system')).toBe('yes');
    expect(can('controller', 'update', 'leases.coordination.k8s.io', 'default')).toBe('no');
  });

  it("the controller impersonates the accounts of its own namespace only (the Promises' Works)", () => {
    expect(can('controller', 'impersonate', 'serviceaccounts', 'kruntimes-system')).toBe('yes');
    expect(can('controller', 'impersonate', 'serviceaccounts', 'default')).toBe('no');
    expect(canAs('system:serviceaccount:kruntimes-system:kruntimes-controller', 'impersonate', 'users')).toBe(
      'no',
    );
  });

  it("an agent writes only its own Lease: not another agent's, nor the controller's (kruntimes-runtimed-leases)", () => {
    const dir = mkdtempSync(join(tmpdir(), 'krt-lease-'));
    const as = (identity: string, args: string[], input?: string) =>
      kubectl([...args, '-n', 'kruntimes-system'], input, agentKubeconfig(identity, dir));
    const lease = (name: string) =>
      JSON.stringify({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name },
        spec: { holderIdentity: 'x' },
      });
    try {
      expect(as('lease-test-a', ['create', '-f', '-'], lease('runtimed-lease-test-a')).status).toBe(0);
      const other = as('lease-test-b', ['replace', '-f', '-'], lease('runtimed-lease-test-a'));
      expect(other.stderr).toContain('an agent writes only its own Lease');
      const leader = as('lease-test-b', ['create', '-f', '-'], lease('kruntimes-controller'));
      expect(leader.stderr).toContain('an agent writes only its own Lease');
      expect(as('lease-test-b', ['delete', 'lease', 'runtimed-lease-test-a']).stderr).toContain(
        'an agent writes only its own Lease',
      );
      expect(as('lease-test-a', ['delete', 'lease', 'runtimed-lease-test-a']).status).toBe(0);
    } finally {
      kubectl(['delete', 'lease', 'runtimed-lease-test-a', '-n', 'kruntimes-system', '--ignore-not-found']);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runtimed holds its presence Lease in kruntimes-system; the webhook and controller read them', () => {
    for (const verb of ['create', 'update', 'delete'])
      expect(can('runtimed', verb, 'leases.coordination.k8s.io', 'kruntimes-system')).toBe('yes');
    expect(can('runtimed', 'create', 'leases.coordination.k8s.io', 'default')).toBe('no');
    expect(can('webhook', 'watch', 'leases.coordination.k8s.io', 'kruntimes-system')).toBe('yes');
    expect(can('webhook', 'update', 'leases.coordination.k8s.io', 'kruntimes-system')).toBe('no');
    expect(can('controller', 'watch', 'leases.coordination.k8s.io', 'kruntimes-system')).toBe('yes');
  });

  it("runtimed's rights as config/rbac grants them hold in the namespace it serves and no other", () => {
    // config/rbac's runtimed ClusterRole and RoleBinding, given to a service account of this test.
    const r = kubectl(['kustomize', join(repoRoot, 'config/rbac')]);
    expect(r.status).toBe(0);
    type Doc = {
      kind: string;
      metadata: { name: string; namespace?: string };
      roleRef: { name: string };
      subjects: unknown[];
    };
    const docs = parseAllDocuments(r.stdout).map((d) => d.toJSON() as Doc);
    const role = docs.find(
      (d) => d.kind === 'ClusterRole' && d.metadata.name === 'kruntimes-runtimed',
    ) as Doc;
    const binding = docs.find(
      (d) => d.kind === 'RoleBinding' && d.metadata.name === 'kruntimes-runtimed',
    ) as Doc;
    expect(binding.metadata.namespace).toBe('default');
    expect(binding.roleRef.name).toBe('kruntimes-runtimed');
    const probe = 'system:serviceaccount:default:rbac-probe-runtimed';
    role.metadata = { name: 'rbac-probe-runtimed' };
    binding.metadata = { name: 'rbac-probe-runtimed', namespace: 'default' };
    binding.roleRef.name = 'rbac-probe-runtimed';
    binding.subjects = [{ kind: 'ServiceAccount', name: 'rbac-probe-runtimed', namespace: 'default' }];
    const manifest = [role, binding].map((d) => JSON.stringify(d)).join('\n');
    expect(kubectl(['apply', '-f', '-'], manifest).status).toBe(0);
    try {
      const in_ = (verb: string, resource: string, ns: string) => canAs(probe, verb, resource, ns);
      expect(in_('get', 'secrets', 'default')).toBe('yes');
      expect(in_('watch', 'runs.kruntimes.io', 'default')).toBe('yes');
      expect(in_('patch', 'runs.kruntimes.io/status', 'default')).toBe('yes');
      expect(in_('get', 'secrets', 'kube-system')).toBe('no');
      expect(in_('get', 'secrets', 'kruntimes-system')).toBe('no');
      expect(in_('watch', 'runs.kruntimes.io', 'kube-system')).toBe('no');
      expect(in_('patch', 'runs.kruntimes.io/status', 'kube-system')).toBe('no');
      // A namespace's own labels through the binding in it; no other namespace.
      expect(kubectl(['get', 'namespace', 'default', `--as=${probe}`]).status).toBe(0);
      expect(kubectl(['get', 'namespace', 'kube-system', `--as=${probe}`]).status).not.toBe(0);
    } finally {
      kubectl(['delete', 'clusterrole', 'rbac-probe-runtimed', '--ignore-not-found']);
      kubectl(['delete', 'rolebinding', 'rbac-probe-runtimed', '-n', 'default', '--ignore-not-found']);
    }
  });

  it('config/default renders the three Deployments, each with its own service account', () => {
    const r = kubectl(['kustomize', join(repoRoot, 'config/default')]);
    expect(r.status).toBe(0);
    const docs = parseAllDocuments(r.stdout).map(
      (d) =>
        d.toJSON() as {
          kind: string;
          metadata: { name: string };
          spec: { template: { spec: { serviceAccountName: string } } };
        },
    );
    const deployments = docs.filter((d) => d.kind === 'Deployment');
    expect(deployments.map((d) => [d.metadata.name, d.spec.template.spec.serviceAccountName]).sort()).toEqual(
      [
        ['kruntimes-controller', 'kruntimes-controller'],
        ['kruntimes-runtimed', 'kruntimes-runtimed'],
        ['kruntimes-webhook', 'kruntimes-webhook'],
      ],
    );
  });
});
