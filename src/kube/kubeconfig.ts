// Loading a kubeconfig as kubectl does: `--kubeconfig` names one file; else KUBECONFIG may list
// several (`a:b`), merged with the first file's entry winning for each named cluster, user and
// context and the first current-context that is set winning; else ~/.kube/config; else the Pod's
// service account. `--context` picks another context of the result.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { impersonate, impersonatedExtra } from './impersonation.js';

export interface KubeconfigOptions {
  /** One file (kubectl's --kubeconfig); no merging. */
  path?: string;
  /** A context of the kubeconfig other than its current one (kubectl's --context). */
  context?: string;
  env?: NodeJS.ProcessEnv;
  home?: string;
}

/** The files a kubeconfig is read from, in kubectl's order; empty means in-cluster. */
export function kubeconfigFiles(opts: KubeconfigOptions = {}): string[] {
  if (opts.path) return [opts.path];
  const env = opts.env ?? process.env;
  // kubectl skips the files of KUBECONFIG that do not exist.
  const listed = (env.KUBECONFIG ?? '').split(delimiter).filter(Boolean);
  if (listed.length > 0) {
    const present = listed.filter((f) => existsSync(f));
    if (present.length === 0)
      throw new Error(`none of the files in KUBECONFIG exists: ${listed.join(delimiter)}`);
    return present;
  }
  const home = join(opts.home ?? homedir(), '.kube', 'config');
  return existsSync(home) ? [home] : [];
}

const byName = <T extends { name: string }>(lists: T[][]): T[] => {
  const seen = new Map<string, T>();
  for (const list of lists) for (const x of list) if (!seen.has(x.name)) seen.set(x.name, x);
  return [...seen.values()];
};

export function loadKubeConfigAs(opts: KubeconfigOptions = {}): k8s.KubeConfig {
  const files = kubeconfigFiles(opts);
  const kc = new k8s.KubeConfig();
  // No file: in a Pod, its service account (client-node's default finds it).
  if (files.length === 0) kc.loadFromDefault();
  else {
    // Each file on its own first, so its relative paths resolve against its own folder.
    const each = files.map((f) => {
      const one = new k8s.KubeConfig();
      one.loadFromFile(f);
      return one;
    });
    kc.loadFromOptions({
      clusters: byName(each.map((k) => k.clusters)),
      users: byName(each.map((k) => k.users)),
      contexts: byName(each.map((k) => k.contexts)),
      currentContext: each.map((k) => k.currentContext).find(Boolean) ?? '',
    });
  }
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
    const text = readFileSync(f, 'utf8');
    const extra = impersonatedExtra(text, user);
    if (extra) {
      impersonate(kc, extra);
      break;
    }
  }
  return kc;
}
