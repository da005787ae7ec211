// The tree of one resource of a Promise's API: resource -> pipelines -> WorkflowRuns -> jobs ->
// steps, with phases, attempts, messages and the next retry, so nobody chases owner references.
import type { ResourceObject } from '../src/api/types.js';
import { duration, renderTree, type RunNode } from './tree.js';

export function renderResourceTree(
  resource: ResourceObject,
  trees: Map<string, RunNode>,
  now: Date,
): string[] {
  const w = resource.status?.kruntimes?.workflows ?? {};
  const head = [
    `${resource.kind}/${resource.metadata.name}`,
    w.phase ?? 'Pending',
    w.round ? `round ${w.round}` : '',
    duration(w.startedAt, w.completedAt, now),
  ].filter(Boolean);
  const lines = [head.join('  ') + (resource.status?.message ? `  (${resource.status.message})` : '')];
  const pipelines = w.pipelines ?? [];
  const d = resource.status?.kruntimes?.delete;
  pipelines.forEach((p, i) => {
    const last = i === pipelines.length - 1 && !d;
    const cells = [`pipeline ${p.name}`, p.phase ?? 'Pending'];
    if (p.attempts && p.attempts > 1) cells.push(`attempt ${p.attempts}`);
    if (p.nextRetryAt) cells.push(`retry in ${duration(now.toISOString(), p.nextRetryAt, now)}`);
    const why = p.message && p.phase !== 'Succeeded' ? `  (${p.message})` : '';
    lines.push(`${last ? '└─ ' : '├─ '}${cells.join('  ')}${why}`);
    const under = last ? '   ' : '│  ';
    const tree = p.workflowRunName ? trees.get(p.workflowRunName) : undefined;
    if (!tree) return;
    const [runLine, ...rest] = renderTree(tree, now);
    lines.push(`${under}└─ ${runLine}`);
    for (const l of rest) lines.push(`${under}   ${l}`);
  });
  // A resource being deleted: its delete pipeline, attempt by attempt.
  if (d) {
    const cells = ['delete pipeline', d.phase ?? 'Running', `attempt ${d.attempt ?? 1}`];
    if (d.nextRetryAt) cells.push(`retry in ${duration(now.toISOString(), d.nextRetryAt, now)}`);
    lines.push(`└─ ${cells.join('  ')}${d.message ? `  (${d.message})` : ''}`);
    const tree = d.workflowRunName ? trees.get(d.workflowRunName) : undefined;
    if (tree) {
      const [runLine, ...rest] = renderTree(tree, now);
      lines.push(`   └─ ${runLine}`);
      for (const l of rest) lines.push(`      ${l}`);
    }
  }
  return lines;
}
