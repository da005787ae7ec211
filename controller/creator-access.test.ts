import { describe, expect, it } from '@jest/globals';
import type { Run, WorkflowRun } from '../src/api/types.js';
import type { KubeClient } from '../src/kube/rest.js';
import { ANNOTATION_CREATOR, creatorAnnotation } from '../src/validate/creator.js';
import { AccessDenied, CreatorAccess } from './creator-access.js';

/** An API server that allows the Secrets in `allowed`, and records each review. */
function reviews(allowed: string[]) {
  const asked: unknown[] = [];
  const kube = {
    create: async (_c: unknown, body: { spec: { resourceAttributes: { name: string } } }) => {
      asked.push(body.spec);
      return { status: { allowed: allowed.includes(body.spec.resourceAttributes.name) } };
    },
  } as unknown as KubeClient;
  return { kube, asked };
}

const owner = (annotations: Record<string, string> = {}, labels: Record<string, string> = {}) =>
  ({
    metadata: { name: 'w', namespace: 'team', annotations, labels },
    spec: { jobs: {} },
  }) as unknown as WorkflowRun;
const byAlice = owner({ [ANNOTATION_CREATOR]: creatorAnnotation({ username: 'alice', groups: ['devs'] }) });
const run = (secret: string) =>
  ({
    metadata: { name: `w-main-${secret}`, namespace: 'team' },
    spec: {
      runtime: 'bash',
      script: 'true',
      env: [{ name: 'P', valueFrom: { secretKeyRef: { name: secret, key: 'k' } } }],
    },
  }) as unknown as Run;

describe('the creator check before a Run is created', () => {
  it("asks the API server for the creator's rights on each Secret, once within a few seconds", async () => {
    const { kube, asked } = reviews(['db']);
    let now = 0;
    const access = new CreatorAccess(kube, () => now);
    await access.check(byAlice, run('db'));
    await access.check(byAlice, run('db'));
    expect(asked).toEqual([
      {
        user: 'alice',
        groups: ['devs'],
        resourceAttributes: { namespace: 'team', verb: 'get', resource: 'secrets', name: 'db' },
      },
    ]);
    now = 60_000;
    await access.check(byAlice, run('db'));
    expect(asked).toHaveLength(2);
  });

  it('refuses a Secret the creator may not get, naming them and it', async () => {
    const access = new CreatorAccess(reviews([]).kube);
    await expect(access.check(byAlice, run('admin-token'))).rejects.toThrow(
      new AccessDenied(
        'the run\'s creator, user "alice", may not get Secret "admin-token" in namespace "team" (the step\'s secretEnv P): Run "w-main-admin-token" is not created',
      ),
    );
  });

  it("trusts the controller's own pipeline runs, and refuses a run with no recorded creator", async () => {
    const { kube, asked } = reviews([]);
    const access = new CreatorAccess(kube);
    await access.check(owner({}, { 'kruntimes.io/resource-uid': 'u' }), run('db'));
    expect(asked).toEqual([]);
    await expect(access.check(owner(), run('db'))).rejects.toThrow(/has no recorded creator/);
  });
});
