import { LinePrefixer } from './logsource.js';
import { age, table } from './output.js';

describe('table', () => {
  it('pads columns to the widest cell and trims the last', () => {
    expect(
      table(
        ['NAME', 'PHASE'],
        [
          ['a-long-name', 'Running'],
          ['b', 'Succeeded'],
        ],
      ),
    ).toEqual(['NAME          PHASE', 'a-long-name   Running', 'b             Succeeded']);
  });
});

describe('age', () => {
  const now = new Date('2026-12-02T12:00:00Z');
  it.each([
    ['2026-12-02T11:59:30Z', '30s'],
    ['2026-12-02T11:55:00Z', '5m'],
    ['2026-12-02T09:00:00Z', '3h'],
    ['2026-11-28T12:00:00Z', '4d'],
    ['not a time', '-'],
  ])('%s is %s', (t, want) => expect(age(t, now)).toBe(want));
});

describe('LinePrefixer', () => {
  it('prefixes whole lines and holds a partial line until it ends', () => {
    const p = new LinePrefixer('job:step');
    expect(p.push('a\nb')).toEqual(['job:step | a']);
    expect(p.push('c\n\nd')).toEqual(['job:step | bc', 'job:step | ']);
    expect(p.flush()).toEqual(['job:step | d']);
    expect(p.flush()).toEqual([]);
  });
});
