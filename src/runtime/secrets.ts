// Step variables from Secrets of the Run's namespace (env[].valueFrom.secretKeyRef, as a Pod has):
// read by runtimed when the step starts, so their values never enter a Run object. Pure: the
// reading of a Secret is given.
import type { Run } from '../api/types.js';

export interface SecretRef {
  env: string;
  name: string;
  key: string;
  optional: boolean;
}

/** A Secret's data (base64 values, as the API returns them), or undefined when it does not exist. */
export type ReadSecret = (name: string) => Promise<Record<string, string> | undefined>;

export function secretRefs(run: Run): SecretRef[] {
  return (run.spec.env ?? []).flatMap((e) => {
    const ref = e.valueFrom?.secretKeyRef;
    return ref ? [{ env: e.name, name: ref.name, key: ref.key, optional: ref.optional === true }] : [];
  });
}

/**
 * The variables, each Secret read once; a missing Secret or key fails unless the reference is
 * optional (then the variable is left out, as the kubelet does).
 */
export async function resolveSecretEnv(
  refs: SecretRef[],
  read: ReadSecret,
): Promise<{ values: Record<string, string> } | { error: string }> {
  const secrets = new Map<string, Record<string, string> | undefined>();
  const values: Record<string, string> = {};
  for (const ref of refs) {
    if (!secrets.has(ref.name)) secrets.set(ref.name, await read(ref.name));
    const data = secrets.get(ref.name);
    const encoded = data?.[ref.key];
    if (encoded === undefined) {
      if (ref.optional) continue;
      return {
        error: data
          ? `env ${ref.env}: key "${ref.key}" is not in secret "${ref.name}"`
          : `env ${ref.env}: secret "${ref.name}" not found`,
      };
    }
    values[ref.env] = Buffer.from(encoded, 'base64').toString('utf8');
  }
  return { values };
}

/** What gets masked: each value and, for values of several lines, each line of it. */
export function maskedValues(values: Record<string, string>): string[] {
  const out = new Set<string>();
  for (const v of Object.values(values)) {
    if (v.trim() === '') continue;
    out.add(v);
    for (const line of v.split(/\r?\n/)) if (line.trim().length >= MIN_MASKED_LINE) out.add(line);
  }
  return [...out].sort((a, b) => b.length - a.length);
}

/** Lines of a multi-line secret shorter than this (a lone brace of a JSON key file) stay readable. */
const MIN_MASKED_LINE = 4;
