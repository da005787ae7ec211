// One error type for the whole expression language: the reason, where it happened, and the
// offending text, e.g. `unexpected "}}" at position 17 in "${{ jobs.a.outputs. }}"`.

/** Characters shown on each side of the error position in a long source. */
const EXCERPT_RADIUS = 40;

export class ExprError extends Error {
  constructor(
    readonly reason: string,
    readonly source: string,
    readonly position: number,
  ) {
    super(`${reason} at position ${position} in ${excerpt(source, position)}`);
    this.name = 'ExprError';
  }
}

function excerpt(source: string, position: number): string {
  const from = Math.max(0, position - EXCERPT_RADIUS);
  const to = Math.min(source.length, position + EXCERPT_RADIUS);
  return (from > 0 ? '...' : '') + JSON.stringify(source.slice(from, to)) + (to < source.length ? '...' : '');
}
