import { impersonatedExtra } from './impersonation.js';

const kubeconfig = (user: string) => `
users:
- name: other
  user: { as: x }
- name: admin
  user:
    ${user}
`;

describe('impersonatedExtra', () => {
  it("turns the current user's as-user-extra into the headers kubectl sends", () => {
    expect(
      impersonatedExtra(
        kubeconfig('as-user-extra: { authentication.kubernetes.io/pod-name: [agent-1] }'),
        'admin',
      ),
    ).toEqual({ 'Impersonate-Extra-authentication.kubernetes.io%2Fpod-name': 'agent-1' });
  });
  it('gives nothing when the user has none', () => {
    expect(impersonatedExtra(kubeconfig('as: someone'), 'admin')).toBeUndefined();
    expect(impersonatedExtra(kubeconfig('as: someone'), 'nobody')).toBeUndefined();
    expect(impersonatedExtra('', 'admin')).toBeUndefined();
  });
  it('refuses several values for one key', () => {
    expect(() => impersonatedExtra(kubeconfig('as-user-extra: { k: [a, b] }'), 'admin')).toThrow(
      'kubeconfig: as-user-extra k must have exactly one value',
    );
  });
});
