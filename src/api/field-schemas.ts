// Schemas of the fields several kinds share: values and files, conditions, outputs, the Workflow a
// call names and what it is given, environment variables and a step's sandbox limits.
import * as L from '../limits.js';
import * as P from './patterns.js';
import { arrayOf, bool, int, keysMatch, mapOf, obj, str, type Schema } from './schema-helpers.js';

export const expressionValue = (description: string): Schema =>
  str(`${description} May hold \${{ }} expressions.`, { maxLength: L.MAX_VALUE_LENGTH });

export const time = (description: string): Schema => str(description, { format: 'date-time' });

/** Files by relative path (docs/design.md §4: $KRT_INPUT, $KRT_OUTPUT_DIR); bounded in count and bytes. */
export const files = (description: string): Schema =>
  mapOf(
    `${description} Keys are relative paths; at most ${L.MAX_FILES} files of ${L.MAX_FILES_BYTES} bytes in all.`,
    str('The content of the file.', { maxLength: L.MAX_FILES_BYTES }),
    {
      maxProperties: L.MAX_FILES,
      'x-kubernetes-validations': [
        keysMatch(P.FILE_PATH_PATTERN, 'file paths must match ' + P.FILE_PATH_PATTERN),
      ],
    },
  );

export const conditionSchema: Schema = obj(
  'A condition in the Kubernetes convention (metav1.Condition).',
  {
    type: str('Type of condition in CamelCase, such as Ready or Succeeded.', {
      maxLength: L.MAX_CONDITION_TYPE_LENGTH,
    }),
    status: str('True, False or Unknown.', { enum: ['True', 'False', 'Unknown'] }),
    reason: str('Machine-readable CamelCase reason for the last transition.', {
      maxLength: L.MAX_CONDITION_REASON_LENGTH,
    }),
    message: str('Human-readable details about the last transition.', {
      maxLength: L.MAX_CONDITION_MESSAGE_LENGTH,
    }),
    observedGeneration: int('The .metadata.generation this condition was set from.', { minimum: 0 }),
    lastTransitionTime: time('When the condition last changed status.'),
  },
  { required: ['type', 'status'] },
);

export const conditions: Schema = arrayOf(
  'Observations of the object, in the Kubernetes convention.',
  conditionSchema,
  {
    maxItems: 16,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['type'],
  },
);

export const outputValues = (description: string): Schema =>
  mapOf(description, str('An output value.', { maxLength: L.MAX_OUTPUT_VALUE_LENGTH }), {
    maxProperties: L.MAX_OUTPUTS,
  });

/** A Workflow named by a call job or a Pipeline: a DNS-1123 label. */
export function usesSchema(description: string): Schema {
  return str(description, { maxLength: L.MAX_LABEL_VALUE_LENGTH, pattern: P.WORKFLOW_NAME_PATTERN });
}

/**
 * Inputs given to a Workflow. Scalars of any type (inputs are typed string, number or boolean, and
 * GitHub Actions users write `count: 3`): a structural schema cannot say "string, number or boolean"
 * and CEL cannot see a map of untyped values, so the map keeps what it is given and the webhook
 * refuses an object or a list as a value with its own message.
 */
export function withSchema(description: string): Schema {
  return obj(description, {}, { maxProperties: L.MAX_INPUTS, 'x-kubernetes-preserve-unknown-fields': true });
}

/** A Secret's key in the step's own namespace, as a Pod's env[].valueFrom.secretKeyRef names it. */
export const secretKeySelectorSchema: Schema = obj(
  'A key of a Secret in the namespace of the run.',
  {
    name: str('Name of the Secret.', {
      minLength: 1,
      maxLength: L.MAX_OBJECT_NAME_LENGTH,
      pattern: P.SECRET_NAME_PATTERN,
    }),
    key: str('The key of the Secret whose value the variable takes.', {
      minLength: 1,
      maxLength: L.MAX_OBJECT_NAME_LENGTH,
      pattern: P.SECRET_KEY_PATTERN,
    }),
    optional: bool('A missing Secret or key gives no variable instead of failing the step.'),
  },
  { required: ['name', 'key'] },
);

/** One variable as a Pod's env lists it: a value, or a Secret's key read when the step starts. */
export function envVarSchema(valueDescription: string): Schema {
  return obj(
    'One variable.',
    {
      name: str('Variable name.', { minLength: 1, maxLength: 256, pattern: P.ENV_NAME_PATTERN }),
      value: str(valueDescription, { maxLength: L.MAX_VALUE_LENGTH }),
      valueFrom: obj('Where the value comes from when the step starts, instead of value.', {
        secretKeyRef: secretKeySelectorSchema,
      }),
    },
    { required: ['name'] },
  );
}

/**
 * What a step may ask of the sandbox beyond the agent's defaults (issue "steps isolated"); the
 * agent applies at most its own ceiling (`--step-max-*`).
 */
export const stepLimitsSchema: Schema = obj(
  "Limits of a step's sandbox, within the ceiling of the agent that runs it.",
  {
    processes: int('Processes of the step.', { minimum: 1, maximum: L.MAX_STEP_PROCESSES }),
    memoryMiB: int('MiB of address space.', { minimum: 1, maximum: L.MAX_STEP_MIB }),
    fileMiB: int('MiB of the largest file the step may write.', { minimum: 1, maximum: L.MAX_STEP_MIB }),
    openFiles: int('Open files.', { minimum: 1, maximum: L.MAX_STEP_OPEN_FILES }),
    workspaceMiB: int('MiB of the workspace and of /tmp, each.', { minimum: 1, maximum: L.MAX_STEP_MIB }),
  },
);

export const phase = (description: string, values: string[]): Schema => str(description, { enum: values });

/**
 * What steps wrote to $KRT_STATUS (status.yaml): a document kept as written, nested values and
 * conditions included; its bounds (src/limits.ts) are checked where it is read and merged.
 */
export const stepStatusValues = (description: string): Schema =>
  obj(description, {}, { maxProperties: L.MAX_OUTPUTS, 'x-kubernetes-preserve-unknown-fields': true });
