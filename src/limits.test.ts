import {
  annotationBudgetError,
  annotationBytes,
  annotationKeyErrors,
  MAX_OUTPUT_NAME_LENGTH,
  MAX_TOTAL_ANNOTATION_BYTES,
  outputAnnotationKey,
  outputNameErrors,
} from './limits.js';

describe('output names and annotation keys', () => {
  it('allows exactly 47 characters, the rest of the 63-character name part', () => {
    expect(MAX_OUTPUT_NAME_LENGTH).toBe(47);
    const atLimit = 'e'.repeat(47);
    expect(outputNameErrors(atLimit)).toEqual([]);
    expect(outputAnnotationKey(atLimit).split('/')[1]).toHaveLength(63);
    expect(annotationKeyErrors(outputAnnotationKey(atLimit))).toEqual([]);
  });

  it('rejects 48 characters', () => {
    expect(outputNameErrors('e'.repeat(48))).toEqual([
      `output name "${'e'.repeat(48)}" is longer than 47 characters`,
    ]);
    expect(annotationKeyErrors(outputAnnotationKey('e'.repeat(48)))[0]).toContain(
      'name part must be no more than 63 characters',
    );
  });

  it.each(['endpoint', 'a', 'a.b-c_d', 'A1'])('accepts output name %s', (n) => {
    expect(outputNameErrors(n)).toEqual([]);
  });

  it.each(['-a', 'a-', 'a b', 'é', '_a', ''])('rejects output name %j', (n) => {
    expect(outputNameErrors(n)).toHaveLength(1);
  });

  it('validates keys as Kubernetes does', () => {
    expect(annotationKeyErrors('plain')).toEqual([]);
    expect(annotationKeyErrors('a/b/c')).toEqual(['"a/b/c": an annotation key has at most one "/"']);
    expect(annotationKeyErrors('/x')).toEqual(['"/x": prefix part must be non-empty']);
    expect(annotationKeyErrors('Bad_Prefix/x')).toEqual([
      '"Bad_Prefix/x": prefix part must be a lowercase DNS-1123 subdomain',
    ]);
    expect(annotationKeyErrors(`${'p'.repeat(254)}/x`)[0]).toContain('prefix part must be no more than 253');
    expect(annotationKeyErrors('k/')).toEqual(['"k/": name part must be non-empty']);
  });
});

describe('annotation budget', () => {
  const filler = (total: number) => ({ k: 'v'.repeat(total - 1) });

  it('counts keys and values in bytes', () => {
    expect(annotationBytes({ ab: 'cd', é: 'x' })).toBe(2 + 2 + 2 + 1);
  });

  it(`accepts exactly ${MAX_TOTAL_ANNOTATION_BYTES} bytes`, () => {
    expect(annotationBytes(filler(MAX_TOTAL_ANNOTATION_BYTES))).toBe(MAX_TOTAL_ANNOTATION_BYTES);
    expect(annotationBudgetError(filler(MAX_TOTAL_ANNOTATION_BYTES))).toBeNull();
  });

  it('rejects one byte more', () => {
    expect(annotationBudgetError(filler(MAX_TOTAL_ANNOTATION_BYTES + 1))).toBe(
      `annotations take ${MAX_TOTAL_ANNOTATION_BYTES + 1} bytes, more than the Kubernetes limit of ${MAX_TOTAL_ANNOTATION_BYTES}`,
    );
  });
});
