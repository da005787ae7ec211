// The WorkflowRuns of `make chaos`: flat (10 independent jobs), nested (a call three Workflows
// deep), fan-out (32 jobs gathered by one) and hostile (a step that fills its disk and one that
// runs out of memory beside one that must not notice). Every step computes an output from the run's seed
// and, as its last act, reports a side effect (its key) to the test's journal, so a step that ran
// twice is seen twice. Outputs are checked against what the seed gives.
import type { WorkflowRun } from '../../src/api/types.js';

export type Shape = 'flat' | 'nested' | 'fanout' | 'hostile';
const FLAT = 10;
const FAN = 32;

export interface Expected {
  /** Job name of the root -> output v (or sum) it must report. */
  outputs: Record<string, Record<string, string>>;
  /** The run's phase at its end (Succeeded unless said). */
  phase?: 'Failed';
  /** Jobs that must fail, each with what its message must say. */
  failures?: Record<string, string>;
  /** Side-effect keys, one per step. */
  keys: string[];
  /** Runs (one per step) and child WorkflowRuns made for it. */
  runs: number;
  children: number;
}

/**
 * The mix, per 20 runs: 10 flat, 9 nested, 1 fan-out (10, 3 and 33 steps: 8 a run on average); one
 * run in 100 is hostile instead (3 steps).
 */
export function shapeOf(i: number): Shape {
  if (i % 100 === 50) return 'hostile';
  const m = i % 20;
  return m < 10 ? 'flat' : m < 19 ? 'nested' : 'fanout';
}

/**
 * A hostile run: one step fills its workspace (three files of 200 MiB in 512 MiB), one allocates
 * more memory than its sandbox allows (2 GiB of address space), one computes its output. The two
 * fail with the limit they hit; the third, and the agent running them all, go on unharmed. Each
 * reports its side effect first, so one that ran twice is seen.
 */
function hostile(
  name: string,
  seed: number,
  append: string,
): { jobs: Record<string, unknown>; expected: Expected } {
  const job = (j: string, script: string) => ({
    'runs-on': 'bash',
    steps: [{ name: 's', run: `${started}\n${report(append, `${name}/${j}`)}\n${script}` }],
    outputs: { v: '${{ steps.s.outputs.v }}' },
  });
  return {
    jobs: {
      disk: job('disk', 'for i in 1 2 3; do head -c 200M /dev/zero > "fill$i" || exit 1; done'),
      memory: job('memory', 'x=$(head -c 2100M /dev/zero | tr "\\0" x); echo "${#x}"'),
      ok: job('ok', `echo "v=$((${seed} * 7))" >> "$KRT_OUTPUT"`),
    },
    expected: {
      outputs: { ok: { v: String(seed * 7) } },
      phase: 'Failed',
      failures: { disk: 'LimitExceeded: workspace', memory: 'LimitExceeded: memory' },
      keys: ['disk', 'memory', 'ok'].map((j) => `${name}/${j}`),
      runs: 3,
      children: 0,
    },
  };
}

// The side effect: key, attempt, Run, when the step did it and when it started (its clock is the
// machine's), so a second execution can be told apart, placed before or after its agent's death,
// and two executions of one step at once seen. `started` opens each step's script.
const started = 'T0=$(date +%s%3N)';
const report = (append: string, key: string) =>
  `echo "${key} $KRT_ATTEMPT $KRT_RUN $(date +%s%3N) $T0" | ${append}`;

/** Workflows the nested shape calls: chaos-l1 -> chaos-l2 -> chaos-l3, each adding 1 to the seed. */
export function workflows(namespace: string, append: string): unknown[] {
  const level = (n: number) => ({
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'Workflow',
    metadata: { name: `chaos-l${n}`, namespace },
    spec: {
      inputs: { seed: { type: 'string', required: true }, key: { type: 'string', required: true } },
      outputs: { v: { value: n < 3 ? '${{ jobs.call.outputs.v }}' : '${{ jobs.a.outputs.v }}' } },
      jobs: {
        a: {
          'runs-on': 'bash',
          steps: [
            {
              name: 's',
              env: { SEED: '${{ inputs.seed }}', KEY: '${{ inputs.key }}' },
              run: `${started}\necho "v=$((SEED + 1))" >> "$KRT_OUTPUT"\n${report(append, `$KEY/l${n}`)}`,
            },
          ],
          outputs: { v: '${{ steps.s.outputs.v }}' },
        },
        ...(n < 3
          ? {
              call: {
                needs: ['a'],
                uses: `chaos-l${n + 1}`,
                with: { seed: '${{ jobs.a.outputs.v }}', key: '${{ inputs.key }}' },
              },
            }
          : {}),
      },
    },
  });
  return [level(3), level(2), level(1)];
}

export function workload(
  i: number,
  append: string,
): { name: string; shape: Shape; body: WorkflowRun; expected: Expected } {
  const shape = shapeOf(i);
  const name = `chaos-${shape}-${i}`;
  const seed = i % 1000;
  const step = (job: string, script: string, env: Record<string, string> = {}) => ({
    'runs-on': 'bash',
    steps: [
      {
        name: 's',
        ...(Object.keys(env).length ? { env } : {}),
        run: `${started}\n${script}\n${report(append, `${name}/${job}`)}`,
      },
    ],
    outputs: { v: '${{ steps.s.outputs.v }}' },
  });
  let jobs: Record<string, unknown>;
  let expected: Expected;
  if (shape === 'flat') {
    jobs = Object.fromEntries(
      Array.from({ length: FLAT }, (_, j) => [
        `j${j}`,
        step(`j${j}`, `echo "v=$((${seed} * 10 + ${j}))" >> "$KRT_OUTPUT"`),
      ]),
    );
    expected = {
      outputs: Object.fromEntries(
        Array.from({ length: FLAT }, (_, j) => [`j${j}`, { v: String(seed * 10 + j) }]),
      ),
      keys: Array.from({ length: FLAT }, (_, j) => `${name}/j${j}`),
      runs: FLAT,
      children: 0,
    };
  } else if (shape === 'nested') {
    jobs = { call: { uses: 'chaos-l1', with: { seed: String(seed), key: name } } };
    expected = {
      outputs: { call: { v: String(seed + 3) } },
      keys: [1, 2, 3].map((n) => `${name}/l${n}`),
      runs: 3,
      children: 3,
    };
  } else if (shape === 'hostile') {
    ({ jobs, expected } = hostile(name, seed, append));
  } else {
    const fan = Array.from({ length: FAN }, (_, j) => `f${j}`);
    jobs = Object.fromEntries(
      fan.map((f, j) => [f, step(f, `echo "v=$((${seed} + ${j}))" >> "$KRT_OUTPUT"`)]),
    );
    jobs.gather = {
      ...step(
        'gather',
        `echo "v=$((${fan.map((_, j) => `X${j}`).join(' + ')}))" >> "$KRT_OUTPUT"`,
        Object.fromEntries(fan.map((f, j) => [`X${j}`, `\${{ jobs.${f}.outputs.v }}`])),
      ),
      needs: fan,
    };
    expected = {
      outputs: { gather: { v: String(FAN * seed + (FAN * (FAN - 1)) / 2) } },
      keys: [...fan, 'gather'].map((j) => `${name}/${j}`),
      runs: FAN + 1,
      children: 0,
    };
  }
  return { name, shape, body: workflowRun(name, jobs), expected };
}

const workflowRun = (name: string, jobs: Record<string, unknown>): WorkflowRun =>
  ({
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'WorkflowRun',
    metadata: { name },
    spec: { jobs },
  }) as WorkflowRun;

/**
 * A run of the cancellation load: four jobs that each sleep a few seconds, so a cancel finds steps
 * running. It must end, Cancelled (or Succeeded when it finished first); its steps report their
 * side effects like every other step, so one that ran twice at once is seen.
 */
export function cancelled(i: number, append: string): { name: string; body: WorkflowRun } {
  const name = `chaos-cancel-${i}`;
  const jobs = Object.fromEntries(
    Array.from({ length: 4 }, (_, j) => [
      `j${j}`,
      {
        'runs-on': 'bash',
        steps: [
          {
            name: 's',
            run: `${started}\nsleep ${2 + (j % 3)}\necho "v=${j}" >> "$KRT_OUTPUT"\n${report(append, `${name}/j${j}`)}`,
          },
        ],
      },
    ]),
  );
  return { name, body: workflowRun(name, jobs) };
}

/** Whether an object (a Run or WorkflowRun, by its name) belongs to the cancellation load. */
export const ofCancelLoad = (name: string) => name.startsWith('chaos-cancel-');
