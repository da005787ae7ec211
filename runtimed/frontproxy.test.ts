// Trusting X-Remote-* headers only from the API server's front-proxy certificate.
import { describe, expect, it } from '@jest/globals';
import type { IncomingMessage } from 'node:http';
import { remoteUser, type FrontProxy } from './frontproxy.js';

const fp: FrontProxy = {
  ca: '',
  allowedNames: ['front-proxy-client'],
  usernameHeaders: ['X-Remote-User'],
  groupHeaders: ['X-Remote-Group'],
  extraPrefixes: ['X-Remote-Extra-'],
};

/** A request as Node gives it: every header's values apart in headersDistinct. */
const request = (authorized: boolean, cn: string, headers: Record<string, string[]>) =>
  ({
    socket: { authorized, getPeerCertificate: () => ({ subject: { CN: cn } }) },
    headersDistinct: headers,
  }) as unknown as IncomingMessage;

describe('remoteUser', () => {
  it('reads the user, groups and extras the API server names', () => {
    const r = request(true, 'front-proxy-client', {
      'x-remote-user': ['alice'],
      'x-remote-group': ['dev', 'system:authenticated'],
      'x-remote-extra-scopes': ['a', 'b'],
      'x-remote-extra-acme.com%2fproject': ['p1'],
    });
    expect(remoteUser(r, fp)).toEqual({
      username: 'alice',
      groups: ['dev', 'system:authenticated'],
      extra: { scopes: ['a', 'b'], 'acme.com/project': ['p1'] },
    });
  });

  it('ignores the headers on a connection without a certificate the front-proxy CA signed', () => {
    expect(remoteUser(request(false, '', { 'x-remote-user': ['system:admin'] }), fp)).toEqual({
      error: 'not called by the API server (no valid front-proxy client certificate)',
    });
  });

  it('refuses a certificate of that CA with a name that is not allowed', () => {
    expect(remoteUser(request(true, 'someone', { 'x-remote-user': ['alice'] }), fp)).toEqual({
      error: 'client certificate "someone" is not an allowed front proxy',
    });
  });

  it('refuses a request that names no user', () => {
    expect(remoteUser(request(true, 'front-proxy-client', {}), fp)).toEqual({
      error: 'the API server named no user',
    });
  });
});
