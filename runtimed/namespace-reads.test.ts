// What runtimed reads of a Run's namespace, over a stand-in API server: the step-network label read
// once per 10 s, a refusal failing closed (no network) and a Secret refused failing the step, but a
// read the API server could not answer ridden out, and thrown as NotReadNow when it lasts, so the
// step is handed back instead of started without its network, failed for a Secret that is there, or
// started with a Secret its log does not mask.
import { describe, expect, it } from '@jest/globals';
import type { Run } from '../src/api/types.js';
import { HttpError } from '../src/kube/raw.js';
import type { KubeClient, ObjectCoordinates } from '../src/kube/rest.js';
import { LABEL_STEP_NETWORK } from '../src/runtime/sandbox-command.js';
import { NamespaceReads, NotReadNow } from './namespace-reads.js';

/** A client whose GETs answer in turn from `answers` (an Error is thrown), the last one for ever. */
function kube(answers: (object | Error)[]) {
  const gets: string[] = [];
  const k = {
    get: async (o: ObjectCoordinates) => {
      gets.push(`${o.plural}/${o.name}`);
      const a = answers.length > 1 ? answers.shift() : answers[0];
      if (a instanceof Error) throw a;
      return a;
    },
  } as unknown as KubeClient;
  return { k, gets };
}

const labelled = (value: string) => ({ metadata: { labels: { [LABEL_STEP_NETWORK]: value } } });
const busy = () => new HttpError(503, '{"message":"etcd leader changed"}');
const run = {
  metadata: { name: 'r', namespace: 'team' },
  spec: {
    runtime: 'bash',
    env: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'creds', key: 'token' } } }],
  },
} as unknown as Run;

describe('the step-network label', () => {
  it('is read once per 10 s for a namespace', async () => {
    const { k, gets } = kube([labelled('none')]);
    const reads = new NamespaceReads(k, 50);
    expect(await reads.network('team')).toBe('none');
    expect(await reads.network('team')).toBe('none');
    expect(gets).toEqual(['namespaces/team']);
  });

  it('fails closed when the API server refuses the read', async () => {
    const { k } = kube([new HttpError(403, '{"message":"forbidden"}')]);
    const value = await new NamespaceReads(k, 50).network('team');
    expect(value).toBeInstanceOf(Error);
    expect((value as Error).message).toBe('forbidden');
  });

  it('rides out an API server that could not answer, and says so when it lasts, caching nothing', async () => {
    const once = kube([busy(), labelled('host')]);
    expect(await new NamespaceReads(once.k, 5000).network('team')).toBe('host');
    const down = kube([busy()]);
    const reads = new NamespaceReads(down.k, 50);
    await expect(reads.network('team')).rejects.toThrow(NotReadNow);
    await expect(reads.network('team')).rejects.toThrow(
      'cannot read namespace "team" now: etcd leader changed',
    );
  });
});

describe("a step's Secrets", () => {
  it('are read into its variables, and a missing one fails the step', async () => {
    const token = Buffer.from('s3cret').toString('base64');
    expect(await new NamespaceReads(kube([{ data: { token } }]).k, 50).secretEnv(run)).toEqual({
      values: { TOKEN: 's3cret' },
    });
    expect(await new NamespaceReads(kube([new HttpError(404, '{}')]).k, 50).secretEnv(run)).toEqual({
      error: 'env TOKEN: secret "creds" not found',
    });
  });

  it('fail the step when the read is refused, but are not taken as missing when the API server could not answer', async () => {
    const refused = await new NamespaceReads(kube([new HttpError(403, '{"message":"no"}')]).k, 50).secretEnv(
      run,
    );
    expect(refused).toEqual({ error: 'secret "creds": no' });
    await expect(new NamespaceReads(kube([busy()]).k, 50).secretEnv(run)).rejects.toThrow(NotReadNow);
  });
});

describe('the Secrets a step Pod reads whole (to mask their values)', () => {
  it('give every value and line, skip one that is missing, and mask nothing of one refused', async () => {
    const data = { a: Buffer.from('first-value').toString('base64') };
    expect(await new NamespaceReads(kube([{ data }]).k, 50).secretValues('team', ['s'])).toEqual([
      'first-value',
    ]);
    expect(
      await new NamespaceReads(kube([new HttpError(404, '{}')]).k, 50).secretValues('team', ['s']),
    ).toEqual([]);
    expect(
      await new NamespaceReads(kube([new HttpError(403, '{"message":"no"}')]).k, 50).secretValues('team', [
        's',
      ]),
    ).toEqual([]);
  });

  it('are not skipped when the API server could not answer: the step would log them unmasked', async () => {
    await expect(new NamespaceReads(kube([busy()]).k, 50).secretValues('team', ['s'])).rejects.toThrow(
      'cannot read secret "s" now: etcd leader changed',
    );
  });
});
