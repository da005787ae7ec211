// Every bound of the API in one place, each with the source of its number.

/** Kubernetes: a DNS-1123 subdomain (object names of most kinds) is at most 253 characters. */
export const MAX_OBJECT_NAME_LENGTH = 253;
/** Kubernetes: a label value, and a DNS-1123 label, is at most 63 characters. */
export const MAX_LABEL_VALUE_LENGTH = 63;
/** Kubernetes: the name part of a qualified annotation key is at most 63 characters. */
export const MAX_QUALIFIED_NAME_LENGTH = 63;
/** Kubernetes (apimachinery TotalAnnotationSizeLimitB): all keys plus values of one object, 256 KiB. */
export const MAX_TOTAL_ANNOTATION_BYTES = 256 * 1024;

/** The deepest call chain (docs/specifications.md W9): Workflows in one chain, root included. */
export const MAX_CALL_DEPTH = 8;

// docs/design.md §2: jobs, steps, inputs and outputs are bounded by CRD limits. Together they allow
// objects larger than etcd stores, so the whole object is bounded too (MAX_ADMITTED_OBJECT_BYTES).
export const MAX_JOBS = 100;
export const MAX_STEPS_PER_JOB = 50;
export const MAX_INPUTS = 50;
export const MAX_OUTPUTS = 50;
export const MAX_ENV_PER_STEP = 100;
/**
 * Bytes of an object as admission sees it (its JSON). etcd refuses a request over 1.5 MiB
 * (`--max-request-bytes`, default 1,572,864) with `etcdserver: request is too large`; the object
 * must leave room for what is added after admission: the status the controller and runtimed write,
 * and the field managers.
 */
export const MAX_ADMITTED_OBJECT_BYTES = 1024 * 1024;
/** Characters of one step script. */
export const MAX_SCRIPT_LENGTH = 64 * 1024;
/** Characters of one expression-bearing value (with, env, output expressions, input defaults). */
export const MAX_VALUE_LENGTH = 8 * 1024;
/** Characters of one output value stored in status (job, step and Run outputs are bounded). */
export const MAX_OUTPUT_VALUE_LENGTH = 4 * 1024;
/**
 * What a step writes to $KRT_STATUS (status.yaml) is kept as a nested document: at most MAX_OUTPUTS
 * keys at its top, nested at most MAX_STATUS_DEPTH levels, at most MAX_STATUS_JSON_BYTES as JSON,
 * with at most MAX_STATUS_CONDITIONS conditions. The same bounds hold where the documents of several
 * steps or pipelines are merged (a WorkflowRun's, a resource's status).
 */
export const MAX_STATUS_JSON_BYTES = 16 * 1024;
export const MAX_STATUS_DEPTH = 8;
export const MAX_STATUS_CONDITIONS = 8;
/** metav1.Condition's own bounds: a type (a qualified name), a reason, a message. */
export const MAX_CONDITION_TYPE_LENGTH = 316;
export const MAX_CONDITION_REASON_LENGTH = 1024;
export const MAX_CONDITION_MESSAGE_LENGTH = 32768;
/** Characters of a description. */
export const MAX_DESCRIPTION_LENGTH = 1024;
/** Run.status.logTail keeps the last 4 KiB of output (issue: runtimed). */
export const MAX_LOG_TAIL_BYTES = 4 * 1024;
/** A finished WorkflowRun is kept at most a year (spec.ttlSecondsAfterFinished). */
export const MAX_TTL_SECONDS = 365 * 24 * 60 * 60;
/** The controller's default retention of a finished root WorkflowRun: a week. */
export const DEFAULT_TTL_SECONDS = 7 * 24 * 60 * 60;
/**
 * Files a pipeline's steps read ($KRT_INPUT) or write ($KRT_OUTPUT_DIR, which become a Work): at
 * most this many files of at most this many bytes in all, per set. Both sets travel in a Run, which
 * must fit MAX_ADMITTED_OBJECT_BYTES with its script.
 */
export const MAX_FILES = 200;
export const MAX_FILES_BYTES = 256 * 1024;
/** Kratix's default reconciliation interval: a resource's configure workflow runs again after 10h. */
export const DEFAULT_RECONCILE_INTERVAL = '10h';
/** Retries of a failed delete pipeline: a Kubernetes Job's default backoffLimit. */
export const DEFAULT_DELETE_BACKOFF_LIMIT = 6;
/** The most retries a pipeline's jobOptions.backoffLimit may ask for. */
export const MAX_PIPELINE_BACKOFF_LIMIT = 10;
/** The wait before a failed pipeline runs again: this, doubling with each attempt, up to the max. */
export const PIPELINE_BACKOFF_BASE_MS = 5_000;
export const PIPELINE_BACKOFF_MAX_MS = 300_000;
/** A Promise's configure workflow may hold at most this many pipelines (they run one by one). */
export const MAX_PIPELINES = 10;
/**
 * What a step's `limits` may ask at most, whatever the agent allows: bounds that keep the numbers
 * sane (the agent's own ceiling, --step-max-*, is what applies).
 */
export const MAX_STEP_PROCESSES = 65536;
export const MAX_STEP_MIB = 1024 * 1024;
export const MAX_STEP_OPEN_FILES = 1048576;
/** A Run may not ask for more than a day. */
export const MAX_TIMEOUT_SECONDS = 24 * 60 * 60;

/** docs/design.md §2: frozen output contract annotations carry this prefix. */
export const OUTPUT_ANNOTATION_PREFIX = 'kruntimes.io/workflow-output.';
/**
 * The name part of `kruntimes.io/workflow-output.<name>` is at most 63 characters, so `<name>` is at
 * most 63 - len("workflow-output.") = 47.
 */
export const MAX_OUTPUT_NAME_LENGTH = MAX_QUALIFIED_NAME_LENGTH - 'workflow-output.'.length;

/** Kubernetes qualified-name part (also the CRD pattern for output names). */
export const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Validates an annotation key as Kubernetes does (apimachinery IsQualifiedName): an optional
 * DNS-subdomain prefix of at most 253 characters, a slash, and a name of at most 63 characters.
 * Returns the reasons it is invalid; empty when valid.
 */
export function annotationKeyErrors(key: string): string[] {
  const errors: string[] = [];
  const parts = key.split('/');
  let name = key;
  if (parts.length > 2) return [`"${key}": an annotation key has at most one "/"`];
  if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix.length === 0) errors.push(`"${key}": prefix part must be non-empty`);
    else if (prefix.length > MAX_OBJECT_NAME_LENGTH)
      errors.push(`"${key}": prefix part must be no more than ${MAX_OBJECT_NAME_LENGTH} characters`);
    else if (!DNS1123_SUBDOMAIN.test(prefix))
      errors.push(`"${key}": prefix part must be a lowercase DNS-1123 subdomain`);
  }
  if (name.length === 0) errors.push(`"${key}": name part must be non-empty`);
  else if (name.length > MAX_QUALIFIED_NAME_LENGTH)
    errors.push(`"${key}": name part must be no more than ${MAX_QUALIFIED_NAME_LENGTH} characters`);
  else if (!QUALIFIED_NAME.test(name))
    errors.push(
      `"${key}": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
    );
  return errors;
}

/** The key of the frozen output annotation for one Workflow output. */
export function outputAnnotationKey(outputName: string): string {
  return OUTPUT_ANNOTATION_PREFIX + outputName;
}

/** The frozen output contract a call materializes: one annotation per output expression. */
export function frozenOutputContract(wf: {
  spec?: { outputs?: Record<string, { value: string }> };
}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, o] of Object.entries(wf.spec?.outputs ?? {})) out[outputAnnotationKey(name)] = o.value;
  return out;
}

/** Errors for a Workflow output name: it must make a valid `kruntimes.io/workflow-output.<name>` key. */
export function outputNameErrors(outputName: string): string[] {
  if (outputName.length > MAX_OUTPUT_NAME_LENGTH)
    return [`output name "${outputName}" is longer than ${MAX_OUTPUT_NAME_LENGTH} characters`];
  // The name itself must be a qualified-name part, not only the whole key: `-a` would make the valid
  // key `workflow-output.-a`, but reads badly and is refused by the CRD pattern too.
  return QUALIFIED_NAME.test(outputName) && annotationKeyErrors(outputAnnotationKey(outputName)).length === 0
    ? []
    : [
        `output name "${outputName}" must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
      ];
}

/** Bytes Kubernetes counts for a set of annotations: the sum of key and value lengths. */
export function annotationBytes(annotations: Record<string, string>): number {
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) total += Buffer.byteLength(k) + Buffer.byteLength(v);
  return total;
}

/**
 * Null when the annotations fit the Kubernetes budget (apimachinery ValidateAnnotationsSize rejects
 * a total strictly greater than 256 KiB), else the error text.
 */
export function annotationBudgetError(annotations: Record<string, string>): string | null {
  const total = annotationBytes(annotations);
  return total > MAX_TOTAL_ANNOTATION_BYTES
    ? `annotations take ${total} bytes, more than the Kubernetes limit of ${MAX_TOTAL_ANNOTATION_BYTES}`
    : null;
}
