// Values never become shell code, end to end: hostile values reach a `run:` script through an input
// (krt workflow trigger), a job output, a call's `with` and a Promise's `resource.spec`, stand there
// in each shell context (unquoted word, double quotes, single quotes, $'...', here-document, $( )),
// and real bash under runtimed prints exactly their bytes; a canary file shows nothing else ran.
import { createHash, randomBytes } from 'node:crypto';
import type { WorkflowRun } from '../../src/api/types.js';
import { crd } from '../../src/kube/rest.js';
import { LABEL_PROMISE } from '../../src/labels.js';

import { kubectl } from '../harness/kubectl.js';
import { krt } from '../harness/krt.js';
import { workflowReady, workflowRunInPhase } from '../harness/objects.js';
import { applyPromise, newApi, promiseFor, promiseSuite, resourceClient } from '../harness/promises.js';

const suite = promiseSuite('e2e-shell-values');

const HOSTILE = [
  'x; touch canary; echo INJECTED',
  `it's "q" \\back\\ $(touch canary) \`touch canary\` $HOME * ~ #c && touch canary | cat`,
  "two\nEOF\ntouch canary\n\t'\"$'\\x41'",
  ('\'"\\`$();|&<>*?\n\t EOF ' + 'touch canary\n').repeat(4096 / 36).padEnd(4096, '$'),
];

/** What each context's file holds: the value, and a newline after it from the here-document. */
const CONTEXTS = { w: '', d: '', s: '', a: '', c: '', h: '\n' } as const;

/** A script that puts the value `expr` through each shell context and reports each file's sha256. */
function script(expr: string): string {
  const v = '${{ ' + expr + ' }}';
  return [
    `printf '%s' ${v} > w`,
    `printf '%s' "${v}" > d`,
    `printf '%s' '${v}' > s`,
    `printf '%s' $'${v}' > a`,
    `x="$(printf '%s.' ${v})"; printf '%s' "\${x%.}" > c`,
    `cat > h <<EOF\n${v}\nEOF`,
    'test ! -e canary',
    `for f in ${Object.keys(CONTEXTS).join(' ')}; do echo "$f=$(sha256sum < "$f" | cut -c1-64)" >> "$KRT_OUTPUT"; done`,
  ].join('\n');
}

const contextOutputs = (step: string) =>
  Object.fromEntries(Object.keys(CONTEXTS).map((k) => [k, `\${{ steps.${step}.outputs.${k} }}`]));
const expected = (value: string) =>
  Object.fromEntries(
    Object.entries(CONTEXTS).map(([k, tail]) => [
      k,
      createHash('sha256')
        .update(value + tail, 'utf8')
        .digest('hex'),
    ]),
  );

beforeAll(async () => {
  const { c } = suite;
  const wf = {
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'Workflow',
    metadata: { name: 'shellctx', namespace: c.namespace },
    spec: {
      inputs: { x: { type: 'string', required: true } },
      outputs: Object.fromEntries(
        Object.keys(CONTEXTS).map((k) => [k, { value: `\${{ jobs.j.outputs.${k} }}` }]),
      ),
      jobs: {
        j: {
          'runs-on': 'bash',
          steps: [{ name: 'show', run: script('inputs.x') }],
          outputs: contextOutputs('show'),
        },
      },
    },
  };
  const r = kubectl(['apply', '-f', '-'], JSON.stringify(wf));
  expect(r.stderr).toBe('');
  await workflowReady(c, 'shellctx');
});

it.each(HOSTILE.map((v, i) => [i, v]))('an input: value %i is data in every context', async (_, value) => {
  const t = await krt(suite.c, 'workflow', 'trigger', 'shellctx', '--input', `x=${value}`, '--wait');
  expect(t.status).toBe(0);
  const run = await workflowRunInPhase(suite.c, t.stdout.split('\n')[0] as string, ['Succeeded']);
  expect(run.status?.outputs).toEqual(expected(value));
});

it("a job output and a call's with: each value is data in every context", async () => {
  const { c } = suite;
  const names = HOSTILE.map(() => `out-${randomBytes(3).toString('hex')}`);
  await Promise.all(
    HOSTILE.map((value, i) =>
      c.admin.custom.createNamespacedCustomObject({
        ...crd('workflowruns', c.namespace),
        body: {
          apiVersion: 'kruntimes.io/v1alpha1',
          kind: 'WorkflowRun',
          metadata: { name: names[i] },
          spec: {
            jobs: {
              make: {
                'runs-on': 'bash',
                steps: [
                  {
                    name: 'm',
                    env: { V: value },
                    run: `printf 'v<<__KRT_END__\\n%s\\n__KRT_END__\\n' "$V" >> "$KRT_OUTPUT"`,
                  },
                ],
                outputs: { v: '${{ steps.m.outputs.v }}' },
              },
              use: {
                needs: ['make'],
                'runs-on': 'bash',
                steps: [{ name: 'show', run: script('jobs.make.outputs.v') }],
                outputs: contextOutputs('show'),
              },
              call: { needs: ['make'], uses: 'shellctx', with: { x: '${{ jobs.make.outputs.v }}' } },
            },
          },
        },
      }),
    ),
  );
  for (const [i, value] of HOSTILE.entries()) {
    const done = await workflowRunInPhase(c, names[i] as string, ['Succeeded', 'Failed'], 90_000);
    expect(done.status?.jobs?.make?.outputs?.['v'] === value).toBe(true);
    // The message only matters (and is shown) when the run did not succeed.
    const failed = done.status?.phase === 'Succeeded' ? undefined : done.status?.message;
    expect({
      failed,
      use: done.status?.jobs?.use?.outputs,
      call: done.status?.jobs?.call?.outputs,
    }).toEqual({
      failed: undefined,
      use: expected(value),
      call: expected(value),
    });
  }
}, 180_000);

it('resource.spec in a Promise pipeline: each value is data in every context', async () => {
  const { c } = suite;
  const api = newApi();
  const configure = {
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'Pipeline',
    metadata: { name: 'show' },
    spec: {
      jobs: {
        main: {
          'runs-on': 'bash',
          steps: [{ name: 'show', run: script('resource.spec.size') }],
          outputs: contextOutputs('show'),
        },
      },
    },
  };
  await applyPromise(promiseFor(api, [configure as never]));
  suite.promises.push(api.promise);
  const r = resourceClient(c, api);
  const names = HOSTILE.map((_, i) => `r${i}`);
  await Promise.all(HOSTILE.map((value, i) => r.create(names[i] as string, { size: value })));
  for (const [i, value] of HOSTILE.entries()) {
    const res = await r.workflow(names[i] as string, 'Succeeded', 1, 90_000);
    const runs = (await c.admin.custom.listNamespacedCustomObject({
      ...crd('workflowruns', c.namespace),
      labelSelector: `${LABEL_PROMISE}=${api.promise}`,
    })) as { items: WorkflowRun[] };
    const mine = runs.items.filter((w) =>
      w.metadata.ownerReferences?.some((o) => o.uid === res.metadata.uid),
    );
    expect(mine.map((w) => w.status?.jobs?.main?.outputs)).toEqual([expected(value)]);
  }
}, 180_000);
