// The container parts of the API (docs/runtimes.md): what a step of the `kubernetes` runtime runs,
// where its Pod may go and as whom. Shared by the Workflow's steps and jobs, and by the Run that
// carries them to the Pod executor.
import * as L from '../limits.js';
import * as P from './patterns.js';
import { arrayOf, int, keysMatch, mapOf, obj, str, type Schema } from './schema-helpers.js';

const quantity = (description: string): Schema =>
  str(description, { maxLength: 64, pattern: P.QUANTITY_PATTERN });

const cpuMemory = (description: string): Schema =>
  obj(description, {
    cpu: quantity('CPU, such as 250m or 1.'),
    memory: quantity('Memory, such as 64Mi or 1Gi.'),
  });

export const imageSchema: Schema = str(
  'Container image the step runs in (runs-on: kubernetes), such as registry.example/tools:1.2.',
  { minLength: 1, maxLength: 512, pattern: P.IMAGE_PATTERN },
);

const words = (description: string): Schema =>
  arrayOf(
    description,
    str('One word; may hold ${{ }} expressions, placed as data (no shell).', {
      maxLength: L.MAX_VALUE_LENGTH,
    }),
    { maxItems: 64 },
  );

export const commandSchema = words(
  "The executable and its first arguments, instead of the image's entrypoint.",
);
export const argsSchema = words("Arguments to the command (or to the image's entrypoint).");
export const workingDirSchema = str('Working directory of the container.', {
  maxLength: 1024,
  pattern: '^/',
});
export const resourcesSchema: Schema = obj('Compute resources of the step container.', {
  requests: cpuMemory('What the scheduler reserves for the step.'),
  limits: cpuMemory('What the step may use at most.'),
});

export const serviceAccountNameSchema: Schema = str(
  "Service account of the job's step Pods (runs-on: kubernetes); the namespace's default when unset.",
  { maxLength: L.MAX_OBJECT_NAME_LENGTH, pattern: P.SECRET_NAME_PATTERN },
);

export const nodeSelectorSchema: Schema = mapOf(
  "Node labels a step Pod's node must have.",
  str('A label value.', { maxLength: L.MAX_LABEL_VALUE_LENGTH }),
  {
    maxProperties: 32,
    'x-kubernetes-validations': [keysMatch(P.LABEL_KEY_PATTERN, 'node selector keys must be label keys')],
  },
);

export const tolerationsSchema: Schema = arrayOf(
  'Taints the step Pods tolerate, as in a Pod spec.',
  obj('One toleration.', {
    key: str('The taint key; empty with operator Exists matches every taint.', { maxLength: 316 }),
    operator: str('Exists or Equal (the default).', { enum: ['Exists', 'Equal'] }),
    value: str('The taint value, for Equal.', { maxLength: L.MAX_LABEL_VALUE_LENGTH }),
    effect: str('NoSchedule, PreferNoSchedule or NoExecute; empty matches all.', {
      enum: ['NoSchedule', 'PreferNoSchedule', 'NoExecute'],
    }),
    tolerationSeconds: int('For NoExecute: seconds the Pod stays bound after the taint appears.', {
      minimum: 0,
    }),
  }),
  { maxItems: 32 },
);

/** What a Run of the kubernetes runtime carries to the Pod executor. */
export const runContainerSchema: Schema = obj(
  'The container that runs this step (runtime kubernetes): the image, and the command when not a script.',
  {
    image: imageSchema,
    command: commandSchema,
    args: argsSchema,
    workingDir: workingDirSchema,
    resources: resourcesSchema,
    serviceAccountName: serviceAccountNameSchema,
    nodeSelector: nodeSelectorSchema,
    tolerations: tolerationsSchema,
  },
  { required: ['image'] },
);
