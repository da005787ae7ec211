import type { Run } from '../api/types.js';
import { maskedValues, resolveSecretEnv, secretRefs } from './secrets.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const run = (env: NonNullable<Run['spec']['env']>): Run =>
  ({
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'Run',
    metadata: { name: 'r' },
    spec: { runtime: 'bash', script: 'x', env },
  }) as Run;

describe('secretRefs', () => {
  it('lists only the variables taken from Secrets', () => {
    expect(
      secretRefs(
        run([
          { name: 'A', value: '1' },
          { name: 'B', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } },
          { name: 'C', valueFrom: { secretKeyRef: { name: 'db', key: 'user', optional: true } } },
        ]),
      ),
    ).toEqual([
      { env: 'B', name: 'db', key: 'password', optional: false },
      { env: 'C', name: 'db', key: 'user', optional: true },
    ]);
    expect(secretRefs(run([]))).toEqual([]);
  });
});

describe('resolveSecretEnv', () => {
  const secrets: Record<string, Record<string, string>> = {
    db: { password: b64('s3cret'), user: b64('app') },
  };
  const reads: string[] = [];
  const read = async (name: string) => {
    reads.push(name);
    return secrets[name];
  };

  it('decodes the values and reads each Secret once', async () => {
    reads.length = 0;
    const refs = secretRefs(
      run([
        { name: 'P', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } },
        { name: 'U', valueFrom: { secretKeyRef: { name: 'db', key: 'user' } } },
      ]),
    );
    expect(await resolveSecretEnv(refs, read)).toEqual({ values: { P: 's3cret', U: 'app' } });
    expect(reads).toEqual(['db']);
  });

  it('fails on a missing Secret or key, naming the variable', async () => {
    const missing = secretRefs(run([{ name: 'P', valueFrom: { secretKeyRef: { name: 'nope', key: 'k' } } }]));
    expect(await resolveSecretEnv(missing, read)).toEqual({ error: 'env P: secret "nope" not found' });
    const noKey = secretRefs(run([{ name: 'P', valueFrom: { secretKeyRef: { name: 'db', key: 'k' } } }]));
    expect(await resolveSecretEnv(noKey, read)).toEqual({ error: 'env P: key "k" is not in secret "db"' });
  });

  it('leaves out an optional variable whose Secret or key is missing', async () => {
    const refs = secretRefs(
      run([
        { name: 'P', valueFrom: { secretKeyRef: { name: 'nope', key: 'k', optional: true } } },
        { name: 'Q', valueFrom: { secretKeyRef: { name: 'db', key: 'k', optional: true } } },
      ]),
    );
    expect(await resolveSecretEnv(refs, read)).toEqual({ values: {} });
  });
});

describe('maskedValues', () => {
  it('masks each value, longest first, and the lines of multi-line values', () => {
    expect(maskedValues({ A: 'short', B: 'line one\nline two\n}', C: '  ', D: '' })).toEqual([
      'line one\nline two\n}',
      'line one',
      'line two',
      'short',
    ]);
  });
});
