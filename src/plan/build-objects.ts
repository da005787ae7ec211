// The objects a WorkflowRun creates, with deterministic names, owner references and labels.
import type { JobSpec, ObjectMeta, Run, StepSpec, WorkflowRun, WorkflowRunSpec } from '../api/types.js';
import { API_VERSION } from '../api/crds.js';
import { controllerReference } from '../api/objects.js';
import {
  LABEL_CALL_JOB,
  LABEL_JOB,
  LABEL_PARENT_UID,
  LABEL_STEP,
  LABEL_WORKFLOW,
  LABEL_WORKFLOWRUN_UID,
} from '../labels.js';
import { ANNOTATION_CREATOR } from '../validate/creator.js';
import type { Materialized } from '../render/materialize.js';

export function ownerReference(run: WorkflowRun) {
  return controllerReference({ ...run, apiVersion: API_VERSION, kind: 'WorkflowRun' });
}

/** A WorkflowRun's snapshot: the spec it runs from, frozen when the run began. */
export interface Snapshot {
  apiVersion: 'apps/v1';
  kind: 'ControllerRevision';
  metadata: ObjectMeta;
  data?: { spec?: WorkflowRunSpec };
  revision: number;
}

export function buildSnapshot(run: WorkflowRun, name: string, spec: WorkflowRunSpec): Snapshot {
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name,
      labels: { [LABEL_WORKFLOWRUN_UID]: run.metadata.uid ?? '' },
      ownerReferences: [ownerReference(run)],
    },
    data: { spec },
    revision: 1,
  };
}

export type RunEnv = NonNullable<Run['spec']['env']>;
export type RunContainer = NonNullable<Run['spec']['container']>;

/**
 * The container a step of the kubernetes runtime runs in: the step's image, command and resources
 * with the job's Pod settings. `render` places values in command, args and workingDir as data: an
 * exec-form word is one argument whatever it holds, no shell reads it.
 */
export function runContainer(
  job: JobSpec,
  step: StepSpec,
  render: (s: string) => string,
): RunContainer | undefined {
  if (step.image === undefined) return undefined;
  return {
    image: step.image,
    ...(step.command ? { command: step.command.map(render) } : {}),
    ...(step.args ? { args: step.args.map(render) } : {}),
    ...(step.workingDir ? { workingDir: render(step.workingDir) } : {}),
    ...(step.resources ? { resources: step.resources } : {}),
    ...(job.serviceAccountName ? { serviceAccountName: job.serviceAccountName } : {}),
    ...(job.nodeSelector ? { nodeSelector: job.nodeSelector } : {}),
    ...(job.tolerations ? { tolerations: job.tolerations } : {}),
    ...(job.volumes ? { volumes: job.volumes } : {}),
    ...(step.volumeMounts ? { volumeMounts: step.volumeMounts } : {}),
    ...(step.envFrom ? { envFrom: step.envFrom } : {}),
  };
}

export function buildRun(
  owner: WorkflowRun,
  jobName: string,
  job: JobSpec,
  step: StepSpec,
  name: string,
  script: string | undefined,
  env: RunEnv,
  files: { input: Record<string, string>; output: Record<string, string> } = { input: {}, output: {} },
  container?: RunContainer,
): Run {
  const minutes = step['timeout-minutes'];
  return {
    apiVersion: API_VERSION,
    kind: 'Run',
    metadata: {
      name,
      namespace: owner.metadata.namespace,
      labels: {
        [LABEL_WORKFLOWRUN_UID]: owner.metadata.uid ?? '',
        [LABEL_JOB]: jobName,
        [LABEL_STEP]: step.name,
      },
      ownerReferences: [ownerReference(owner)],
    },
    spec: {
      runtime: job['runs-on'] ?? 'bash',
      ...(script !== undefined ? { script } : {}),
      ...(container ? { container } : {}),
      ...(env.length ? { env } : {}),
      ...(minutes ? { timeoutSeconds: minutes * 60 } : {}),
      ...(step.limits ? { limits: step.limits } : {}),
      ...(Object.keys(files.input).length ? { inputFiles: files.input } : {}),
      ...(Object.keys(files.output).length ? { outputFiles: files.output } : {}),
    },
  };
}

/** The child's frozen output contract, and its root's creator, in whose name its Runs act too. */
function childAnnotations(
  owner: WorkflowRun,
  rendered: Materialized,
): { annotations?: Record<string, string> } {
  const creator = owner.metadata.annotations?.[ANNOTATION_CREATOR];
  const annotations = {
    ...rendered.annotations,
    ...(creator !== undefined ? { [ANNOTATION_CREATOR]: creator } : {}),
  };
  return Object.keys(annotations).length ? { annotations } : {};
}

export function buildChild(
  owner: WorkflowRun,
  jobName: string,
  name: string,
  workflow: string,
  rendered: Materialized,
): WorkflowRun {
  return {
    apiVersion: API_VERSION,
    kind: 'WorkflowRun',
    metadata: {
      name,
      namespace: owner.metadata.namespace,
      labels: {
        [LABEL_PARENT_UID]: owner.metadata.uid ?? '',
        [LABEL_CALL_JOB]: jobName,
        [LABEL_WORKFLOW]: workflow,
      },
      ...childAnnotations(owner, rendered),
      ownerReferences: [ownerReference(owner)],
    },
    spec: { jobs: rendered.jobs },
  };
}
