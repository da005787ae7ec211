// The Workflow `Ready` condition through the real API server and controller: it follows the call
// graph as Workflows come and go, `kubectl wait --for=condition=Ready` works, and `kubectl get`
// shows it.
import { testCluster, type TestCluster } from '../harness/cluster.js';
import { kubectl } from '../harness/kubectl.js';

let c: TestCluster;
beforeAll(async () => {
  c = await testCluster('wf-ready');
});
afterAll(async () => {
  await c?.cleanup();
});

const workflow = (name: string, uses?: string) =>
  JSON.stringify({
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'Workflow',
    metadata: { name },
    spec: {
      jobs: uses ? { call: { uses } } : { main: { 'runs-on': 'bash', steps: [{ name: 's', run: 'true' }] } },
    },
  });
const ready = (name: string) =>
  JSON.parse(
    kubectl(['get', 'workflow', name, '-n', c.namespace, '-o', 'json']).stdout,
  ).status?.conditions?.find((x: { type: string }) => x.type === 'Ready');
const wait = (name: string, condition: string) =>
  kubectl(['wait', `--for=${condition}`, '--timeout=20s', `workflow/${name}`, '-n', c.namespace]);

it('is False while a called Workflow is missing and True once it exists', () => {
  expect(kubectl(['apply', '-n', c.namespace, '-f', '-'], workflow('caller', 'callee')).status).toBe(0);
  expect(wait('caller', 'condition=Ready=False').status).toBe(0);
  expect(ready('caller')).toMatchObject({
    status: 'False',
    reason: 'WorkflowNotFound',
    message: 'workflow "callee" not found: caller -> callee',
    observedGeneration: 1,
  });
  expect(kubectl(['apply', '-n', c.namespace, '-f', '-'], workflow('callee')).status).toBe(0);
  expect(wait('caller', 'condition=Ready').status).toBe(0);
  expect(wait('callee', 'condition=Ready').status).toBe(0);
  const get = kubectl(['get', 'workflows', '-n', c.namespace]).stdout;
  expect(get).toMatch(/^caller\s+True\s/m);
  expect(get).toMatch(/^callee\s+True\s/m);
});

it('turns False again when the callee is deleted, with a Warning Event', () => {
  expect(kubectl(['delete', 'workflow', 'callee', '-n', c.namespace]).status).toBe(0);
  expect(wait('caller', 'condition=Ready=False').status).toBe(0);
  const events = kubectl([
    'get',
    'events',
    '-n',
    c.namespace,
    '--field-selector',
    'involvedObject.name=caller',
  ]).stdout;
  expect(events).toContain('WorkflowNotFound');
});
