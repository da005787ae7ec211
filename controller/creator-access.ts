// Before a Run is created, its WorkflowRun's creator must be allowed what the Run reaches in their
// name (src/validate/creator.ts): a SubjectAccessReview for each Secret and service account. The
// answers are kept a few seconds, so the steps of one job ask once; nothing depends on them beyond
// that.
import type { Run, WorkflowRun } from '../src/api/types.js';
import type { KubeClient } from '../src/kube/rest.js';
import { madeByController } from '../src/validate/controller-fields.js';
import {
  accessDenied,
  accessNeeds,
  creatorOf,
  type AccessNeed,
  type Creator,
} from '../src/validate/creator.js';

/** A Run its creator may not have: the job fails with this message, and it is not retried. */
export class AccessDenied extends Error {}

const SUBJECT_ACCESS_REVIEWS = {
  group: 'authorization.k8s.io',
  version: 'v1',
  plural: 'subjectaccessreviews',
};
const KEEP_MS = 10_000;
const MAX_KEPT = 1024;

export class CreatorAccess {
  private readonly kept = new Map<string, { allowed: boolean; at: number }>();

  constructor(
    private readonly kube: KubeClient,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws AccessDenied when the run's creator may not have what `run` reaches. */
  async check(owner: WorkflowRun, run: Run): Promise<void> {
    const needs = accessNeeds(run);
    if (needs.length === 0) return;
    const creator = creatorOf(owner);
    const namespace = run.metadata.namespace ?? '';
    const name = run.metadata.name ?? '';
    if (!creator) {
      // Made by the controller (a Promise's pipeline, or a child of one): the Promise's author chose them.
      if (madeByController(owner.metadata.labels)) return;
      throw new AccessDenied(
        `the run has no recorded creator (the admission webhook did not see it), so it may not use Secrets or service accounts: Run "${name}" is not created`,
      );
    }
    for (const need of needs)
      if (!(await this.allowed(creator, need, namespace)))
        throw new AccessDenied(accessDenied(creator, need, namespace, name));
  }

  private async allowed(creator: Creator, need: AccessNeed, namespace: string): Promise<boolean> {
    const key = JSON.stringify([
      creator.username,
      creator.groups,
      namespace,
      need.verb,
      need.resource,
      need.name,
    ]);
    const hit = this.kept.get(key);
    const now = this.now();
    if (hit && now - hit.at < KEEP_MS) return hit.allowed;
    const review = await this.kube.create<{ status?: { allowed?: boolean } }>(SUBJECT_ACCESS_REVIEWS, {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: creator.username,
        groups: creator.groups,
        resourceAttributes: { namespace, verb: need.verb, resource: need.resource, name: need.name },
      },
    });
    const allowed = review.status?.allowed === true;
    if (this.kept.size >= MAX_KEPT) this.kept.delete(this.kept.keys().next().value as string);
    this.kept.set(key, { allowed, at: now });
    return allowed;
  }
}
