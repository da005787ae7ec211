// A kubeconfig as client-node's KubeConfig, for the parts that use its generated clients (the CLI,
// the webhook, runtimed): files found and merged by the rules of src/kube/kubeconfig-file.ts, else
// the Pod's service account.
import * as k8s from '@kubernetes/client-node';
import { impersonate } from './impersonation.js';
import { kubeconfigFiles, mergedKubeconfig, userExtra, type KubeconfigOptions } from './kubeconfig-file.js';

export { kubeconfigFiles, type KubeconfigOptions };

export function loadKubeConfigAs(opts: KubeconfigOptions = {}): k8s.KubeConfig {
  const files = kubeconfigFiles(opts);
  const kc = new k8s.KubeConfig();
  if (files.length > 0) {
    // The merged document, its paths absolute already, the context given checked (JSON is YAML).
    kc.loadFromString(JSON.stringify(mergedKubeconfig(files, opts.context)));
    impersonate(kc, userExtra(files, kc.getCurrentUser()?.name));
    return kc;
  }
  // No file: in a Pod, its service account (client-node's default finds it).
  kc.loadFromDefault();
  if (opts.context) {
    if (!kc.getContextObject(opts.context))
      throw new Error(`context "${opts.context}" is not in the kubeconfig (in-cluster)`);
    kc.setCurrentContext(opts.context);
  }
  return kc;
}
