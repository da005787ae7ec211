// `make bench` (webhook part): figures printed, nothing asserted.
// 1. Handler latency, direct HTTPS with keep-alive at a fixed rate, for a 64-job WorkflowRun and for
//    a Workflow whose call graph reaches 100 Workflows; the same requests through the processor in
//    process, for the handler alone.
// 2. Create latency of 200 WorkflowRuns through the API server with the webhook called versus not
//    called (a namespace labelled kruntimes.io/admission=disabled), in the same run, as a ratio.
import { Agent, request } from 'node:https';
import { performance } from 'node:perf_hooks';
import { crd } from '../../src/kube/rest.js';
import { validateRequest } from '../../webhook/validate/index.js';
import type { AdmissionRequest } from '../../webhook/review.js';
import { testCluster } from '../harness/cluster.js';
import { postReview, webhookEndpoint } from '../harness/webhook.js';

const RATE = Number(process.env.KRT_BENCH_RATE ?? 500);
const SECONDS = Number(process.env.KRT_BENCH_SECONDS ?? 20);

const q = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))] as number;
const fmt = (ms: number) => `${ms.toFixed(2)} ms`;
function summary(name: string, xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  return `${name.padEnd(58)} n=${String(s.length).padStart(6)}  p50 ${fmt(q(s, 0.5)).padStart(9)}  p99 ${fmt(q(s, 0.99)).padStart(9)}`;
}

const inline = (run: string, extra: object = {}) => ({
  'runs-on': 'bash',
  steps: [{ name: 'main', run }],
  ...extra,
});

function bigRun(): unknown {
  const jobs: Record<string, unknown> = {};
  for (let i = 0; i < 64; i++)
    jobs[`job${i}`] = inline(i === 0 ? 'true' : `echo "\${{ jobs.job${i - 1}.outputs.o }}"`, {
      ...(i > 0 ? { needs: [`job${i - 1}`] } : {}),
      outputs: { o: '${{ steps.main.outputs.o }}' },
    });
  return {
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'WorkflowRun',
    metadata: { name: 'big' },
    spec: { jobs },
  };
}

function review(namespace: string, kind: string, object: unknown): AdmissionRequest {
  return {
    uid: 'bench',
    kind: { group: 'kruntimes.io', version: 'v1alpha1', kind },
    operation: 'CREATE',
    namespace,
    name: (object as { metadata: { name: string } }).metadata.name,
    userInfo: { username: 'bench', groups: ['system:masters'] },
    object,
  };
}

/** Open loop: one request every 1/RATE s for SECONDS s, whatever the answers do. */
/** The time to a 200 answer; anything else fails the run. */
async function post(agent: Agent, port: number, body: string): Promise<number> {
  const t = performance.now();
  const res = await postReview(agent, port, body);
  if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
  return performance.now() - t;
}

async function fixedRate(agent: Agent, port: number, body: string): Promise<number[]> {
  const total = RATE * SECONDS;
  const start = performance.now();
  const pending: Promise<number>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    pending.push(post(agent, port, body));
  }
  return Promise.all(pending);
}

/** Server-side handler time from the webhook's own histogram: mean and the bucket holding p99. */
async function serverHistogram(
  port: number,
  ca: Buffer,
  kind: string,
): Promise<{ count: number; sum: number; buckets: [number, number][] }> {
  const text: string = await new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/metrics', ca }, (res) => {
      let b = '';
      res.on('data', (c) => (b += c));
      res.on('end', () => resolve(b));
    })
      .on('error', reject)
      .end();
  });
  const sel = `kind="${kind}",operation="CREATE",result="allowed"`;
  const num = (re: RegExp) => Number(re.exec(text)?.[1] ?? 0);
  const buckets: [number, number][] = [];
  for (const m of text.matchAll(
    new RegExp(`krt_webhook_request_duration_seconds_bucket\\{le="([^"]+)",${sel}\\} (\\d+)`, 'g'),
  ))
    buckets.push([Number(m[1]), Number(m[2])]);
  return {
    count: num(new RegExp(`krt_webhook_request_duration_seconds_count\\{${sel}\\} (\\d+)`)),
    sum: num(new RegExp(`krt_webhook_request_duration_seconds_sum\\{${sel}\\} ([\\d.e+-]+)`)),
    buckets,
  };
}

function serverSummary(
  name: string,
  before: Awaited<ReturnType<typeof serverHistogram>>,
  after: Awaited<ReturnType<typeof serverHistogram>>,
): string {
  const count = after.count - before.count;
  const mean = ((after.sum - before.sum) / count) * 1000;
  const p99 = after.buckets.find(
    (_bucket, i) => (after.buckets[i]?.[1] ?? 0) - (before.buckets[i]?.[1] ?? 0) >= 0.99 * count,
  )?.[0];
  return `${name.padEnd(58)} n=${String(count).padStart(6)}  mean ${fmt(mean).padStart(8)}  p99 <= ${p99 === undefined ? '?' : fmt(p99 * 1000)} (histogram bucket)`;
}

function inProcess(req: AdmissionRequest, deps: Parameters<typeof validateRequest>[1], n = 2000): number[] {
  const xs: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    validateRequest(req, deps);
    xs.push(performance.now() - t);
  }
  return xs;
}

async function main() {
  const { port, ca } = webhookEndpoint();
  const agent = new Agent({ keepAlive: true, ca, maxSockets: 64 });
  const c = await testCluster('bench');
  const off = await testCluster('benchoff', { 'kruntimes.io/admission': 'disabled' });
  try {
    // 100 Workflows, 8 deep (the maximum): a root and 7 layers (15 + 6 x 14), each Workflow calling
    // every Workflow of the next layer.
    const sizes = [15, 14, 14, 14, 14, 14, 14];
    const names: string[][] = [
      ['g-root'],
      ...sizes.map((size, l) => Array.from({ length: size }, (_, i) => `g${l}-${i}`)),
    ];
    const all = new Map<string, unknown>();
    for (let l = names.length - 1; l >= 0; l--)
      for (const name of names[l] as string[]) {
        const next = names[l + 1] ?? [];
        const jobs = next.length
          ? Object.fromEntries(next.map((n, i) => [`c${i}`, { uses: n }]))
          : { leaf: inline('true') };
        const wf = {
          apiVersion: 'kruntimes.io/v1alpha1',
          kind: 'Workflow',
          metadata: { name, namespace: c.namespace },
          spec: { jobs },
        };
        all.set(name, wf);
        if (name !== 'g-root')
          await c.admin.custom.createNamespacedCustomObject({ ...crd('workflows', c.namespace), body: wf });
      }
    await new Promise((r) => setTimeout(r, 2000)); // the webhook's informer catches up
    const graphReq = review(c.namespace, 'Workflow', all.get('g-root'));
    const bigReq = review(c.namespace, 'WorkflowRun', bigRun());
    const deps = {
      workflows: {
        get: (_ns: string, n: string) => all.get(n) as never,
        inNamespace: () => new Map([...all].filter(([n]) => n !== 'g-root')) as never,
      },
    };

    console.log(
      `node ${process.version}; ${RATE} requests/s for ${SECONDS} s per case, HTTPS keep-alive to 127.0.0.1:${port}`,
    );
    for (const [name, req] of [
      ['64-job WorkflowRun', bigReq],
      ['Workflow whose graph reaches 100 Workflows', graphReq],
    ] as const) {
      const body = JSON.stringify({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: req,
      });
      await fixedRate(agent, port, body); // warm-up pass
      const before = await serverHistogram(port, ca, req.kind.kind);
      console.log(summary(`client, HTTPS keep-alive: ${name}`, await fixedRate(agent, port, body)));
      console.log(
        serverSummary(
          `server handler (its histogram): ${name}`,
          before,
          await serverHistogram(port, ca, req.kind.kind),
        ),
      );
      console.log(summary(`handler in process: ${name}`, inProcess(req, deps)));
    }

    const createAll = async (ns: string, prefix: string) => {
      const xs: number[] = [];
      for (let i = 0; i < 200; i++) {
        const t = performance.now();
        await c.admin.custom.createNamespacedCustomObject({
          ...crd('workflowruns', ns),
          body: {
            apiVersion: 'kruntimes.io/v1alpha1',
            kind: 'WorkflowRun',
            metadata: { name: `${prefix}-${i}` },
            spec: {
              jobs: {
                a: inline('true', { outputs: { o: '${{ steps.main.outputs.o }}' } }),
                b: inline('echo "$O"', { needs: ['a'] }),
              },
            },
          },
        });
        xs.push(performance.now() - t);
      }
      return xs;
    };
    await createAll(off.namespace, 'warm');
    const without = await createAll(off.namespace, 'off');
    const withHook = await createAll(c.namespace, 'on');
    console.log(summary('create WorkflowRun, webhook not called', without));
    console.log(summary('create WorkflowRun, validating webhook called', withHook));
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const s = (xs: number[]) => [...xs].sort((a, b) => a - b);
    console.log(
      `ratio with/without webhook: mean ${(mean(withHook) / mean(without)).toFixed(2)}, p50 ${(q(s(withHook), 0.5) / q(s(without), 0.5)).toFixed(2)}, p99 ${(q(s(withHook), 0.99) / q(s(without), 0.99)).toFixed(2)}`,
    );
  } finally {
    agent.destroy();
    await c.cleanup();
    await off.cleanup();
  }
}

await main();
