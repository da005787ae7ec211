import { describe, expect, it } from '@jest/globals';
import { installNamespace } from './namespace.js';

describe('installNamespace', () => {
  const none = () => {
    throw new Error('ENOENT');
  };
  it('is POD_NAMESPACE when set', () => {
    expect(installNamespace({ POD_NAMESPACE: 'krt-elsewhere' }, () => 'other')).toBe('krt-elsewhere');
  });
  it("else the service account's namespace", () => {
    expect(installNamespace({}, () => 'from-token\n')).toBe('from-token');
  });
  it('else kruntimes-system', () => {
    expect(installNamespace({}, none)).toBe('kruntimes-system');
  });
});
