// The Pod that executes one Run of the kubernetes runtime (docs/runtimes.md), as pure functions: the
// Pod made from the Run, and what an observed Pod says about the step. The step's files come in
// through an init container of the project's image (`prepare`), the step runs as the next init
// container (so its failure ends the Pod and nothing after it runs), and a `report` container of the
// project's image prints what the step wrote to its own log, which the executor reads through
// pods/log: the step Pod needs no API rights of its own.
import type { Run } from '../api/types.js';
import { LABEL_RUN, LABEL_RUN_UID } from '../labels.js';
import { API_VERSION } from '../api/crds.js';

export const STEP_CONTAINER = 'step';
export const PREPARE_CONTAINER = 'prepare';
export const REPORT_CONTAINER = 'report';
/** The user every container of a step Pod runs as, unless its image's own user is numeric and not root. */
export const STEP_UID = 65532;
/** One line of the reporter's log starts with this; the JSON after it is the step's result. */
export const REPORT_PREFIX = 'KRT-RESULT ';
/** Chunks of the prepared files per variable: an environment string must stay below 128 KiB. */
export const PREPARE_CHUNK = 96 * 1024;

/** Where a container step finds the KRT_* files; the /kratix paths are Kratix's own. */
export const POD_PATHS = {
  script: '/krt/meta/script',
  output: '/krt/meta/output',
  workspace: '/krt/workspace',
  input: '/kratix/input',
  outputDir: '/kratix/output',
  control: '/kratix/metadata/workflow-control.yaml',
  status: '/kratix/metadata/status.yaml',
} as const;

/** What `prepare` writes: the script (if any) and the files of $KRT_INPUT and $KRT_OUTPUT_DIR. */
export interface Prepared {
  script?: string;
  input: Record<string, string>;
  output: Record<string, string>;
}

/** What `report` prints: each file's text, or its size when it is over its bound. */
export interface Report {
  output: string | { bytes: number };
  control: string | { bytes: number };
  status: string | { bytes: number };
  files: { files: Record<string, string> } | { error: string };
}

export interface PodOptions {
  /** The project's image: runs `prepare` and `report`. */
  helperImage: string;
  graceSeconds: number;
}

/** The Pod of a Run: named like it, in its namespace, so there is never a second one for a Run. */
export function stepPodName(run: Run): string {
  return run.metadata.name ?? '';
}

const restricted = {
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
  runAsNonRoot: true,
};

/**
 * Runs the script with bash when the image has it (as the bash runtime does: no rc files, stop on
 * the first failure, also inside a pipeline), else with the image's POSIX sh, -e.
 */
const LAUNCH =
  'if command -v bash >/dev/null 2>&1; then exec bash --noprofile --norc -eo pipefail "$1"; else exec sh -e "$1"; fi';

function chunks(text: string): { name: string; value: string }[] {
  const out: { name: string; value: string }[] = [];
  for (let i = 0, n = 0; i < text.length || n === 0; i += PREPARE_CHUNK, n++)
    out.push({ name: `KRT_PREPARE_${n}`, value: text.slice(i, i + PREPARE_CHUNK) });
  return out;
}

type Container = NonNullable<Run['spec']['container']>;

const MOUNTS = [
  { name: 'krt', mountPath: '/krt' },
  { name: 'kratix', mountPath: '/kratix' },
];

/** The Pod of one container step: prepare (init), the step (init), report (main); see POD_PATHS. */
export function stepPod(run: Run, opts: PodOptions): Record<string, unknown> {
  const c = run.spec.container;
  if (!c) throw new Error(`Run ${run.metadata.name ?? ''} has no spec.container`);
  const prepared: Prepared = {
    ...(run.spec.script !== undefined ? { script: run.spec.script } : {}),
    input: run.spec.inputFiles ?? {},
    output: run.spec.outputFiles ?? {},
  };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: podMetadata(run),
    spec: {
      restartPolicy: 'Never',
      // No API token unless the job names a service account: a step has no rights of its own.
      ...(c.serviceAccountName
        ? { serviceAccountName: c.serviceAccountName, automountServiceAccountToken: true }
        : { automountServiceAccountToken: false }),
      enableServiceLinks: false,
      terminationGracePeriodSeconds: opts.graceSeconds,
      ...(run.spec.timeoutSeconds ? { activeDeadlineSeconds: run.spec.timeoutSeconds } : {}),
      ...(c.nodeSelector ? { nodeSelector: c.nodeSelector } : {}),
      ...(c.tolerations ? { tolerations: c.tolerations } : {}),
      securityContext: {
        runAsNonRoot: true,
        runAsUser: STEP_UID,
        runAsGroup: STEP_UID,
        fsGroup: STEP_UID,
        seccompProfile: { type: 'RuntimeDefault' },
      },
      // The job's own volumes after these two; admission keeps their names and mount paths apart.
      volumes: [{ name: 'krt', emptyDir: {} }, { name: 'kratix', emptyDir: {} }, ...(c.volumes ?? [])],
      initContainers: [
        helper(opts, PREPARE_CONTAINER, 'prepare', { env: chunks(JSON.stringify(prepared)) }),
        stepContainer(run, c),
      ],
      containers: [helper(opts, REPORT_CONTAINER, 'report')],
    },
  };
}

function podMetadata(run: Run): Record<string, unknown> {
  return {
    name: stepPodName(run),
    namespace: run.metadata.namespace,
    labels: {
      ...(run.metadata.labels ?? {}),
      [LABEL_RUN]: run.metadata.name ?? '',
      [LABEL_RUN_UID]: run.metadata.uid ?? '',
      'app.kubernetes.io/managed-by': 'kruntimes',
    },
    // `kubectl logs <pod>` shows the step, not the reporter.
    annotations: { 'kubectl.kubernetes.io/default-container': STEP_CONTAINER },
    ownerReferences: [
      {
        apiVersion: API_VERSION,
        kind: 'Run',
        name: run.metadata.name ?? '',
        uid: run.metadata.uid ?? '',
        controller: true,
        blockOwnerDeletion: false,
      },
    ],
  };
}

/** A helper container: the agent's own image running `kruntimes podstep <verb>`. */
function helper(opts: PodOptions, name: string, verb: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    image: opts.helperImage,
    imagePullPolicy: 'IfNotPresent',
    command: ['/usr/local/bin/kruntimes', 'podstep', verb],
    volumeMounts: MOUNTS,
    securityContext: restricted,
    resources: { requests: { cpu: '10m', memory: '32Mi' }, limits: { memory: '128Mi' } },
    ...extra,
  };
}

/** The step itself: the job's image, its script through the launcher or its own command. */
function stepContainer(run: Run, c: Container): Record<string, unknown> {
  const env = [
    { name: 'HOME', value: POD_PATHS.workspace },
    { name: 'KRT_OUTPUT', value: POD_PATHS.output },
    { name: 'KRUNTIME_OUTPUTS', value: POD_PATHS.output },
    { name: 'KRT_CONTROL', value: POD_PATHS.control },
    { name: 'KRT_STATUS', value: POD_PATHS.status },
    { name: 'KRT_WORKSPACE', value: POD_PATHS.workspace },
    { name: 'KRT_INPUT', value: POD_PATHS.input },
    { name: 'KRT_OUTPUT_DIR', value: POD_PATHS.outputDir },
    { name: 'KRT_RUN', value: run.metadata.name ?? '' },
    { name: 'KRT_ATTEMPT', value: String(run.status?.attempts ?? 1) },
    // A Secret's value stays in the Secret: the kubelet reads it, not the executor or the Pod object.
    ...(run.spec.env ?? []).map((e) =>
      e.valueFrom?.secretKeyRef
        ? { name: e.name, valueFrom: e.valueFrom }
        : { name: e.name, value: e.value ?? '' },
    ),
  ];
  const script = run.spec.script !== undefined;
  return {
    name: STEP_CONTAINER,
    image: c.image,
    imagePullPolicy: 'IfNotPresent',
    ...(script
      ? { command: ['/bin/sh', '-c', LAUNCH, 'krt-step', POD_PATHS.script] }
      : {
          ...(c.command ? { command: c.command } : {}),
          ...(c.args ? { args: c.args } : {}),
        }),
    ...(c.workingDir ? { workingDir: c.workingDir } : script ? { workingDir: POD_PATHS.workspace } : {}),
    env,
    ...(c.envFrom ? { envFrom: c.envFrom } : {}),
    volumeMounts: [...MOUNTS, ...(c.volumeMounts ?? [])],
    securityContext: restricted,
    ...(c.resources ? { resources: c.resources } : {}),
  };
}

/** The Secrets a step Pod reads as a whole (envFrom, volumes): their values are masked like secretEnv's. */
export function wholeSecrets(run: Run): string[] {
  const c = run.spec.container;
  const names = new Set<string>();
  for (const e of c?.envFrom ?? []) if (e.secretRef?.name) names.add(e.secretRef.name);
  for (const v of c?.volumes ?? []) if (v.secret?.secretName) names.add(v.secret.secretName);
  return [...names];
}

/** The prepared files from the variables `stepPod` gave `prepare`. */
export function readPrepared(env: Record<string, string | undefined>): Prepared {
  let text = '';
  for (let n = 0; env[`KRT_PREPARE_${n}`] !== undefined; n++) text += env[`KRT_PREPARE_${n}`];
  return JSON.parse(text) as Prepared;
}

const bounded = (v: unknown): v is string | { bytes: number } =>
  typeof v === 'string' ||
  (!!v && typeof v === 'object' && typeof (v as { bytes?: unknown }).bytes === 'number');

/**
 * The step's result from the reporter's log: its last line that starts with REPORT_PREFIX. The step
 * could have written anything into the files the reporter read, but only its own result: the shape
 * is checked, the values are bounded again where they are parsed (src/runtime/lifecycle.ts).
 */
export function parseReport(log: string): Report | { error: string } {
  const line = log
    .split('\n')
    .reverse()
    .find((l) => l.startsWith(REPORT_PREFIX));
  if (!line) return { error: 'the reporter printed no result' };
  let r: unknown;
  try {
    r = JSON.parse(line.slice(REPORT_PREFIX.length));
  } catch {
    return { error: 'the reporter printed a result that is not JSON' };
  }
  const o = r as Partial<Report> | null;
  const files = o?.files as { files?: unknown; error?: unknown } | undefined;
  const filesOk =
    !!files &&
    (typeof files.error === 'string' ||
      (!!files.files &&
        typeof files.files === 'object' &&
        Object.values(files.files as object).every((v) => typeof v === 'string')));
  if (!o || !bounded(o.output) || !bounded(o.control) || !bounded(o.status) || !filesOk)
    return { error: 'the reporter printed a result of the wrong shape' };
  return o as Report;
}
