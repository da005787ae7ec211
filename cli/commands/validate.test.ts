import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../connect.js';
import { validateManifests } from './validate.js';

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'krt-validate-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const wf = (name: string, uses?: string) => `apiVersion: kruntimes.io/v1alpha1
kind: Workflow
metadata: { name: ${name} }
spec:
  jobs:
    j: ${uses ? `{ uses: ${uses} }` : '{ runs-on: bash, steps: [{ name: s, run: "true" }] }'}
`;

describe('krt validate', () => {
  it('gives the admission answer offline, with the same messages', () => {
    const dir = folder({
      'good.yaml': wf('a'),
      'bad.yml': `apiVersion: kruntimes.io/v1alpha1
kind: WorkflowRun
metadata: { name: r }
spec:
  jobs:
    deploy: { uses: a, steps: [{ name: s, run: x }] }
---
apiVersion: v1
kind: ConfigMap
metadata: { name: ignored }
`,
    });
    const out = validateManifests([dir]);
    expect(out.lines).toEqual([
      `${dir}/bad.yml: WorkflowRun/r: spec.jobs.deploy: a call job cannot have steps`,
      `${dir}/good.yaml: Workflow/a: valid`,
    ]);
    expect(out).toMatchObject({ valid: 1, invalid: 1 });
  });

  it('checks the call graph across the given files', () => {
    const dir = folder({ 'a.yaml': wf('a', 'b'), 'b.yaml': wf('b', 'a') });
    const out = validateManifests([dir]);
    expect(out.lines).toEqual([
      `${dir}/a.yaml: Workflow/a: spec.jobs.j: workflow call cycle: a -> b -> a`,
      `${dir}/b.yaml: Workflow/b: spec.jobs.j: workflow call cycle: b -> a -> b`,
    ]);
  });

  it('warns about a callee that is not among the files', () => {
    const out = validateManifests([folder({ 'a.yaml': wf('a', 'elsewhere') })]);
    expect(out.lines[0]).toContain('warning: workflow "elsewhere" not found: a -> elsewhere');
    expect(out.invalid).toBe(0);
  });

  it('reports YAML that does not parse and a path that does not exist', () => {
    const dir = folder({ 'broken.yaml': 'a: [1, 2\n' });
    expect(validateManifests([dir]).lines[0]).toContain(`${dir}/broken.yaml: not valid YAML:`);
    expect(() => validateManifests(['/does/not/exist'])).toThrow(
      new UsageError('/does/not/exist: no such file or directory'),
    );
  });

  it('exits 2, a usage error, for a path that does not exist', () => {
    const krt = spawnSync(join(process.cwd(), 'bin/krt'), ['validate', '-f', '/does/not/exist'], {
      encoding: 'utf8',
    });
    expect({ status: krt.status, stderr: krt.stderr }).toEqual({
      status: 2,
      stderr: 'krt: /does/not/exist: no such file or directory\n',
    });
  });

  it('validates Promises too: the sample is valid, a broken one names the field', () => {
    const sample = validateManifests([join(process.cwd(), 'config/samples/promise')]);
    expect(sample.lines.filter((l) => l.includes('Promise/'))).toEqual([
      `${join(process.cwd(), 'config/samples/promise')}/app-config-promise.yaml: Promise/app-config: valid`,
    ]);
    const dir = folder({
      'p.yaml': `apiVersion: kruntimes.io/v1alpha1
kind: Promise
metadata: { name: p }
spec:
  api: { apiVersion: v1, kind: ConfigMap }
`,
    });
    expect(validateManifests([dir]).lines).toEqual([
      `${dir}/p.yaml: Promise/p: warning: the Promise has no configure pipelines: its resources are accepted and nothing runs for them`,
      `${dir}/p.yaml: Promise/p: spec.api.apiVersion: must be apiextensions.k8s.io/v1`,
      `${dir}/p.yaml: Promise/p: spec.api.kind: must be CustomResourceDefinition`,
      `${dir}/p.yaml: Promise/p: spec.api.spec: required value`,
    ]);
  });
});
