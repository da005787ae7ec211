import {
  analyzeTemplate,
  ExprError,
  parseTemplate,
  printExpr,
  renderPartial,
  renderTemplate,
} from './index.js';
import { parseExpression, MAX_EXPR_DEPTH } from './parser.js';

const ctx = {
  inputs: { environment: 'staging', replicas: '3', quote: "it's" },
  jobs: { build: { outputs: { env: 'prod', image: 'app:1' } }, empty: {} },
  steps: { package: { outputs: { file: 'app.tgz' } } },
};

function errorOf(fn: () => unknown): ExprError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ExprError) return e;
    throw e;
  }
  throw new Error('expected an ExprError');
}

describe('renderTemplate', () => {
  it.each([
    ['plain text', 'plain text'],
    ['${{ inputs.environment }}', 'staging'],
    [
      'deploy --env=${{inputs.environment}} --img=${{ jobs.build.outputs.image }}',
      'deploy --env=staging --img=app:1',
    ],
    ["${{ 'lit' }}", 'lit'],
    ["${{ 'a''b' }}", "a'b"],
    ["${{ 'has }} braces' }}", 'has }} braces'],
    ['${{ 42 }}', '42'],
    ['${{ -1.5 }}', '-1.5'],
    ['${{ true }}', 'true'],
    ['${{ null }}', ''],
    ['${{ steps.package.outputs.file }}', 'app.tgz'],
    ["${{ jobs['build'].outputs['env'] }}", 'prod'],
    ["${{ inputs.environment == 'staging' }}", 'true'],
    ["${{ inputs.environment != 'staging' }}", 'false'],
    ['${{ inputs.replicas == 3 }}', 'true'],
    ['${{ 2 < 3 }}', 'true'],
    ['${{ 3 <= 3 }}', 'true'],
    ["${{ 'b' > 'a' }}", 'true'],
    ['${{ 2 >= 3 }}', 'false'],
    ['${{ !inputs.environment }}', 'false'],
    ["${{ !'' }}", 'true'],
    ["${{ inputs.environment == 'prod' && 'yes' || 'no' }}", 'no'],
    ["${{ inputs.environment == 'staging' && 'yes' || 'no' }}", 'yes'],
    ['${{ (1 == 1) && (2 == 2) }}', 'true'],
    ["${{ contains(inputs.environment, 'STAG') }}", 'true'],
    ["${{ startsWith(inputs.environment, 'st') }}", 'true'],
    ["${{ endsWith(inputs.environment, 'x') }}", 'false'],
    ["${{ format('{0}-{1} {{x}}', inputs.environment, jobs.build.outputs.env) }}", 'staging-prod {x}'],
    ['${{ toJSON(jobs.build.outputs) }}', '{\n  "env": "prod",\n  "image": "app:1"\n}'],
    ['${{ jobs.build.outputs }}', '{"env":"prod","image":"app:1"}'],
    ['${{ inputs.quote }}', "it's"],
  ])('%s -> %s', (template, expected) => {
    expect(renderTemplate(template, ctx)).toBe(expected);
  });

  it.each([
    ['${{ inputs.missing }}', 'inputs.missing is not defined at position 4 in "${{ inputs.missing }}"'],
    ['${{ jobs.build.outputs.nope }}', 'jobs.build.outputs.nope is not defined at position 4'],
    ['${{ jobs.empty.outputs.x }}', 'jobs.empty.outputs is not defined at position 4'],
    ['${{ jobs.nope.outputs.x }}', 'jobs.nope is not defined at position 4'],
    [
      '${{ secrets.token }}',
      'unknown context "secrets" (expected inputs, jobs, steps, resource) at position 4',
    ],
    ['${{ inputs.environment.x }}', 'cannot read "x" of string "staging" at position 4'],
    ['${{ nope(1) }}', 'unknown function "nope" at position 4'],
    ['${{ contains(1) }}', 'contains() takes 2 arguments, got 1 at position 4'],
    ["${{ format('{1}', 'a') }}", 'format() has no argument {1} at position 4'],
    ['${{ inputs[1] }}', 'index must be a string, got number 1 at position 11'],
  ])('%s fails: %s', (template, message) => {
    expect(errorOf(() => renderTemplate(template, ctx)).message).toContain(message);
  });

  it('reports an unavailable context', () => {
    expect(errorOf(() => renderTemplate('${{ steps.a.outputs.b }}', { inputs: {} })).message).toContain(
      'context "steps" is not available here',
    );
  });
});

describe('parse errors give the position and the offending text', () => {
  it.each([
    ['${{ }}', 'empty expression at position 3'],
    ['${{ inputs.x', 'expression is not closed with "}}" at position 0'],
    ['a ${{ inputs. }}', 'unexpected "}}", expected a property name at position 14'],
    ['${{ inputs.x inputs.y }}', 'unexpected "inputs" at position 13'],
    ["${{ 'open }}", 'unterminated string literal at position 4'],
    ['${{ inputs.x # }}', 'unexpected character "#" at position 13'],
    ['${{ (inputs.x }}', 'unexpected "}}", expected ")" at position 14'],
    ['${{ inputs[ }}', 'unexpected "}}" at position 12'],
    ['${{ == }}', 'unexpected "==" at position 4'],
    ['${{ f(1, }}', 'unexpected "}}" at position 9'],
  ])('%s', (template, message) => {
    const e = errorOf(() => parseTemplate(template));
    expect(e.message).toContain(message);
    expect(e.message).toContain(JSON.stringify(template).slice(0, 10));
  });

  it('shows a window of a long source around the error', () => {
    const long = 'x'.repeat(200) + '${{ inputs. }}' + 'y'.repeat(200);
    const e = errorOf(() => parseTemplate(long));
    expect(e.position).toBe(212);
    expect(e.message).toMatch(
      /^unexpected "}}", expected a property name at position 212 in \.\.\."x+\$\{\{ inputs\. }}y+"\.\.\.$/,
    );
  });

  it(`refuses nesting deeper than ${MAX_EXPR_DEPTH} instead of exhausting the stack`, () => {
    const ok = '${{ ' + '('.repeat(MAX_EXPR_DEPTH) + '1' + ')'.repeat(MAX_EXPR_DEPTH) + ' }}';
    expect(renderTemplate(ok, {})).toBe('1');
    const deep = '${{ ' + '('.repeat(MAX_EXPR_DEPTH + 1) + '1' + ')'.repeat(MAX_EXPR_DEPTH + 1) + ' }}';
    expect(errorOf(() => parseTemplate(deep)).message).toContain(
      `expression nests deeper than ${MAX_EXPR_DEPTH}`,
    );
    const hostile = '${{ ' + '!'.repeat(100000) + 'true }}';
    expect(errorOf(() => parseTemplate(hostile)).message).toContain('nests deeper');
  });

  it('records spans in the AST', () => {
    const { expr, end } = parseExpression('${{ jobs.a.outputs.b }} tail', 3);
    expect(end).toBe(23);
    expect(expr).toMatchObject({ type: 'member', property: 'b', start: 4, end: 20 });
  });
});

describe('analyzeTemplate', () => {
  it('lists inputs, job outputs and step outputs', () => {
    const a = analyzeTemplate(
      "${{ inputs.env }} ${{ jobs.build.outputs['image'] }} ${{ steps.pkg.outputs.file == inputs.x }}",
    );
    expect(a.errors).toEqual([]);
    expect(a.references).toEqual([
      { kind: 'input', name: 'env' },
      { kind: 'jobOutput', job: 'build', output: 'image' },
      { kind: 'stepOutput', step: 'pkg', output: 'file' },
      { kind: 'input', name: 'x' },
    ]);
  });

  it.each([
    ['${{ inputs }}', '"inputs": expected inputs.<name>'],
    ['${{ inputs.a.b }}', '"inputs.a.b": expected inputs.<name>'],
    ['${{ jobs.build.result }}', '"jobs.build.result": expected jobs.<job>.outputs.<name>'],
    ['${{ jobs.build.result.x }}', '"jobs.build.result.x": expected jobs.<job>.outputs.<name>'],
    ['${{ steps.a.outputs }}', '"steps.a.outputs": expected steps.<step>.outputs.<name>'],
    [
      '${{ jobs[inputs.j].outputs.x }}',
      '"jobs[...].outputs.x": a reference must name its jobs with literals',
    ],
    ['${{ github.sha }}', 'unknown context "github"'],
    ['${{ nope() }}', 'unknown function "nope"'],
    ['${{ startsWith(1, 2, 3) }}', 'startsWith() takes 2 arguments, got 3'],
    ['${{ inputs. }}', 'unexpected "}}"'],
  ])('%s: %s', (template, message) => {
    const a = analyzeTemplate(template);
    expect(a.errors.join('\n')).toContain(message);
  });

  it('still sees the references inside a dynamic index', () => {
    expect(analyzeTemplate('${{ jobs[inputs.j].outputs.x }}').references).toEqual([
      { kind: 'input', name: 'j' },
    ]);
  });

  it('finds references inside calls, negations and comparisons', () => {
    const a = analyzeTemplate("${{ !contains(inputs.a, jobs.b.outputs.c) || steps.s.outputs.o < '1' }}");
    expect(a.references.map((r) => r.kind)).toEqual(['input', 'jobOutput', 'stepOutput']);
  });
});

describe('renderPartial', () => {
  it('renders only inputs and leaves every other placeholder verbatim', () => {
    const src = 'deploy ${{ inputs.environment }} from ${{ jobs.build.outputs.image }} ${{ 1 == 1 }}';
    expect(renderPartial(src, { inputs: ctx.inputs }, ['inputs'])).toBe(
      'deploy staging from ${{ jobs.build.outputs.image }} ${{ 1 == 1 }}',
    );
  });

  it('replaces inputs inside a mixed placeholder with literals that render later to the same value', () => {
    const src = "${{ format('{0}:{1}', inputs.quote, jobs.build.outputs.env) }}";
    const partial = renderPartial(src, { inputs: ctx.inputs }, ['inputs']);
    expect(partial).toBe("${{ format('{0}:{1}', 'it''s', jobs.build.outputs.env) }}");
    expect(renderTemplate(partial, { jobs: ctx.jobs })).toBe("it's:prod");
    expect(renderTemplate(src, ctx)).toBe("it's:prod");
  });

  it('keeps precedence when printing mixed placeholders', () => {
    const src = "${{ !(inputs.environment == jobs.build.outputs.env) && (jobs.build.outputs.env || 'x') }}";
    const partial = renderPartial(src, { inputs: ctx.inputs }, ['inputs']);
    expect(renderTemplate(partial, { jobs: ctx.jobs })).toBe(renderTemplate(src, ctx));
    expect(partial).toBe("${{ !('staging' == jobs.build.outputs.env) && (jobs.build.outputs.env || 'x') }}");
  });

  it('substitutes an input used as a dynamic index', () => {
    const partial = renderPartial('${{ jobs[inputs.j].outputs.env }}', { inputs: { j: 'build' } }, [
      'inputs',
    ]);
    expect(partial).toBe("${{ jobs['build'].outputs.env }}");
  });

  it('fails on an undeclared input even when other contexts are left', () => {
    expect(errorOf(() => renderPartial('${{ inputs.nope }}', { inputs: {} }, ['inputs'])).message).toContain(
      'inputs.nope is not defined',
    );
  });

  it('prints every node kind back to parseable text', () => {
    const src = "${{ !a.b[0] == null || f(true, 'x', 1.5) >= c[d.e] }}";
    const { expr } = parseExpression(src, 3);
    const again = parseExpression('${{ ' + printExpr(expr) + ' }}', 3).expr;
    expect(printExpr(again)).toBe(printExpr(expr));
  });
});
