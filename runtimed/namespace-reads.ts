// What runtimed reads of a Run's namespace when it starts a step: the step-network label of the
// namespace (cached for 10 s) and the Secrets of the step's secretEnv (read each time, never
// written anywhere). Both with runtimed's own rights in the namespaces it serves. A read the API
// server or the network failed (no answer, 429, 5xx) is ridden out for a few seconds and then
// thrown as NotReadNow, so the step is handed back rather than started without its network or
// failed for a Secret that is there: under `make chaos`, a step whose agent lost the API server
// just after its claim ran with no network, and its post to loopback was refused.
import type { Run } from '../src/api/types.js';
import { core, statusCode, statusMessage, type KubeClient } from '../src/kube/rest.js';
import { isTransient, retryTransient } from '../src/kube/retry.js';
import { LABEL_STEP_NETWORK } from '../src/runtime/sandbox-command.js';
import { maskedValues, resolveSecretEnv, secretRefs } from '../src/runtime/secrets.js';
import { log } from '../src/telemetry/log.js';

interface Namespace {
  metadata?: { labels?: Record<string, string> };
}

interface Secret {
  data?: Record<string, string>;
}

/** A read of the namespace that failed for now: the step is not started (its agent hands the Run back). */
export class NotReadNow extends Error {}

const READ_DEADLINE_MS = 5000;

export class NamespaceReads {
  private readonly labels = new Map<string, { at: number; value: string | undefined | Error }>();

  constructor(
    private readonly kube: KubeClient,
    /** How long a read the API server could not answer is tried again. */
    private readonly readDeadlineMs = READ_DEADLINE_MS,
  ) {}

  private secret(namespace: string, name: string): Promise<Secret> {
    return this.kube.get<Secret>({ ...core('secrets', namespace), name });
  }

  /**
   * The namespace's step-network label, read at most every 10 s per namespace (a cache, not state:
   * a restart reads it again); the error when it is refused (the policy then fails closed). Throws
   * NotReadNow when the API server could not answer.
   */
  async network(namespace: string): Promise<string | undefined | Error> {
    const hit = this.labels.get(namespace);
    if (hit && Date.now() - hit.at < 10_000) return hit.value;
    let value: string | undefined | Error;
    try {
      const ns = await retryTransient(
        () => this.kube.get<Namespace>({ ...core('namespaces'), name: namespace }),
        { deadlineMs: this.readDeadlineMs },
      );
      value = ns.metadata?.labels?.[LABEL_STEP_NETWORK];
    } catch (e) {
      if (isTransient(e))
        throw new NotReadNow(`cannot read namespace "${namespace}" now: ${statusMessage(e)}`, { cause: e });
      log.warn({ namespace, err: statusMessage(e) }, 'cannot read the namespace: its steps get no network');
      value = new Error(statusMessage(e));
    }
    this.labels.set(namespace, { at: Date.now(), value });
    return value;
  }

  /**
   * Every value of these Secrets of a namespace (and each of its lines, as maskedValues gives them),
   * to mask them (a step Pod reads them whole: envFrom, a volume). One this agent may not read
   * masks nothing; the kubelet says whether the step may start. One the API server cannot answer for
   * now throws NotReadNow: the Pod would get it while its log went unmasked.
   */
  async secretValues(namespace: string, names: string[]): Promise<string[]> {
    const out: string[] = [];
    for (const name of names)
      try {
        const s = await retryTransient(() => this.secret(namespace, name), {
          deadlineMs: this.readDeadlineMs,
        });
        const values = Object.entries(s.data ?? {}).map(([k, v]) => [
          k,
          Buffer.from(v, 'base64').toString('utf8'),
        ]);
        out.push(...maskedValues(Object.fromEntries(values)));
      } catch (e) {
        if (statusCode(e) === 404) continue;
        if (isTransient(e)) throw new NotReadNow(`cannot read secret "${name}" now: ${statusMessage(e)}`);
        log.warn({ namespace, secret: name, err: statusMessage(e) }, 'cannot read a Secret to mask it');
      }
    return out;
  }

  /**
   * The step's variables from Secrets of its namespace, read now and never written to the API. A
   * Secret this agent may not read fails the step like a missing one, with the API server's words.
   */
  async secretEnv(r: Run): Promise<{ values: Record<string, string> } | { error: string }> {
    const refs = secretRefs(r);
    if (refs.length === 0) return { values: {} };
    const namespace = r.metadata.namespace ?? '';
    try {
      return await resolveSecretEnv(refs, async (name) => {
        try {
          const s = await retryTransient(() => this.secret(namespace, name), {
            deadlineMs: this.readDeadlineMs,
          });
          return s.data ?? {};
        } catch (e) {
          if (statusCode(e) === 404) return undefined;
          if (isTransient(e)) throw new NotReadNow(`cannot read secret "${name}" now: ${statusMessage(e)}`);
          throw new Error(`secret "${name}": ${statusMessage(e)}`, { cause: e });
        }
      });
    } catch (e) {
      if (e instanceof NotReadNow) throw e;
      return { error: e instanceof Error ? e.message : String(e) };
    }
  }
}
