import { MAX_OBJECT_NAME_LENGTH } from './limits.js';
import {
  boundedName,
  childWorkflowRunName,
  isDns1123Subdomain,
  runName,
  serviceAccountUser,
  sha256Hex,
  snapshotName,
} from './names.js';

describe('names', () => {
  it('follows the specification and docs/design.md', () => {
    expect(childWorkflowRunName('release', 'deploy')).toBe('release-call-deploy');
    expect(childWorkflowRunName(childWorkflowRunName('release', 'deploy'), 'verify')).toBe(
      'release-call-deploy-call-verify',
    );
    expect(runName('release', 'build', 'package')).toBe('release-build-package');
    expect(runName('release', 'build', 'package', 1)).toBe('release-build-package');
    expect(runName('release', 'build', 'package', 2)).toBe('release-build-package-a2');
    const uid = '6f1c2c0e-4a7b-4b5e-9a51-3c1f0e7d9b11';
    expect(snapshotName('release', uid)).toBe(`release-snapshot-${sha256Hex(uid).slice(0, 8)}`);
  });

  it(`keeps a valid name of exactly ${MAX_OBJECT_NAME_LENGTH} characters`, () => {
    const atLimit = 'a'.repeat(MAX_OBJECT_NAME_LENGTH);
    expect(boundedName(atLimit)).toBe(atLimit);
  });

  it('cuts a name one past the limit and ends it in 8 hex of the sha256 of the full name', () => {
    const over = 'a'.repeat(MAX_OBJECT_NAME_LENGTH + 1);
    const cut = boundedName(over);
    expect(cut).toHaveLength(MAX_OBJECT_NAME_LENGTH);
    expect(cut).toBe('a'.repeat(MAX_OBJECT_NAME_LENGTH - 9) + '-' + sha256Hex(over).slice(0, 8));
    expect(isDns1123Subdomain(cut)).toBe(true);
  });

  it('honours a smaller limit such as a label value', () => {
    expect(boundedName('a'.repeat(63), 63)).toBe('a'.repeat(63));
    expect(boundedName('a'.repeat(64), 63)).toBe(
      'a'.repeat(54) + '-' + sha256Hex('a'.repeat(64)).slice(0, 8),
    );
  });

  it('gives different long names different results even when they share the kept prefix', () => {
    const base = 'x'.repeat(300);
    expect(boundedName(base + '1')).not.toBe(boundedName(base + '2'));
    expect(boundedName(base + '1')).toBe(boundedName(base + '1'));
  });

  it('never ends the kept part on a separator', () => {
    const wanted = 'a'.repeat(MAX_OBJECT_NAME_LENGTH - 10) + '--' + 'b'.repeat(20);
    const cut = boundedName(wanted);
    expect(cut).toMatch(/^a+-[0-9a-f]{8}$/);
    expect(isDns1123Subdomain(cut)).toBe(true);
  });

  it('makes job and step names that are label values but not DNS names valid, without collisions', () => {
    const upper = runName('release', 'Build', 'package');
    const lower = runName('release', 'build', 'package');
    const under = runName('release', 'build_x', 'package');
    expect(isDns1123Subdomain(upper)).toBe(true);
    expect(upper).toMatch(/^release-build-package-[0-9a-f]{8}$/);
    expect(upper).not.toBe(lower);
    expect(under).toMatch(/^release-build-x-package-[0-9a-f]{8}$/);
    expect(isDns1123Subdomain(runName('r', 'a.', 'b'))).toBe(true);
  });

  it('keeps a deep call chain within the limit', () => {
    let name = 'release';
    for (let i = 0; i < 8; i++) name = childWorkflowRunName(name, 'j'.repeat(63));
    expect(name.length).toBeLessThanOrEqual(MAX_OBJECT_NAME_LENGTH);
    expect(isDns1123Subdomain(name)).toBe(true);
    expect(isDns1123Subdomain(snapshotName(name, 'uid'))).toBe(true);
  });

  it('checks DNS-1123 subdomains', () => {
    for (const ok of ['a', 'a-b', 'a.b', '0a']) expect(isDns1123Subdomain(ok)).toBe(true);
    for (const bad of ['', 'A', '-a', 'a-', 'a..b', 'a_b', 'a'.repeat(254)])
      expect(isDns1123Subdomain(bad)).toBe(false);
  });
});

describe('serviceAccountUser', () => {
  it('names a service account as the API server does', () => {
    expect(serviceAccountUser('a', 'b')).toBe('system:serviceaccount:a:b');
  });
});
