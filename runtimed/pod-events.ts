// What a step Pod's Events say when the Pod itself does not (a volume that cannot be mounted): the
// last Warning, quoted in the Run's message.
import type * as k8s from '@kubernetes/client-node';
import { rawJson } from '../src/kube/raw.js';
import { lastWarning, type PodEvent } from '../src/runtime/pod-outcome.js';

export async function podWarning(
  kc: k8s.KubeConfig,
  namespace: string,
  pod: string,
): Promise<string | undefined> {
  const selector = encodeURIComponent(`involvedObject.kind=Pod,involvedObject.name=${pod}`);
  try {
    const list = (await rawJson(
      kc,
      'GET',
      `/api/v1/namespaces/${namespace}/events?fieldSelector=${selector}`,
    )) as {
      items?: PodEvent[];
    };
    return lastWarning(list.items ?? []);
  } catch {
    return undefined; // the Run still ends, without the quote
  }
}
