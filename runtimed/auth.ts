// Who may read a Run's log: the API server decides. The bearer token is checked with a TokenReview
// and the user with a SubjectAccessReview for `get runs/log` in the Run's namespace, the same
// question `kubectl auth can-i get runs/log` asks.
import { GROUP } from '../src/api/crds.js';
import type { KubeClient } from '../src/kube/rest.js';

export type Decision =
  { allowed: true; user: string } | { allowed: false; status: 401 | 403; message: string };

/** What the API server answers to a TokenReview (authentication.k8s.io/v1). */
interface TokenReview {
  status?: {
    authenticated?: boolean;
    audiences?: string[];
    user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  };
}

/** What the API server answers to a SubjectAccessReview (authorization.k8s.io/v1). */
interface SubjectAccessReview {
  status?: { allowed?: boolean; reason?: string };
}

const TOKEN_REVIEWS = { group: 'authentication.k8s.io', version: 'v1', plural: 'tokenreviews' };
const ACCESS_REVIEWS = { group: 'authorization.k8s.io', version: 'v1', plural: 'subjectaccessreviews' };

export class LogAuthorizer {
  constructor(private readonly kube: KubeClient) {}

  /** `audience`: the token must be bound to it (without, to the API server's own audiences). */
  async check(
    authorization: string | undefined,
    namespace: string,
    name: string,
    audience?: string,
  ): Promise<Decision> {
    const token = /^Bearer (.+)$/i.exec(authorization ?? '')?.[1];
    if (!token) return { allowed: false, status: 401, message: 'a bearer token is required' };
    const review = await this.kube.create<TokenReview>(TOKEN_REVIEWS, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      spec: { token, ...(audience ? { audiences: [audience] } : {}) },
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
    const sar = await this.kube.create<SubjectAccessReview>(ACCESS_REVIEWS, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
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
