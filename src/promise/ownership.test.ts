import { describe, expect, it } from '@jest/globals';
import type { PromiseObject } from '../api/types.js';
import { crdConflict, crdOwnedBy } from './ownership.js';

const promise = { metadata: { name: 'p', uid: 'u1' } } as PromiseObject;
const ref = (uid: string, controller = true) => ({ kind: 'Promise', name: 'p', uid, controller });

describe('crdOwnedBy', () => {
  it('holds for a CRD whose controller owner is the Promise', () => {
    expect(crdOwnedBy({ metadata: { ownerReferences: [ref('u1')] } }, promise)).toBe(true);
  });
  it.each([
    ['no owner', {}],
    ['another Promise', { ownerReferences: [ref('u2')] }],
    ['the Promise as a non-controller owner', { ownerReferences: [ref('u1', false)] }],
  ])('not for %s', (_, metadata) => expect(crdOwnedBy({ metadata }, promise)).toBe(false));
  it('not for a Promise that has no uid yet (a create)', () => {
    expect(
      crdOwnedBy({ metadata: { ownerReferences: [ref('u1')] } }, { metadata: { name: 'p' } } as never),
    ).toBe(false);
  });
});

describe('crdConflict', () => {
  it('names the controller owner', () => {
    expect(crdConflict('a.x', { metadata: { ownerReferences: [ref('u2')] } })).toBe(
      'the API a.x exists and belongs to Promise "p" (uid u2): it is left as it is and nothing is applied',
    );
  });
  it('names the field managers when there is no owner', () => {
    expect(
      crdConflict('a.x', {
        metadata: { managedFields: [{ manager: 'helm' }, { manager: 'helm' }, { manager: 'kubectl' }] },
      }),
    ).toContain('belongs to no Promise (its fields are managed by helm, kubectl)');
  });
  it('leaves out the API server, which only keeps the status', () => {
    const crd = {
      metadata: {
        managedFields: [{ manager: 'kube-apiserver', subresource: 'status' }, { manager: 'kubectl-create' }],
      },
    };
    expect(crdConflict('a.x', crd)).toContain('(its fields are managed by kubectl-create)');
  });
});
