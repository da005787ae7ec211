import { MASK, Masker } from './mask.js';

const stream = (values: string[], chunks: string[]) => {
  const m = new Masker(values);
  const out = chunks.map((c) => m.push(Buffer.from(c)).toString());
  return out.join('') + m.end().toString();
};

describe('Masker', () => {
  it('masks a value inside one chunk', () => {
    expect(stream(['hunter2'], ['password is hunter2, ok\n'])).toBe(`password is ${MASK}, ok\n`);
  });

  it('masks every occurrence', () => {
    expect(stream(['s3'], ['s3 s3s3 x'])).toBe(`${MASK} ${MASK}${MASK} x`);
  });

  it('masks a value split across chunks, at every split point', () => {
    const text = 'before hunter2 after';
    for (let i = 0; i <= text.length; i++)
      for (let j = i; j <= text.length; j++)
        expect(stream(['hunter2'], [text.slice(0, i), text.slice(i, j), text.slice(j)])).toBe(
          `before ${MASK} after`,
        );
  });

  it('masks a value split into single bytes', () => {
    expect(stream(['abcdef'], [...'xxabcdefyy'])).toBe(`xx${MASK}yy`);
  });

  it('prefers the longest value at one position', () => {
    expect(stream(['abc', 'abcdef'], ['abcdef abc'])).toBe(`${MASK} ${MASK}`);
    expect(stream(['abc', 'abcdef'], ['ab', 'cde', 'f'])).toBe(MASK);
  });

  it('passes text through unchanged when there is nothing to mask', () => {
    expect(stream([], ['a', 'b'])).toBe('ab');
    expect(stream(['zzz'], ['abc', 'def'])).toBe('abcdef');
    expect(stream(['zzz'], ['abz', 'z'])).toBe('abzz');
  });

  it('holds back only what could begin a value', () => {
    const m = new Masker(['abcd']);
    expect(m.push(Buffer.from('hello')).toString()).toBe('he');
    expect(m.end().toString()).toBe('llo');
  });

  it('masks values of several bytes per character', () => {
    expect(stream(['pässwörd'], ['x pä', 'sswörd y'])).toBe(`x ${MASK} y`);
  });

  it('masks whole texts', () => {
    expect(new Masker(['tok']).text('a tok b tok')).toBe(`a ${MASK} b ${MASK}`);
    expect(new Masker([]).text('a tok')).toBe('a tok');
  });
});
