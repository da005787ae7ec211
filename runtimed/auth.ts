// Who may read a Run's log: the API server decides. The bearer token is checked with a TokenReview
// and the user with a SubjectAccessReview for `get runs/log` in the Run's namespace, the same
// question `kubectl auth can-i get runs/log` asks.
import * as k8s from '@kubernetes/client-node';
import { GROUP } from '../src/api/crds.js';
import { apiClient } from '../src/kube/client.js';

export type Decision =
  { allowed: true; user: string } | { allowed: false; status: 401 | 403; message: string };

export class LogAuthorizer {
  private readonly authn: k8s.AuthenticationV1Api;
  private readonly authz: k8s.AuthorizationV1Api;

  constructor(kc: k8s.KubeConfig) {
    this.authn = apiClient(kc, k8s.AuthenticationV1Api);
    this.authz = apiClient(kc, k8s.AuthorizationV1Api);
  }

  /** `audience`: the token must be bound to it (without, to the API server's own audiences). */
  async check(
    authorization: string | undefined,
    namespace: string,
    name: string,
    audience?: string,
  ): Promise<Decision> {
    const token = /^Bearer (.+)$/i.exec(authorization ?? '')?.[1];
    if (!token) return { allowed: false, status: 401, message: 'a bearer token is required' };
    const review = await this.authn.createTokenReview({
      body: { spec: { token, ...(audience ? { audiences: [audience] } : {}) } },
    });
    const u = review.status?.user;
    if (!review.status?.authenticated || !u?.username)
      return {
        allowed: false,
        status: 401,
        message: `the token was not accepted by the API server${audience ? ` for the audience ${audience}` : ''}`,
      };
    if (audience && !review.status.audiences?.includes(audience))
      return { allowed: false, status: 401, message: `the token is not bound to the audience ${audience}` };
    return this.checkUser(
      { username: u.username, groups: u.groups, uid: u.uid, extra: u.extra },
      namespace,
      name,
    );
  }

  /** A user the API server has authenticated already (the aggregation layer): the same question. */
  async checkUser(
    u: { username: string; groups?: string[]; uid?: string; extra?: Record<string, string[]> },
    namespace: string,
    name: string,
  ): Promise<Decision> {
    const sar = await this.authz.createSubjectAccessReview({
      body: {
        spec: {
          user: u.username,
          groups: u.groups,
          uid: u.uid,
          extra: u.extra,
          resourceAttributes: {
            group: GROUP,
            resource: 'runs',
            subresource: 'log',
            verb: 'get',
            namespace,
            name,
          },
        },
      },
    });
    return sar.status?.allowed
      ? { allowed: true, user: u.username }
      : {
          allowed: false,
          status: 403,
          message: `${u.username} cannot get runs/log in namespace "${namespace}"${sar.status?.reason ? `: ${sar.status.reason}` : ''}`,
        };
  }
}
