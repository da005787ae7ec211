// Durations as workflow-control files write them (retryAfter, docs/specifications.md R6): a sequence of
// amounts with units d, h, m, s or ms, such as 30s, 10m, 1h30m or 1d. Positive and bounded, so a
// retry is always in the future and its time fits in status.
const UNITS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
const PART = /(\d+(?:\.\d+)?)(ms|d|h|m|s)/y;

/** The longest retryAfter accepted: a year. */
export const MAX_DURATION_MS = 365 * UNITS.d!;

export function parseDuration(text: string): { ms: number } | { error: string } {
  const bad = { error: `"${text}" is not a duration such as 30s, 10m, 1h30m or 1d` };
  const t = text.trim();
  if (t === '') return bad;
  let ms = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < t.length) {
    const m = PART.exec(t);
    if (!m) return bad;
    ms += Number(m[1]) * (UNITS[m[2] as string] as number);
  }
  if (!Number.isFinite(ms) || ms > MAX_DURATION_MS)
    return { error: `"${text}" is longer than the longest retryAfter, 365d` };
  if (ms <= 0) return { error: `"${text}" must be longer than zero` };
  return { ms: Math.round(ms) };
}
