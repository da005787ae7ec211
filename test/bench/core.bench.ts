// `make bench`: figures for the pure core, printed, nothing asserted. Later issues add the webhook,
// controller and runtimed benchmarks beside this one.
import { performance } from 'node:perf_hooks';
import { analyzeTemplate, renderPartial, renderTemplate } from '../../src/expr/index.js';
import { validateCallGraphSync, type CallingWorkflow } from '../../src/graph/callgraph.js';
import { jobGraphErrors } from '../../src/graph/jobs.js';

function bench(name: string, fn: () => unknown, seconds = 1): void {
  for (let i = 0; i < 1000; i++) fn(); // warm-up
  const samples: number[] = [];
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const t = performance.now();
    fn();
    samples.push(performance.now() - t);
  }
  samples.sort((a, b) => a - b);
  const q = (p: number) => (samples[Math.floor(p * (samples.length - 1))] as number) * 1000;
  console.log(
    `${name.padEnd(48)} ${String(samples.length).padStart(8)} ops  p50 ${q(0.5).toFixed(1).padStart(7)} µs  p99 ${q(0.99).toFixed(1).padStart(7)} µs`,
  );
}

const template =
  "deploy --env=${{ inputs.environment }} --image=${{ jobs.build.outputs.image }} ${{ format('{0}-{1}', inputs.a, 'b') }}";
const contexts = {
  inputs: { environment: 'staging', a: 'x' },
  jobs: { build: { outputs: { image: 'app:1' } } },
};

// A graph of 100 Workflows: 10 layers of 10, each calling every Workflow of the next layer.
const graph = new Map<string, CallingWorkflow>();
for (let l = 0; l < 10; l++)
  for (let i = 0; i < 10; i++) {
    const jobs: Record<string, { uses?: string }> = {};
    if (l < 7) for (let j = 0; j < 10; j++) jobs[`call${j}`] = { uses: `w${l + 1}-${j}` };
    graph.set(`w${l}-${i}`, { spec: { jobs } });
  }

// 100 jobs in a chain of needs plus a fan-in.
const jobs: Record<string, { needs?: string[] }> = {};
for (let i = 0; i < 100; i++) jobs[`job${i}`] = i === 0 ? {} : { needs: [`job${i - 1}`, 'job0'] };

console.log(`node ${process.version}, ${new Date().toISOString()}`);
bench('renderTemplate (3 placeholders)', () => renderTemplate(template, contexts));
bench('renderPartial inputs only (3 placeholders)', () => renderPartial(template, contexts, ['inputs']));
bench('analyzeTemplate (3 placeholders)', () => analyzeTemplate(template));
bench('validateCallGraphSync, 71 Workflows, 10^6 paths', () =>
  validateCallGraphSync('w0-0', (n) => graph.get(n)),
);
bench('jobGraphErrors, 100 jobs', () => jobGraphErrors(jobs));
