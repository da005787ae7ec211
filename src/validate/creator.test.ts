import { describe, expect, it } from '@jest/globals';
import type { Run } from '../api/types.js';
import { accessDenied, accessNeeds, ANNOTATION_CREATOR, creatorAnnotation, creatorOf } from './creator.js';

describe('the creator of a WorkflowRun', () => {
  it('reads back what admission wrote', () => {
    const metadata = {
      annotations: { [ANNOTATION_CREATOR]: creatorAnnotation({ username: 'alice', groups: ['g'] }) },
    };
    expect(creatorOf({ metadata })).toEqual({ username: 'alice', groups: ['g'] });
  });
  it('is none without the annotation, and nobody when it is unreadable', () => {
    expect(creatorOf({ metadata: {} })).toBeUndefined();
    expect(creatorOf({ metadata: { annotations: { [ANNOTATION_CREATOR]: '{' } } })).toEqual({
      username: '',
      groups: [],
    });
  });
});

describe('what a Run reaches in its creator’s name', () => {
  it('each Secret once and the service account', () => {
    const run = {
      metadata: { name: 'r' },
      spec: {
        runtime: 'kubernetes',
        env: [
          { name: 'A', valueFrom: { secretKeyRef: { name: 'db', key: 'p' } } },
          { name: 'B', valueFrom: { secretKeyRef: { name: 'db', key: 'q' } } },
          { name: 'C', value: 'plain' },
        ],
        container: {
          image: 'x',
          serviceAccountName: 'deployer',
          envFrom: [{ secretRef: { name: 'tokens' } }, { configMapRef: { name: 'cfg' } }],
          volumes: [{ name: 'certs', secret: { secretName: 'tls' } }],
        },
      },
    } as unknown as Run;
    expect(accessNeeds(run)).toEqual([
      { verb: 'get', resource: 'secrets', name: 'db', by: 'secretEnv A' },
      { verb: 'get', resource: 'secrets', name: 'tokens', by: 'envFrom' },
      { verb: 'get', resource: 'secrets', name: 'tls', by: 'volume certs' },
      { verb: 'impersonate', resource: 'serviceaccounts', name: 'deployer', by: 'serviceAccountName' },
    ]);
    expect(
      accessNeeds({ metadata: {}, spec: { runtime: 'bash', script: 'true' } } as unknown as Run),
    ).toEqual([]);
  });
  it('a refusal names the creator, what was not allowed and where', () => {
    expect(
      accessDenied(
        { username: 'alice', groups: [] },
        { verb: 'get', resource: 'secrets', name: 'db', by: 'secretEnv A' },
        'team',
        'r-main-use',
      ),
    ).toBe(
      'the run\'s creator, user "alice", may not get Secret "db" in namespace "team" (the step\'s secretEnv A): Run "r-main-use" is not created',
    );
  });
});
