import type { Workflow, WorkflowRun } from '../api/types.js';
import { formatFieldError } from '../fielderror.js';
import { mayCreateRun, validateRun, validateWorkflow, validateWorkflowRun } from './index.js';

const inline = (run = 'make package') => ({ 'runs-on': 'bash', steps: [{ name: 'package', run }] });
const wfr = (
  jobs: unknown,
  extra: Record<string, unknown> = {},
  annotations?: Record<string, string>,
): WorkflowRun =>
  ({
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'WorkflowRun',
    metadata: { name: 'release', ...(annotations ? { annotations } : {}) },
    spec: { jobs, ...extra },
  }) as WorkflowRun;
const wf = (name: string, spec: Record<string, unknown>): Workflow =>
  ({
    apiVersion: 'kruntimes.io/v1alpha1',
    kind: 'Workflow',
    metadata: { name },
    spec,
  }) as unknown as Workflow;

const errorsOf = (r: { errors: { field: string; message: string }[] }) => r.errors.map(formatFieldError);

describe('validateWorkflowRun', () => {
  it('accepts the seed example', () => {
    const r = validateWorkflowRun(
      wfr({
        build: {
          'runs-on': 'bash',
          steps: [{ name: 'package', run: 'make package' }],
          outputs: { environment: '${{ steps.package.outputs.env }}' },
        },
        deploy: {
          needs: ['build'],
          uses: 'deploy-workflow',
          with: { environment: '${{ jobs.build.outputs.environment }}' },
        },
        notify: {
          needs: ['deploy'],
          'runs-on': 'bash',
          steps: [{ name: 'send', run: "notify '${{ jobs.deploy.outputs.endpoint }}'" }],
        },
      }),
    );
    expect(r).toEqual({ errors: [], warnings: [] });
  });

  it.each([
    [
      'spec.uses',
      wfr({ a: inline() }, { uses: 'x' }),
      'spec: a WorkflowRun holds inline jobs only: spec.uses and spec.with are not allowed; start a Workflow template with `krt workflow trigger`',
    ],
    ['empty jobs', wfr({}), 'spec.jobs: must have at least 1 entry'],
    ['missing jobs', { ...wfr({}), spec: {} } as WorkflowRun, 'spec.jobs: required value'],
    [
      'call job with steps',
      wfr({ d: { uses: 'w', steps: [{ name: 's', run: 'x' }] } }),
      'spec.jobs.d: a call job cannot have steps',
    ],
    [
      'call job with runs-on',
      wfr({ d: { uses: 'w', 'runs-on': 'bash' } }),
      'spec.jobs.d: a call job cannot have runs-on',
    ],
    [
      'call job with outputs',
      wfr({ d: { uses: 'w', outputs: { a: 'b' } } }),
      'spec.jobs.d: a call job cannot have outputs: they come from the called Workflow',
    ],
    [
      'inline job without steps',
      wfr({ b: { 'runs-on': 'bash' } }),
      'spec.jobs.b: an inline job needs runs-on and steps',
    ],
    [
      'inline job with with',
      wfr({ b: { ...inline(), with: { a: 'b' } } }),
      'spec.jobs.b.with: with is only allowed on a call job (uses)',
    ],
    [
      'a nested object in with',
      wfr({ d: { uses: 'w', with: { msg: { k: 'v' } } } }),
      'spec.jobs.d.with.msg: must be a string, number or boolean, not an object (an input value is one scalar)',
    ],
    [
      'a list in with',
      wfr({ d: { uses: 'w', with: { msg: ['a'] } } }),
      'spec.jobs.d.with.msg: must be a string, number or boolean, not a list (an input value is one scalar)',
    ],
    [
      'null in with',
      wfr({ d: { uses: 'w', with: { msg: null } } }),
      'spec.jobs.d.with.msg: must be a string, number or boolean, not null (an input value is one scalar)',
    ],
    ['bad job name', wfr({ 'b c': inline() }), 'spec.jobs.b c: job name "b c" must match'],
    [
      'long job name',
      wfr({ ['j'.repeat(64)]: inline() }),
      `spec.jobs.${'j'.repeat(64)}: job name "${'j'.repeat(64)}" is longer than 63 characters`,
    ],
    [
      'duplicate steps',
      wfr({
        b: {
          'runs-on': 'bash',
          steps: [
            { name: 's', run: 'x' },
            { name: 's', run: 'y' },
          ],
        },
      }),
      'spec.jobs.b.steps[1].name: duplicate step name "s"',
    ],
    ['unknown need', wfr({ b: { ...inline(), needs: ['x'] } }), 'spec.jobs.b.needs: job "x" does not exist'],
    [
      'job cycle',
      wfr({ a: { ...inline(), needs: ['b'] }, b: { ...inline(), needs: ['a'] } }),
      'spec.jobs: job dependency cycle: a -> b -> a',
    ],
    [
      'parse error',
      wfr({ b: inline('echo ${{ jobs. }}') }),
      'spec.jobs.b.steps[0].run: unexpected "}}", expected a property name at position 15',
    ],
    [
      'inputs in a run',
      wfr({ b: inline('echo ${{ inputs.x }}') }),
      'spec.jobs.b.steps[0].run: "inputs.x" cannot be used here: a WorkflowRun has no inputs',
    ],
    [
      'a job that is not upstream',
      wfr({ a: { ...inline(), outputs: { o: 'x' } }, b: inline('echo ${{ jobs.a.outputs.o }}') }),
      'spec.jobs.b.steps[0].run: "jobs.a.outputs.o": job "a" is not upstream of job "b" (add it to needs)',
    ],
    [
      'a job that does not exist',
      wfr({ b: inline('echo ${{ jobs.zz.outputs.o }}') }),
      '"jobs.zz.outputs.o": job "zz" does not exist',
    ],
    [
      'an undeclared job output',
      wfr({ a: inline(), b: { ...inline('echo ${{ jobs.a.outputs.o }}'), needs: ['a'] } }),
      '"jobs.a.outputs.o": job "a" declares no output "o"',
    ],
    [
      'a later step',
      wfr({
        b: {
          'runs-on': 'bash',
          steps: [
            { name: 'one', run: 'echo ${{ steps.two.outputs.x }}' },
            { name: 'two', run: 'x' },
          ],
        },
      }),
      '"steps.two.outputs.x": "two" is not an earlier step of job "b"',
    ],
    [
      'steps in with',
      wfr({ d: { uses: 'w', with: { a: '${{ steps.s.outputs.x }}' } } }),
      'spec.jobs.d.with.a: "steps.s.outputs.x" cannot be used here: a call job has no steps',
    ],
    [
      'a bad output annotation key',
      wfr({ a: inline() }, {}, { 'kruntimes.io/workflow-output.-bad': 'x' }),
      'metadata.annotations[kruntimes.io/workflow-output.-bad]',
    ],
    [
      'an output annotation reading a missing job',
      wfr({ a: inline() }, {}, { 'kruntimes.io/workflow-output.e': '${{ jobs.nope.outputs.e }}' }),
      '"jobs.nope.outputs.e": job "nope" does not exist',
    ],
    [
      'annotations over budget',
      wfr({ a: inline() }, {}, { big: 'x'.repeat(256 * 1024) }),
      'metadata.annotations: annotations take 262147 bytes, more than the Kubernetes limit of 262144',
    ],
  ])('rejects %s', (_what, obj, message) => {
    expect(errorsOf(validateWorkflowRun(obj)).join('\n')).toContain(message);
  });

  it('allows a step to read earlier steps and the job outputs to read any step', () => {
    const r = validateWorkflowRun(
      wfr({
        b: {
          'runs-on': 'bash',
          steps: [
            { name: 'one', run: 'x' },
            { name: 'two', run: 'echo ${{ steps.one.outputs.v }}', env: { V: '${{ steps.one.outputs.v }}' } },
          ],
          outputs: { last: '${{ steps.two.outputs.w }}' },
        },
      }),
    );
    expect(r.errors).toEqual([]);
  });

  it('keeps spec.jobs immutable (semantically) and cancelRequested one-way', () => {
    const old = wfr({ a: inline(), b: { ...inline(), needs: ['a'] } }, { cancelRequested: true });
    const reordered = wfr(
      { b: { needs: ['a'], steps: inline().steps, 'runs-on': 'bash' }, a: inline() },
      { cancelRequested: true },
    );
    expect(validateWorkflowRun(reordered, { old }).errors).toEqual([]);
    const changed = wfr(
      { a: inline('rm -rf /'), b: { ...inline(), needs: ['a'] } },
      { cancelRequested: true },
    );
    expect(errorsOf(validateWorkflowRun(changed, { old }))).toEqual([
      'spec.jobs: field is immutable after creation',
    ]);
    const key = (n: string) => `kruntimes.io/workflow-output.${n}`;
    const contract = { [key('a')]: 'one', [key('b')]: 'fixed' };
    const frozen = wfr(old.spec.jobs, {}, contract);
    const edited = wfr(
      old.spec.jobs,
      {},
      { [key('a')]: 'changed', [key('c')]: 'new', 'example.com/free': 'x' },
    );
    expect(errorsOf(validateWorkflowRun(edited, { old: frozen }))).toEqual([
      'metadata.annotations[kruntimes.io/workflow-output.a]: the frozen output contract is immutable after creation (cannot be changed)',
      'metadata.annotations[kruntimes.io/workflow-output.b]: the frozen output contract is immutable after creation (cannot be removed)',
      'metadata.annotations[kruntimes.io/workflow-output.c]: the frozen output contract is immutable after creation (cannot be added)',
    ]);
    const added = wfr(old.spec.jobs, {}, { ...contract, 'example.com/free': 'x' });
    expect(validateWorkflowRun(added, { old: frozen }).errors).toEqual([]);
    const back = wfr(old.spec.jobs, { cancelRequested: false });
    expect(errorsOf(validateWorkflowRun(back, { old }))).toEqual([
      'spec.cancelRequested: cannot go back to false',
    ]);
  });

  describe('call jobs against the Workflows as they stand', () => {
    const templates = new Map<string, Workflow>([
      ['a', wf('a', { jobs: { call: { uses: 'b' } } })],
      ['b', wf('b', { jobs: { call: { uses: 'a' } } })],
      [
        'deploy',
        wf('deploy', {
          inputs: {
            env: { type: 'string', required: true },
            opt: { type: 'string' },
            count: { type: 'number' },
            dry: { type: 'boolean' },
          },
          jobs: { x: inline() },
        }),
      ],
    ]);
    const lookup = (n: string) => templates.get(n);

    it('denies a cyclic callee with the shared text', () => {
      expect(errorsOf(validateWorkflowRun(wfr({ go: { uses: 'a' } }), { lookup }))).toEqual([
        'spec.jobs.go: workflow call cycle: a -> b -> a',
      ]);
    });

    it('only warns about a callee that does not exist yet', () => {
      const r = validateWorkflowRun(wfr({ go: { uses: 'later' } }), { lookup });
      expect(r.errors).toEqual([]);
      expect(r.warnings).toEqual([
        'spec.jobs.go: workflow "later" not found: later (calls are late-bound: the job fails if it still does not exist when it runs)',
      ]);
    });

    it('checks with against the declared inputs of an existing callee', () => {
      expect(
        errorsOf(validateWorkflowRun(wfr({ go: { uses: 'deploy', with: { nope: 'x' } } }), { lookup })),
      ).toEqual([
        'spec.jobs.go.with.nope: input "nope" is not declared by workflow "deploy"',
        'spec.jobs.go.with: required input "env" of workflow "deploy" is not given',
      ]);
      expect(
        validateWorkflowRun(wfr({ go: { uses: 'deploy', with: { env: 'x' } } }), { lookup }).errors,
      ).toEqual([]);
    });

    it('takes numbers and booleans in with, checked against the input types', () => {
      const ok = { env: 3, opt: true, count: 3, dry: false };
      expect(validateWorkflowRun(wfr({ go: { uses: 'deploy', with: ok } }), { lookup }).errors).toEqual([]);
      const more = { env: 'x', count: '2.5', dry: 'true' };
      expect(validateWorkflowRun(wfr({ go: { uses: 'deploy', with: more } }), { lookup }).errors).toEqual([]);
      const expr = { env: 'x', count: '${{ jobs.a.outputs.n }}' };
      expect(
        errorsOf(validateWorkflowRun(wfr({ a: inline(), go: { uses: 'deploy', with: expr } }), { lookup })),
      ).toEqual([
        'spec.jobs.go.with.count: "jobs.a.outputs.n": job "a" is not upstream of job "go" (add it to needs)',
      ]);
      const wrong = { env: 'x', count: true, dry: 1 };
      expect(errorsOf(validateWorkflowRun(wfr({ go: { uses: 'deploy', with: wrong } }), { lookup }))).toEqual(
        [
          'spec.jobs.go.with.count: true is not a number (input "count" of workflow "deploy")',
          'spec.jobs.go.with.dry: 1 is not a boolean (input "dry" of workflow "deploy")',
        ],
      );
      expect(
        errorsOf(
          validateWorkflowRun(wfr({ go: { uses: 'deploy', with: { env: 'x', count: 'many' } } }), { lookup }),
        ),
      ).toEqual(['spec.jobs.go.with.count: "many" is not a number (input "count" of workflow "deploy")']);
    });
  });
});

describe('secretEnv and limits of a step', () => {
  const run = (step: object) =>
    ({
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'WorkflowRun',
      metadata: { name: 'r' },
      spec: { jobs: { a: { 'runs-on': 'bash', steps: [{ name: 's', run: 'true', ...step }] } } },
    }) as unknown as WorkflowRun;
  it('accepts Secret references and limits', () => {
    expect(
      validateWorkflowRun(
        run({
          env: { A: '1' },
          secretEnv: { B: { name: 'db', key: 'p' } },
          limits: { processes: 5, workspaceMiB: 10 },
        }),
      ).errors,
    ).toEqual([]);
  });
  it('refuses a variable with two sources, bad names and limits out of bounds', () => {
    expect(
      errorsOf(
        validateWorkflowRun(
          run({
            secretEnv: { D: { name: 'db' } },
            limits: { processes: 0, memoryMiB: 2 ** 30 },
          }),
        ),
      ),
    ).toEqual([
      'spec.jobs.a.steps[0].secretEnv.D.key: required value',
      'spec.jobs.a.steps[0].limits.processes: must be greater than or equal to 1',
      'spec.jobs.a.steps[0].limits.memoryMiB: must be less than or equal to 1048576',
    ]);
    expect(
      errorsOf(
        validateWorkflowRun(
          run({
            env: { A: '1', 'E-F': 'x' },
            secretEnv: { A: { name: 'db', key: 'p' }, 'B-C': { name: 'db', key: 'p' } },
          }),
        ),
      ),
    ).toEqual([
      'spec.jobs.a.steps[0].env.E-F: environment variable names must match ^[A-Za-z_][A-Za-z0-9_]*$',
      'spec.jobs.a.steps[0].secretEnv.B-C: environment variable names must match ^[A-Za-z_][A-Za-z0-9_]*$',
      'spec.jobs.a.steps[0].secretEnv.A: is also set in env: give it one source',
    ]);
  });
});

describe('validateWorkflow', () => {
  const deploy = {
    inputs: { environment: { type: 'string', required: true } },
    outputs: { endpoint: { value: '${{ jobs.apply.outputs.endpoint }}' } },
    jobs: {
      apply: {
        'runs-on': 'bash',
        steps: [{ name: 'deploy', run: 'deploy', env: { ENVIRONMENT: '${{ inputs.environment }}' } }],
        outputs: { endpoint: '${{ steps.deploy.outputs.endpoint }}' },
      },
    },
  };

  it('accepts a template', () => {
    expect(validateWorkflow(wf('deploy-workflow', deploy))).toEqual({ errors: [], warnings: [] });
  });

  it.each([
    [
      'an undeclared input',
      { ...deploy, jobs: { a: inline('x ${{ inputs.nope }}') }, outputs: {} },
      'spec.jobs.a.steps[0].run: input "nope" is not declared in spec.inputs',
    ],
    [
      'an output reading a missing job',
      { ...deploy, outputs: { e: { value: '${{ jobs.zz.outputs.e }}' } } },
      'spec.outputs.e.value: "jobs.zz.outputs.e": job "zz" does not exist',
    ],
    [
      'an output reading steps',
      { ...deploy, outputs: { e: { value: '${{ steps.s.outputs.e }}' } } },
      'spec.outputs.e.value: "steps.s.outputs.e" cannot be used here',
    ],
    [
      'an output name over 47',
      { ...deploy, outputs: { ['o'.repeat(48)]: { value: 'x' } } },
      'is longer than 47 characters',
    ],
    [
      'a default of the wrong type',
      { ...deploy, inputs: { n: { type: 'number', default: 'ten' } } },
      'spec.inputs.n.default: "ten" is not a number',
    ],
    [
      'a contract over budget',
      {
        ...deploy,
        outputs: Object.fromEntries(
          Array.from({ length: 33 }, (_, i) => [
            `o${i}`,
            { value: '${{ jobs.apply.outputs.endpoint }}' + ' '.repeat(8000) },
          ]),
        ),
      },
      'spec.outputs: the frozen output contract does not fit',
    ],
  ])('rejects %s', (_what, spec, message) => {
    expect(errorsOf(validateWorkflow(wf('w', spec))).join('\n')).toContain(message);
  });

  it('rejects a bad name', () => {
    expect(errorsOf(validateWorkflow(wf('Bad_Name', deploy)))[0]).toContain(
      'metadata.name: a Workflow name must be a DNS-1123 label',
    );
  });

  it('warns about risky but legal input', () => {
    const r = validateWorkflow(
      wf('w', {
        inputs: { used: {}, unused: {} },
        outputs: { fixed: { value: 'constant' } },
        jobs: { a: inline('deploy ${{ inputs.used }}') },
      }),
    );
    expect(r.errors).toEqual([]);
    // A value in a script is escaped for its shell context: no warning for that any more.
    expect(r.warnings).toEqual([
      'spec.outputs.fixed.value: the output refers to no job output; it is always "constant"',
      'spec.inputs.unused: the input is declared but never used',
    ]);
  });

  it.each([
    ['a comment', 'deploy # for ${{ inputs.used }}', 'a value inside a shell comment'],
    ['an arithmetic expansion', 'echo $(( ${{ inputs.used }} + 1 ))', 'a value inside an arithmetic context'],
    ['backquotes', 'echo `cat ${{ inputs.used }}`', 'a value inside backquotes'],
  ])('denies a value in %s of a script, naming the step and the reason', (_, script, reason) => {
    const r = validateWorkflow(wf('w', { inputs: { used: {} }, jobs: { a: inline(script) } }));
    expect(errorsOf(r)).toEqual([
      expect.stringContaining(`spec.jobs.a.steps[0].run: \${{ inputs.used }}: ${reason}`),
    ]);
  });

  describe('graph checks against the namespace', () => {
    const others = new Map([
      ['a', wf('a', { jobs: { call: { uses: 'b' } } })],
      ['c1', wf('c1', { jobs: { call: { uses: 'c2' } } })],
    ]);
    it('denies B calling A when A already calls B, on the one applied last', () => {
      expect(errorsOf(validateWorkflow(wf('b', { jobs: { back: { uses: 'a' } } }), { others }))).toEqual([
        'spec.jobs.back: workflow call cycle: b -> a -> b',
      ]);
    });
    it('denies a self-call', () => {
      expect(errorsOf(validateWorkflow(wf('s', { jobs: { me: { uses: 's' } } }), { others }))).toEqual([
        'spec.jobs.me: workflow call cycle: s -> s',
      ]);
    });
    it('denies a change that makes a chain through it deeper than 8', () => {
      const chain = new Map<string, Workflow>();
      // w1 -> w2 -> ... -> w5 (callers), and the candidate w5 will call x1 -> x2 -> x3 -> x4.
      for (let i = 1; i < 5; i++) chain.set(`w${i}`, wf(`w${i}`, { jobs: { c: { uses: `w${i + 1}` } } }));
      for (let i = 1; i < 4; i++) chain.set(`x${i}`, wf(`x${i}`, { jobs: { c: { uses: `x${i + 1}` } } }));
      chain.set('x4', wf('x4', { jobs: { a: inline() } }));
      const ok = validateWorkflow(wf('w5', { jobs: { c: { uses: 'x2' } } }), { others: chain });
      expect(ok.errors).toEqual([]); // w1..w5, x2..x4: 8 Workflows
      expect(
        errorsOf(validateWorkflow(wf('w5', { jobs: { c: { uses: 'x1' } } }), { others: chain })),
      ).toEqual([
        'spec.jobs: workflow call depth exceeds maximum 8: w1 -> w2 -> w3 -> w4 -> w5 -> x1 -> x2 -> x3 -> x4',
      ]);
    });
    it('warns, not denies, for a callee that does not exist yet', () => {
      const r = validateWorkflow(wf('n', { jobs: { c: { uses: 'later' } } }), { others });
      expect(r.errors).toEqual([]);
      expect(r.warnings).toEqual([
        'workflow "later" not found: n -> later (calls are late-bound: it must exist when the job runs)',
      ]);
    });
  });
});

describe('Runs', () => {
  it('validates shape and transitions', () => {
    const run = {
      apiVersion: 'kruntimes.io/v1alpha1',
      kind: 'Run',
      metadata: { name: 'r' },
      spec: { runtime: 'bash', script: 'true' },
    } as never;
    expect(validateRun(run).errors).toEqual([]);
    expect(errorsOf(validateRun({ ...(run as object), spec: { script: '' } } as never))).toEqual([
      'spec.runtime: required value',
      'spec.script: must not be empty',
    ]);
    expect(
      errorsOf(validateRun({ ...(run as object), spec: { runtime: 'bash', script: 'rm' } } as never, run)),
    ).toEqual(['spec.script: field is immutable after creation']);
  });
  it('takes a variable from a value or from a Secret, not both', () => {
    const run = (env: object[]) =>
      ({
        apiVersion: 'kruntimes.io/v1alpha1',
        kind: 'Run',
        metadata: { name: 'r' },
        spec: { runtime: 'bash', script: 'true', env },
      }) as never;
    const ref = { secretKeyRef: { name: 'db', key: 'password' } };
    expect(
      validateRun(
        run([
          { name: 'A', valueFrom: ref },
          { name: 'B', value: 'b' },
        ]),
      ).errors,
    ).toEqual([]);
    expect(errorsOf(validateRun(run([{ name: 'A', value: 'a', valueFrom: ref }])))).toEqual([
      'spec.env[0].valueFrom: may not be set together with value',
    ]);
    expect(errorsOf(validateRun(run([{ name: 'A', valueFrom: {} }])))).toEqual([
      'spec.env[0].valueFrom.secretKeyRef: required value',
    ]);
    expect(
      errorsOf(
        validateRun(run([{ name: 'A', valueFrom: { secretKeyRef: { name: 'Not_A_Name', key: 'k/ey' } } }])),
      ),
    ).toEqual([
      'spec.env[0].valueFrom.secretKeyRef.name: must match ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
      'spec.env[0].valueFrom.secretKeyRef.key: must match ^[-._a-zA-Z0-9]+$',
    ]);
  });
  it('lets only admins and the controller create Runs', () => {
    expect(
      mayCreateRun({ username: 'kruntimes-admin', groups: ['system:masters', 'system:authenticated'] }),
    ).toBe(true);
    expect(
      mayCreateRun({ username: 'system:serviceaccount:kruntimes-system:kruntimes-controller', groups: [] }),
    ).toBe(true);
    expect(mayCreateRun({ username: 'mallory', groups: ['system:authenticated'] })).toBe(false);
    expect(mayCreateRun(undefined)).toBe(false);
  });
});

describe('a runtime no live agent serves', () => {
  const jobs = {
    py: { 'runs-on': 'python', steps: [{ name: 's', run: 'x' }] },
    sh: { 'runs-on': 'bash', steps: [{ name: 's', run: 'x' }] },
    call: { uses: 'w' },
  };
  const serves = (r: string) => r === 'bash';
  const warning =
    'spec.jobs.py.runs-on: no runtimed serves runtime "python" in namespace "ns" now; its steps will wait until one does (krt agent list shows the agents)';

  it('is a warning on a new WorkflowRun and on a Workflow, never a denial', () => {
    const run = { ...wfr(jobs), metadata: { name: 'r', namespace: 'ns' } } as WorkflowRun;
    const r = validateWorkflowRun(run, { serves });
    expect(r.errors).toEqual([]);
    expect(r.warnings).toContain(warning);
    expect(validateWorkflowRun(run, { serves, old: run }).warnings).not.toContain(warning);
    const w = { ...wf('w', { jobs }), metadata: { name: 'w', namespace: 'ns' } } as Workflow;
    expect(validateWorkflow(w, { serves }).warnings).toContain(warning);
    expect(validateWorkflow(w, {}).warnings).not.toContain(warning);
  });
});
