// What a step Pod's Events say when the Pod itself does not (a volume that cannot be mounted): the
// last Warning, quoted in the Run's message.
import { core, type KubeClient } from '../src/kube/rest.js';
import { lastWarning, type PodEvent } from '../src/runtime/pod-outcome.js';

export async function podWarning(
  kube: KubeClient,
  namespace: string,
  pod: string,
): Promise<string | undefined> {
  const events = core('events', namespace);
  try {
    const list = await kube.list<PodEvent>(events, {
      fieldSelector: `involvedObject.kind=Pod,involvedObject.name=${pod}`,
    });
    return lastWarning(list.items ?? []);
  } catch {
    return undefined; // the Run still ends, without the quote
  }
}
