// The container parts of the API (docs/runtimes.md): what a step of the `kubernetes` runtime runs,
// where its Pod may go and as whom. Shared by the Workflow's steps and jobs, and by the Run that
// carries them to the Pod executor.
import * as L from '../limits.js';
import * as P from './patterns.js';
import { arrayOf, bool, int, keysMatch, mapOf, obj, str, type Schema } from './schema-helpers.js';

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

const dnsLabel = (description: string): Schema =>
  str(description, { minLength: 1, maxLength: L.MAX_LABEL_VALUE_LENGTH, pattern: P.WORKFLOW_NAME_PATTERN });
const objectName = (description: string): Schema =>
  str(description, { minLength: 1, maxLength: L.MAX_OBJECT_NAME_LENGTH, pattern: P.SECRET_NAME_PATTERN });
const keyToPath = arrayOf(
  'Keys to project, each to a relative path; all keys when unset.',
  obj(
    'One key.',
    {
      key: str('The key.', {
        minLength: 1,
        maxLength: L.MAX_OBJECT_NAME_LENGTH,
        pattern: P.SECRET_KEY_PATTERN,
      }),
      path: str('Relative path of the file.', {
        minLength: 1,
        maxLength: 1024,
        pattern: P.FILE_PATH_PATTERN,
      }),
    },
    { required: ['key', 'path'] },
  ),
  { maxItems: 64 },
);

/**
 * Volumes a container step may mount: a ConfigMap, a Secret or an empty directory of its namespace,
 * as in a Pod. Nothing of the node (no hostPath): a step Pod meets Pod Security "restricted".
 */
export const volumesSchema: Schema = arrayOf(
  "Volumes of the job's step Pods (runs-on: kubernetes): a ConfigMap, a Secret or an empty directory.",
  obj(
    'One volume: exactly one of configMap, secret, emptyDir.',
    {
      name: dnsLabel('Name of the volume, unique in the job; volumeMounts name it.'),
      configMap: obj(
        'A ConfigMap of the namespace of the run.',
        {
          name: objectName('Name of the ConfigMap.'),
          items: keyToPath,
          optional: bool('Missing is not an error.'),
        },
        { required: ['name'] },
      ),
      secret: obj(
        'A Secret of the namespace of the run; its values are masked in logs.',
        {
          secretName: objectName('Name of the Secret.'),
          items: keyToPath,
          optional: bool('Missing is not an error.'),
        },
        { required: ['secretName'] },
      ),
      emptyDir: obj('An empty directory for the Pod, shared by nothing else.', {
        medium: str("Memory for a tmpfs; the node's disk when unset.", { enum: ['', 'Memory'] }),
        sizeLimit: quantity('At most this much.'),
      }),
    },
    { required: ['name'] },
  ),
  { maxItems: 16 },
);

export const volumeMountsSchema: Schema = arrayOf(
  "Volumes of the job mounted into the step's container.",
  obj(
    'One mount.',
    {
      name: dnsLabel('The volume (spec.volumes of the job, or of a Kratix-shaped pipeline).'),
      mountPath: str('Absolute path in the container; not under /krt or /kratix.', {
        minLength: 2,
        maxLength: 1024,
        pattern: '^/',
      }),
      subPath: str('A path inside the volume to mount instead of its root.', {
        maxLength: 1024,
        pattern: P.FILE_PATH_PATTERN,
      }),
      readOnly: bool('Mounted read-only.'),
    },
    { required: ['name', 'mountPath'] },
  ),
  { maxItems: 16 },
);

export const envFromSchema: Schema = arrayOf(
  'Every key of a ConfigMap or a Secret of the namespace as variables, as in a Pod.',
  obj('One source: exactly one of configMapRef, secretRef.', {
    prefix: str('Put before each key.', { maxLength: 64, pattern: '^[A-Za-z_][A-Za-z0-9_]*$' }),
    configMapRef: obj(
      'A ConfigMap.',
      { name: objectName('Its name.'), optional: bool('Missing is not an error.') },
      {
        required: ['name'],
      },
    ),
    secretRef: obj(
      'A Secret; its values are masked in logs.',
      {
        name: objectName('Its name.'),
        optional: bool('Missing is not an error.'),
      },
      { required: ['name'] },
    ),
  }),
  { maxItems: 16 },
);

/**
 * The fields of a step that runs in a container of its own (runs-on kubernetes): one list for a
 * Workflow's step, a Promise pipeline's container and the Run, and what admission refuses on a step
 * of another runtime.
 */
export const containerStepSchemas = {
  image: imageSchema,
  command: commandSchema,
  args: argsSchema,
  workingDir: workingDirSchema,
  resources: resourcesSchema,
  volumeMounts: volumeMountsSchema,
  envFrom: envFromSchema,
};
export const CONTAINER_STEP_FIELDS = Object.keys(
  containerStepSchemas,
) as (keyof typeof containerStepSchemas)[];

/** What a job of runs-on kubernetes sets for the Pods of its steps. */
export const podSchemas = {
  serviceAccountName: serviceAccountNameSchema,
  nodeSelector: nodeSelectorSchema,
  tolerations: tolerationsSchema,
  volumes: volumesSchema,
};
export const POD_FIELDS = Object.keys(podSchemas) as (keyof typeof podSchemas)[];

/** What a Run of the kubernetes runtime carries to the Pod executor. */
export const runContainerSchema: Schema = obj(
  'The container that runs this step (runtime kubernetes): the image, and the command when not a script.',
  { ...containerStepSchemas, ...podSchemas },
  { required: ['image'] },
);
