import { MAX_DURATION_MS, parseDuration } from './duration.js';

describe('parseDuration', () => {
  it.each([
    ['250ms', 250],
    ['30s', 30_000],
    ['10m', 600_000],
    ['1h', 3_600_000],
    ['1d', 86_400_000],
    ['1h30m', 5_400_000],
    ['1d2h3m4s5ms', 93_784_005],
    ['1.5h', 5_400_000],
    ['2s500ms', 2500],
    [' 45s ', 45_000],
    ['365d', MAX_DURATION_MS],
  ])('reads %s', (text, ms) => {
    expect(parseDuration(text)).toEqual({ ms });
  });

  it.each([
    ['soon', 'is not a duration'],
    ['', 'is not a duration'],
    ['10', 'is not a duration'],
    ['s', 'is not a duration'],
    ['1w', 'is not a duration'],
    ['1h 30m', 'is not a duration'],
    ['-5s', 'is not a duration'],
    ['+5s', 'is not a duration'],
    ['0s', 'must be longer than zero'],
    ['0h0m', 'must be longer than zero'],
    ['366d', 'is longer than the longest retryAfter, 365d'],
    ['9'.repeat(400) + 'd', 'is longer than the longest retryAfter, 365d'],
  ])('refuses %j', (text, why) => {
    const r = parseDuration(text);
    expect('error' in r && r.error).toContain(why);
  });
});
