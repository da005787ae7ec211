import { QUALIFIED_NAME } from '../limits.js';
// Name rules shared by the CRD schemas, the webhook and the CLI.

/** Job and step names follow label-value rules (Kubernetes IsValidLabelValue): at most 63. */
export const JOB_NAME_PATTERN = '^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$';
export const STEP_NAME_PATTERN = JOB_NAME_PATTERN;
/** Workflow names are DNS-1123 labels, so they fit the `kruntimes.io/workflow` label value. */
export const WORKFLOW_NAME_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';
/** Runtimes (`runs-on`) are DNS-1123 labels: `bash`, later `python`. */
export const RUNTIME_PATTERN = WORKFLOW_NAME_PATTERN;
/** Inputs are read as `inputs.<name>`, so their names are expression identifiers. */
export const INPUT_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_-]*$';
/** Output names end an annotation key, so they are qualified-name parts. */
export const OUTPUT_NAME_PATTERN = QUALIFIED_NAME.source;
/** Environment variable names a shell can read. */
export const ENV_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]*$';

const compiled = new Map<string, RegExp>();
export function matches(pattern: string, value: string): boolean {
  let re = compiled.get(pattern);
  if (!re) compiled.set(pattern, (re = new RegExp(pattern)));
  return re.test(value);
}
/**
 * A file under $KRT_INPUT or $KRT_OUTPUT_DIR: relative, segments that never start with "." (so no
 * "..", no hidden files), at most 4 deep.
 */
export const FILE_PATH_PATTERN = '^[A-Za-z0-9_][A-Za-z0-9._-]*(/[A-Za-z0-9_][A-Za-z0-9._-]*){0,3}$';
/** Pipeline names are DNS-1123 labels: they are label values and part of WorkflowRun names. */
export const PIPELINE_NAME_PATTERN = WORKFLOW_NAME_PATTERN;
/** Secret names are DNS-1123 subdomains. */
export const SECRET_NAME_PATTERN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';
/** Secret data keys (Kubernetes IsConfigMapKey): letters, digits, `-`, `_` and `.`. */
export const SECRET_KEY_PATTERN = '^[-._a-zA-Z0-9]+$';
/**
 * A container image reference as the container runtimes read it: an optional registry host (and
 * port), lower-case path components, an optional tag and an optional sha256 digest.
 */
export const IMAGE_PATTERN =
  '^([a-zA-Z0-9]([-a-zA-Z0-9.]*[a-zA-Z0-9])?(:[0-9]+)?/)?[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*(/[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*)*(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(@sha256:[a-f0-9]{64})?$';
/** A resource quantity as a Pod's requests and limits take it: `250m`, `1.5`, `64Mi`, `1G`. */
export const QUANTITY_PATTERN = '^[0-9]+(\\.[0-9]+)?(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$';
/** Label keys of a nodeSelector: an optional DNS subdomain prefix and a qualified name. */
export const LABEL_KEY_PATTERN =
  '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$';
/** The runtime whose steps run as containers in Pods (`runs-on: kubernetes`). */
export const CONTAINER_RUNTIME = 'kubernetes';
