// 10,000 random and mutated AdmissionReview bodies sent straight to the webhook process over TLS:
// no crash, every answer a valid AdmissionReview (or a 4xx for a body that is not JSON), the
// process stays up. Seeded, so a failure can be replayed.
import { Agent } from 'node:https';
import { postReview, processAlive, webhookEndpoint } from '../harness/webhook.js';

const TOTAL = 10_000;
const CONCURRENCY = 16;

/** mulberry32: a small seeded PRNG. */
function prng(seed: number) {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = prng(Number(process.env.KRT_FUZZ_SEED ?? 20261202));
const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)] as T;

const templates = [
  {
    kind: { group: 'kruntimes.io', version: 'v1alpha1', kind: 'WorkflowRun' },
    object: {
      metadata: { name: 'r', annotations: { 'kruntimes.io/workflow-output.e': '${{ jobs.a.outputs.e }}' } },
      spec: {
        jobs: {
          a: {
            'runs-on': 'bash',
            steps: [{ name: 's', run: 'echo ${{ steps.x.outputs.y }}', env: { A: 'b' } }],
            outputs: { e: 'x' },
          },
          b: { needs: ['a'], uses: 'w', with: { i: '${{ jobs.a.outputs.e }}' } },
        },
      },
    },
  },
  {
    kind: { group: 'kruntimes.io', version: 'v1alpha1', kind: 'Workflow' },
    object: {
      metadata: { name: 'w' },
      spec: {
        inputs: { i: { type: 'number', default: '1' } },
        outputs: { o: { value: '${{ jobs.a.outputs.o }}' } },
        jobs: {
          a: { 'runs-on': 'bash', steps: [{ name: 's', run: 'x ${{ inputs.i }}' }], outputs: { o: 'v' } },
        },
      },
    },
  },
  {
    kind: { group: 'kruntimes.io', version: 'v1alpha1', kind: 'Run' },
    object: {
      metadata: { name: 'run' },
      spec: { runtime: 'bash', script: 'true', env: [{ name: 'A', value: 'b' }] },
    },
  },
];

const junkValues = (): unknown[] => [
  null,
  true,
  0,
  -1,
  1e308,
  '',
  'x'.repeat(Math.floor(rand() * 20000)),
  '${{',
  '${{ }}',
  '${{ ((((( }}',
  "${{ 'unterminated }}",
  '${{ jobs[inputs.x].outputs.y }}',
  '\u0000\uffff\ud800',
  [],
  {},
  [[[[[]]]]],
  { __proto__: { polluted: true } },
  { constructor: 'x' },
];

function randomValue(depth = 0): unknown {
  const r = rand();
  if (depth > 4 || r < 0.5) return pick(junkValues());
  if (r < 0.75) return Array.from({ length: Math.floor(rand() * 4) }, () => randomValue(depth + 1));
  return Object.fromEntries(
    Array.from({ length: Math.floor(rand() * 4) }, () => [
      pick(['spec', 'jobs', 'a', 'steps', 'uses', 'with', 'needs', 'name', '__proto__', 'x']),
      randomValue(depth + 1),
    ]),
  );
}

function mutate(v: unknown, depth = 0): unknown {
  if (typeof v !== 'object' || v === null || depth > 8) return rand() < 0.2 ? randomValue() : v;
  if (Array.isArray(v)) return v.map((x) => (rand() < 0.1 ? randomValue() : mutate(x, depth + 1)));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const r = rand();
    if (r < 0.08) continue;
    out[r < 0.12 ? pick(['uses', 'with', 'steps', 'runs-on', 'needs', 'outputs', 'x']) : k] =
      r < 0.2 ? randomValue() : mutate(x, depth + 1);
  }
  return out;
}

/** Deep nesting, written as text: building it as objects would test our own JSON.stringify. */
const DEEP_MARKER = '"__deep__"';
function deepText(levels: number): string {
  const array = rand() < 0.5;
  return (
    (array ? '['.repeat(levels) : '{"n":'.repeat(levels)) + '"leaf"' + (array ? ']' : '}').repeat(levels)
  );
}

function randomBody(i: number): { body: string; json: boolean } {
  const r = rand();
  if (r < 0.05)
    return {
      body: pick(['', '{', 'not json', '{"a":', '\u0000', '[1,2', '{"apiVersion": "admission.k8s.io/v1",}']),
      json: false,
    };
  if (r < 0.1) return { body: JSON.stringify(randomValue()), json: true };
  const t = pick(templates);
  const review: Record<string, unknown> = {
    apiVersion: rand() < 0.95 ? 'admission.k8s.io/v1' : pick(['admission.k8s.io/v1beta1', 7, null]),
    kind: rand() < 0.95 ? 'AdmissionReview' : pick(['Pod', '', null]),
    request: {
      uid: rand() < 0.95 ? `uid-${i}` : pick([undefined, 42, '']),
      kind: t.kind,
      operation: rand() < 0.9 ? pick(['CREATE', 'UPDATE', 'DELETE']) : pick(['PATCH', 3, null]),
      namespace: 'fuzz',
      name: 'x',
      userInfo: { username: 'fuzzer', groups: rand() < 0.5 ? ['system:masters'] : [] },
      object: rand() < 0.05 ? '__deep__' : mutate(t.object),
      oldObject: rand() < 0.3 ? mutate(t.object) : undefined,
    },
  };
  const text = rand() < 0.9 ? JSON.stringify(mutate(review, 6)) : JSON.stringify(review);
  return { body: text.replace(DEEP_MARKER, () => deepText(Math.floor(rand() * 100_000))), json: true };
}

function isReview(text: string): boolean {
  const r = JSON.parse(text) as { apiVersion?: unknown; kind?: unknown; response?: Record<string, unknown> };
  const res = r.response;
  if (r.apiVersion !== 'admission.k8s.io/v1' || r.kind !== 'AdmissionReview' || !res) return false;
  if (typeof res.uid !== 'string' || typeof res.allowed !== 'boolean') return false;
  if (!res.allowed) {
    const s = res.status as { code?: unknown; message?: unknown } | undefined;
    return typeof s?.code === 'number' && typeof s.message === 'string' && s.message.length > 0;
  }
  return true;
}

it(`answers ${TOTAL} random and mutated reviews without a crash or a 5xx`, async () => {
  const { port, ca, pid } = webhookEndpoint();
  const agent = new Agent({ keepAlive: true, ca, maxSockets: CONCURRENCY });
  const bad: string[] = [];
  let next = 0;
  let answered = 0;
  let internalErrors = 0;
  const worker = async () => {
    while (next < TOTAL) {
      const i = next++;
      const { body, json } = randomBody(i);
      const res = await postReview(agent, port, body);
      answered++;
      // The catch-all answer is valid, but means a rule threw on input it should have refused.
      if (res.text.includes('the webhook could not evaluate this object')) {
        internalErrors++;
        if (bad.length < 5) bad.push(`#${i} internal error: ${res.text.slice(0, 300)}`);
      }
      // Not JSON: a 4xx, or (an empty body parses as nothing) a well-formed denial.
      const review = res.status === 200 && isReview(res.text);
      const ok = json ? review : review || (res.status >= 400 && res.status < 500);
      if (!ok && bad.length < 5)
        bad.push(`#${i} HTTP ${res.status}: ${res.text.slice(0, 200)} <- ${body.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  // An oversize body is refused with a 4xx too.
  const big = await postReview(
    agent,
    port,
    JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: { uid: 'big', object: 'x'.repeat(5 * 1024 * 1024) },
    }),
  );
  agent.destroy();
  expect(bad).toEqual([]);
  expect(answered).toBe(TOTAL);
  expect(internalErrors).toBe(0);
  expect(big.status).toBe(413);
  expect(JSON.parse(big.text).response.status.message).toContain(
    'malformed AdmissionReview: the request body is larger than 4mb',
  );
  expect(processAlive(pid)).toBe(true);
}, 300_000);
