// A kubeconfig as client-node's KubeConfig, for the parts that use its generated clients (the CLI,
// the webhook, runtimed): files found and merged by the rules of src/kube/kubeconfig-file.ts, else
// the Pod's service account.
import { readFileSync } from 'node:fs';
import { delimiter } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { impersonate, impersonatedExtra } from './impersonation.js';
import { kubeconfigFiles, mergedKubeconfig, type KubeconfigOptions } from './kubeconfig-file.js';

export { kubeconfigFiles, type KubeconfigOptions };

export function loadKubeConfigAs(opts: KubeconfigOptions = {}): k8s.KubeConfig {
  const files = kubeconfigFiles(opts);
  const kc = new k8s.KubeConfig();
  // No file: in a Pod, its service account (client-node's default finds it).
  if (files.length === 0) kc.loadFromDefault();
  // The merged document, its paths absolute already (JSON is YAML).
  else kc.loadFromString(JSON.stringify(mergedKubeconfig(files)));
  if (opts.context) {
    if (!kc.getContextObject(opts.context))
      throw new Error(
        `context "${opts.context}" is not in the kubeconfig (${files.join(delimiter) || 'in-cluster'})`,
      );
    kc.setCurrentContext(opts.context);
  }
  // The impersonation extras of the current user, from the first file that defines it.
  const user = kc.getCurrentUser()?.name;
  for (const f of files) {
    const extra = impersonatedExtra(readFileSync(f, 'utf8'), user);
    if (extra) {
      impersonate(kc, extra);
      break;
    }
  }
  return kc;
}
