// Generated from src/api/schema.ts by `npm run gen`. Do not edit.

export interface KruntimesApi {
  StepSpec?: StepSpec;
  JobSpec?: JobSpec;
  Condition?: Condition;
  JobStatus?: JobStatus;
  WorkflowSpec?: WorkflowSpec;
  WorkflowStatus?: WorkflowStatus;
  WorkflowRunSpec?: WorkflowRunSpec;
  WorkflowRunStatus?: WorkflowRunStatus;
  RunSpec?: RunSpec;
  RunStatus?: RunStatus;
  Pipeline?: Pipeline;
  PipelineContainer?: PipelineContainer;
  PromiseSpec?: PromiseSpec;
  PromiseStatus?: PromiseStatus;
  WorkSpec?: WorkSpec;
  WorkStatus?: WorkStatus;
  AppliedObject?: AppliedObject;
  PipelineStatus?: PipelineStatus;
  ResourceWorkflows?: ResourceWorkflows;
  ResourceDelete?: ResourceDelete;
  ResourceStatus?: ResourceStatus;
}
/**
 * One step of an inline job: a script run by the job runtime, or a container (runs-on: kubernetes).
 */
export interface StepSpec {
  /**
   * Name of the step, unique in its job; label-value rules. Read by later steps as steps.<name>.
   */
  name: string;
  /**
   * The script. May hold ${{ }} expressions; prefer passing values through env.
   */
  run?: string;
  /**
   * Container image the step runs in (runs-on: kubernetes), such as registry.example/tools:1.2.
   */
  image?: string;
  /**
   * The executable and its first arguments, instead of the image's entrypoint.
   *
   * @maxItems 64
   *
   * Items: One word; may hold ${{ }} expressions, placed as data (no shell).
   */
  command?: string[];
  /**
   * Arguments to the command (or to the image's entrypoint).
   *
   * @maxItems 64
   *
   * Items: One word; may hold ${{ }} expressions, placed as data (no shell).
   */
  args?: string[];
  /**
   * Working directory of the container.
   */
  workingDir?: string;
  /**
   * Compute resources of the step container.
   */
  resources?: {
    /**
     * What the scheduler reserves for the step.
     */
    requests?: {
      /**
       * CPU, such as 250m or 1.
       */
      cpu?: string;
      /**
       * Memory, such as 64Mi or 1Gi.
       */
      memory?: string;
    };
    /**
     * What the step may use at most.
     */
    limits?: {
      /**
       * CPU, such as 250m or 1.
       */
      cpu?: string;
      /**
       * Memory, such as 64Mi or 1Gi.
       */
      memory?: string;
    };
  };
  /**
   * Volumes of the job mounted into the step's container.
   *
   * @maxItems 16
   *
   * Items: One mount.
   */
  volumeMounts?: {
    /**
     * The volume (spec.volumes of the job, or of a Kratix-shaped pipeline).
     */
    name: string;
    /**
     * Absolute path in the container; not under /krt or /kratix.
     */
    mountPath: string;
    /**
     * A path inside the volume to mount instead of its root.
     */
    subPath?: string;
    /**
     * Mounted read-only.
     */
    readOnly?: boolean;
  }[];
  /**
   * Every key of a ConfigMap or a Secret of the namespace as variables, as in a Pod.
   *
   * @maxItems 16
   *
   * Items: One source: exactly one of configMapRef, secretRef.
   */
  envFrom?: {
    /**
     * Put before each key.
     */
    prefix?: string;
    /**
     * A ConfigMap.
     */
    configMapRef?: {
      /**
       * Its name.
       */
      name: string;
      /**
       * Missing is not an error.
       */
      optional?: boolean;
    };
    /**
     * A Secret; its values are masked in logs.
     */
    secretRef?: {
      /**
       * Its name.
       */
      name: string;
      /**
       * Missing is not an error.
       */
      optional?: boolean;
    };
  }[];
  /**
   * Environment variables of the step.
   */
  env?: {
    /**
     * An environment value. May hold ${{ }} expressions.
     */
    [k: string]: string;
  };
  /**
   * Environment variables taken from Secrets of the namespace of the run when the step starts. Their values never enter a Run object and are masked in logs.
   */
  secretEnv?: {
    /**
     * A key of a Secret in the namespace of the run.
     */
    [k: string]: {
      /**
       * Name of the Secret.
       */
      name: string;
      /**
       * The key of the Secret whose value the variable takes.
       */
      key: string;
      /**
       * A missing Secret or key gives no variable instead of failing the step.
       */
      optional?: boolean;
    };
  };
  /**
   * Limits of a step's sandbox, within the ceiling of the agent that runs it.
   */
  limits?: {
    /**
     * Processes of the step.
     */
    processes?: number;
    /**
     * MiB of address space.
     */
    memoryMiB?: number;
    /**
     * MiB of the largest file the step may write.
     */
    fileMiB?: number;
    /**
     * Open files.
     */
    openFiles?: number;
    /**
     * MiB of the workspace and of /tmp, each.
     */
    workspaceMiB?: number;
  };
  /**
   * Minutes the step may run before it is stopped with phase Timeout.
   */
  'timeout-minutes'?: number;
}
/**
 * A job: either inline (runs-on and steps) or a call of a reusable Workflow (uses and optional with).
 */
export interface JobSpec {
  /**
   * Jobs that must succeed before this one starts.
   *
   * @maxItems 100
   *
   * Items: A job name.
   */
  needs?: string[];
  /**
   * Runtime that executes the steps of an inline job, such as bash.
   */
  'runs-on'?: string;
  /**
   * Steps of an inline job, run in order.
   *
   * @minItems 1
   * @maxItems 50
   */
  steps?: StepSpec[];
  /**
   * Outputs of an inline job, evaluated after its steps succeed; read downstream as jobs.<job>.outputs.<name>.
   */
  outputs?: {
    /**
     * An output expression, such as ${{ steps.package.outputs.env }}. May hold ${{ }} expressions.
     */
    [k: string]: string;
  };
  /**
   * Service account of the job's step Pods (runs-on: kubernetes); the namespace's default when unset.
   */
  serviceAccountName?: string;
  /**
   * Node labels a step Pod's node must have.
   */
  nodeSelector?: {
    /**
     * A label value.
     */
    [k: string]: string;
  };
  /**
   * Taints the step Pods tolerate, as in a Pod spec.
   *
   * @maxItems 32
   *
   * Items: One toleration.
   */
  tolerations?: {
    /**
     * The taint key; empty with operator Exists matches every taint.
     */
    key?: string;
    /**
     * Exists or Equal (the default).
     */
    operator?: 'Exists' | 'Equal';
    /**
     * The taint value, for Equal.
     */
    value?: string;
    /**
     * NoSchedule, PreferNoSchedule or NoExecute; empty matches all.
     */
    effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
    /**
     * For NoExecute: seconds the Pod stays bound after the taint appears.
     */
    tolerationSeconds?: number;
  }[];
  /**
   * Volumes of the job's step Pods (runs-on: kubernetes): a ConfigMap, a Secret or an empty directory.
   *
   * @maxItems 16
   *
   * Items: One volume: exactly one of configMap, secret, emptyDir.
   */
  volumes?: {
    /**
     * Name of the volume, unique in the job; volumeMounts name it.
     */
    name: string;
    /**
     * A ConfigMap of the namespace of the run.
     */
    configMap?: {
      /**
       * Name of the ConfigMap.
       */
      name: string;
      /**
       * Keys to project, each to a relative path; all keys when unset.
       *
       * @maxItems 64
       *
       * Items: One key.
       */
      items?: {
        /**
         * The key.
         */
        key: string;
        /**
         * Relative path of the file.
         */
        path: string;
      }[];
      /**
       * Missing is not an error.
       */
      optional?: boolean;
    };
    /**
     * A Secret of the namespace of the run; its values are masked in logs.
     */
    secret?: {
      /**
       * Name of the Secret.
       */
      secretName: string;
      /**
       * Keys to project, each to a relative path; all keys when unset.
       *
       * @maxItems 64
       *
       * Items: One key.
       */
      items?: {
        /**
         * The key.
         */
        key: string;
        /**
         * Relative path of the file.
         */
        path: string;
      }[];
      /**
       * Missing is not an error.
       */
      optional?: boolean;
    };
    /**
     * An empty directory for the Pod, shared by nothing else.
     */
    emptyDir?: {
      /**
       * Memory for a tmpfs; the node's disk when unset.
       */
      medium?: '' | 'Memory';
      /**
       * At most this much.
       */
      sizeLimit?: string;
    };
  }[];
  /**
   * Name of the reusable Workflow this call job runs, in the same namespace.
   */
  uses?: string;
  /**
   * Inputs given to the called Workflow: strings (which may hold ${{ }} expressions), numbers or booleans.
   */
  with?: {
    [k: string]: unknown;
  };
}
/**
 * A condition in the Kubernetes convention (metav1.Condition).
 */
export interface Condition {
  /**
   * Type of condition in CamelCase, such as Ready or Succeeded.
   */
  type: string;
  /**
   * True, False or Unknown.
   */
  status: 'True' | 'False' | 'Unknown';
  /**
   * Machine-readable CamelCase reason for the last transition.
   */
  reason?: string;
  /**
   * Human-readable details about the last transition.
   */
  message?: string;
  /**
   * The .metadata.generation this condition was set from.
   */
  observedGeneration?: number;
  /**
   * When the condition last changed status.
   */
  lastTransitionTime?: string;
}
/**
 * Observed state of one job.
 */
export interface JobStatus {
  /**
   * Phase of the job.
   */
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Skipped' | 'Cancelled' | 'Suspended';
  /**
   * The child WorkflowRun of a call job.
   */
  workflowRunName?: string;
  /**
   * Steps of an inline job.
   *
   * @maxItems 50
   *
   * Items: Observed state of one step.
   */
  steps?: {
    /**
     * Step name.
     */
    name?: string;
    /**
     * Phase of the step Run.
     */
    phase?: 'Pending' | 'Scheduled' | 'Running' | 'Succeeded' | 'Failed' | 'Timeout' | 'Cancelled';
    /**
     * The Run that executes the step.
     */
    runName?: string;
    /**
     * Outputs the step wrote.
     */
    outputs?: {
      /**
       * An output value.
       */
      [k: string]: string;
    };
  }[];
  /**
   * Outputs of the job.
   */
  outputs?: {
    /**
     * An output value.
     */
    [k: string]: string;
  };
  /**
   * Why the job is in its phase.
   */
  message?: string;
  /**
   * When the job started.
   */
  startedAt?: string;
  /**
   * When the job ended.
   */
  finishedAt?: string;
  /**
   * Executions of the job so far.
   */
  attempts?: number;
  /**
   * When a job that asked for retryAfter is executed again.
   */
  nextRetryAt?: string;
}
/**
 * A reusable Workflow template: inputs, jobs and the outputs it exposes to callers.
 */
export interface WorkflowSpec {
  /**
   * Inputs of the template, read as inputs.<name>.
   */
  inputs?: {
    /**
     * One input.
     */
    [k: string]: {
      /**
       * Type of the value; the webhook sets string when it is left out.
       */
      type?: 'string' | 'number' | 'boolean';
      /**
       * Whether a caller must give the input (when it has no default).
       */
      required?: boolean;
      /**
       * Value used when the caller gives none.
       */
      default?: string;
      /**
       * What the input is for.
       */
      description?: string;
    };
  };
  /**
   * Outputs exposed to a caller; each is frozen into the child WorkflowRun as a kruntimes.io/workflow-output.<name> annotation.
   */
  outputs?: {
    /**
     * One output.
     */
    [k: string]: {
      /**
       * The expression, such as ${{ jobs.apply.outputs.endpoint }}. May hold ${{ }} expressions.
       */
      value: string;
      /**
       * What the output holds.
       */
      description?: string;
    };
  };
  /**
   * Jobs of the template.
   */
  jobs: {
    [k: string]: JobSpec;
  };
}
/**
 * Observed state of the Workflow.
 */
export interface WorkflowStatus {
  /**
   * The .metadata.generation last checked.
   */
  observedGeneration?: number;
  /**
   * Observations of the object, in the Kubernetes convention.
   *
   * @maxItems 16
   */
  conditions?: Condition[];
}
/**
 * One execution: inline jobs only. A template is started with `krt workflow trigger`.
 */
export interface WorkflowRunSpec {
  /**
   * Jobs of the run; immutable after creation.
   */
  jobs: {
    [k: string]: JobSpec;
  };
  /**
   * Files every step finds under $KRT_INPUT, such as the resource of a Promise pipeline as object.yaml. Keys are relative paths; at most 200 files of 262144 bytes in all.
   */
  inputFiles?: {
    /**
     * The content of the file.
     */
    [k: string]: string;
  };
  /**
   * Set to true to cancel the run; cannot be set back to false.
   */
  cancelRequested?: boolean;
  /**
   * Seconds after the run ends before it is deleted with everything it made; without it the controller default applies (--ttl-seconds-after-finished, 7 days). Child runs go with their root.
   */
  ttlSecondsAfterFinished?: number;
  /**
   * Not allowed: a WorkflowRun holds inline jobs only; use `krt workflow trigger`.
   */
  uses?: string;
  /**
   * Not allowed: a WorkflowRun holds inline jobs only; use `krt workflow trigger`.
   */
  with?: {
    /**
     * unused
     */
    [k: string]: string;
  };
}
/**
 * Observed state of the run.
 */
export interface WorkflowRunStatus {
  /**
   * Phase of the run.
   */
  phase?: 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Cancelled' | 'Suspended';
  /**
   * Jobs ended out of all jobs, as done/total.
   */
  progress?: string;
  /**
   * The ControllerRevision the run executes from.
   */
  snapshotName?: string;
  /**
   * Observed state of each job.
   */
  jobs?: {
    [k: string]: JobStatus;
  };
  /**
   * Outputs evaluated from the kruntimes.io/workflow-output.* annotations.
   */
  outputs?: {
    /**
     * An output value.
     */
    [k: string]: string;
  };
  /**
   * Observations of the object, in the Kubernetes convention.
   *
   * @maxItems 16
   */
  conditions?: Condition[];
  /**
   * Why the run is in its phase, or the message a step wrote to $KRT_STATUS.
   */
  message?: string;
  /**
   * Other keys steps wrote to $KRT_STATUS, the later step winning.
   */
  stepStatus?: {
    [k: string]: unknown;
  };
  /**
   * When the run started.
   */
  startedAt?: string;
  /**
   * When the run ended.
   */
  finishedAt?: string;
  /**
   * The .metadata.generation last reconciled.
   */
  observedGeneration?: number;
}
/**
 * One step's execution, claimed by a runtime agent (runtimed).
 */
export interface RunSpec {
  /**
   * Runtime that executes the script, such as bash.
   */
  runtime: string;
  /**
   * The rendered step script; none when the container runs its command or entrypoint.
   */
  script?: string;
  /**
   * The container that runs this step (runtime kubernetes): the image, and the command when not a script.
   */
  container?: {
    /**
     * Container image the step runs in (runs-on: kubernetes), such as registry.example/tools:1.2.
     */
    image: string;
    /**
     * The executable and its first arguments, instead of the image's entrypoint.
     *
     * @maxItems 64
     *
     * Items: One word; may hold ${{ }} expressions, placed as data (no shell).
     */
    command?: string[];
    /**
     * Arguments to the command (or to the image's entrypoint).
     *
     * @maxItems 64
     *
     * Items: One word; may hold ${{ }} expressions, placed as data (no shell).
     */
    args?: string[];
    /**
     * Working directory of the container.
     */
    workingDir?: string;
    /**
     * Compute resources of the step container.
     */
    resources?: {
      /**
       * What the scheduler reserves for the step.
       */
      requests?: {
        /**
         * CPU, such as 250m or 1.
         */
        cpu?: string;
        /**
         * Memory, such as 64Mi or 1Gi.
         */
        memory?: string;
      };
      /**
       * What the step may use at most.
       */
      limits?: {
        /**
         * CPU, such as 250m or 1.
         */
        cpu?: string;
        /**
         * Memory, such as 64Mi or 1Gi.
         */
        memory?: string;
      };
    };
    /**
     * Volumes of the job mounted into the step's container.
     *
     * @maxItems 16
     *
     * Items: One mount.
     */
    volumeMounts?: {
      /**
       * The volume (spec.volumes of the job, or of a Kratix-shaped pipeline).
       */
      name: string;
      /**
       * Absolute path in the container; not under /krt or /kratix.
       */
      mountPath: string;
      /**
       * A path inside the volume to mount instead of its root.
       */
      subPath?: string;
      /**
       * Mounted read-only.
       */
      readOnly?: boolean;
    }[];
    /**
     * Every key of a ConfigMap or a Secret of the namespace as variables, as in a Pod.
     *
     * @maxItems 16
     *
     * Items: One source: exactly one of configMapRef, secretRef.
     */
    envFrom?: {
      /**
       * Put before each key.
       */
      prefix?: string;
      /**
       * A ConfigMap.
       */
      configMapRef?: {
        /**
         * Its name.
         */
        name: string;
        /**
         * Missing is not an error.
         */
        optional?: boolean;
      };
      /**
       * A Secret; its values are masked in logs.
       */
      secretRef?: {
        /**
         * Its name.
         */
        name: string;
        /**
         * Missing is not an error.
         */
        optional?: boolean;
      };
    }[];
    /**
     * Service account of the job's step Pods (runs-on: kubernetes); the namespace's default when unset.
     */
    serviceAccountName?: string;
    /**
     * Node labels a step Pod's node must have.
     */
    nodeSelector?: {
      /**
       * A label value.
       */
      [k: string]: string;
    };
    /**
     * Taints the step Pods tolerate, as in a Pod spec.
     *
     * @maxItems 32
     *
     * Items: One toleration.
     */
    tolerations?: {
      /**
       * The taint key; empty with operator Exists matches every taint.
       */
      key?: string;
      /**
       * Exists or Equal (the default).
       */
      operator?: 'Exists' | 'Equal';
      /**
       * The taint value, for Equal.
       */
      value?: string;
      /**
       * NoSchedule, PreferNoSchedule or NoExecute; empty matches all.
       */
      effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
      /**
       * For NoExecute: seconds the Pod stays bound after the taint appears.
       */
      tolerationSeconds?: number;
    }[];
    /**
     * Volumes of the job's step Pods (runs-on: kubernetes): a ConfigMap, a Secret or an empty directory.
     *
     * @maxItems 16
     *
     * Items: One volume: exactly one of configMap, secret, emptyDir.
     */
    volumes?: {
      /**
       * Name of the volume, unique in the job; volumeMounts name it.
       */
      name: string;
      /**
       * A ConfigMap of the namespace of the run.
       */
      configMap?: {
        /**
         * Name of the ConfigMap.
         */
        name: string;
        /**
         * Keys to project, each to a relative path; all keys when unset.
         *
         * @maxItems 64
         *
         * Items: One key.
         */
        items?: {
          /**
           * The key.
           */
          key: string;
          /**
           * Relative path of the file.
           */
          path: string;
        }[];
        /**
         * Missing is not an error.
         */
        optional?: boolean;
      };
      /**
       * A Secret of the namespace of the run; its values are masked in logs.
       */
      secret?: {
        /**
         * Name of the Secret.
         */
        secretName: string;
        /**
         * Keys to project, each to a relative path; all keys when unset.
         *
         * @maxItems 64
         *
         * Items: One key.
         */
        items?: {
          /**
           * The key.
           */
          key: string;
          /**
           * Relative path of the file.
           */
          path: string;
        }[];
        /**
         * Missing is not an error.
         */
        optional?: boolean;
      };
      /**
       * An empty directory for the Pod, shared by nothing else.
       */
      emptyDir?: {
        /**
         * Memory for a tmpfs; the node's disk when unset.
         */
        medium?: '' | 'Memory';
        /**
         * At most this much.
         */
        sizeLimit?: string;
      };
    }[];
  };
  /**
   * Environment variables of the step.
   *
   * @maxItems 100
   *
   * Items: One variable.
   */
  env?: {
    /**
     * Variable name.
     */
    name: string;
    /**
     * Variable value.
     */
    value?: string;
    /**
     * Where the value comes from when the step starts, instead of value.
     */
    valueFrom?: {
      /**
       * A key of a Secret in the namespace of the run.
       */
      secretKeyRef?: {
        /**
         * Name of the Secret.
         */
        name: string;
        /**
         * The key of the Secret whose value the variable takes.
         */
        key: string;
        /**
         * A missing Secret or key gives no variable instead of failing the step.
         */
        optional?: boolean;
      };
    };
  }[];
  /**
   * Seconds the script may run before it is stopped with phase Timeout.
   */
  timeoutSeconds?: number;
  /**
   * Limits of a step's sandbox, within the ceiling of the agent that runs it.
   */
  limits?: {
    /**
     * Processes of the step.
     */
    processes?: number;
    /**
     * MiB of address space.
     */
    memoryMiB?: number;
    /**
     * MiB of the largest file the step may write.
     */
    fileMiB?: number;
    /**
     * Open files.
     */
    openFiles?: number;
    /**
     * MiB of the workspace and of /tmp, each.
     */
    workspaceMiB?: number;
  };
  /**
   * Set to true to stop the script; cannot be set back to false.
   */
  cancelRequested?: boolean;
  /**
   * Files the script finds under $KRT_INPUT. Keys are relative paths; at most 200 files of 262144 bytes in all.
   */
  inputFiles?: {
    /**
     * The content of the file.
     */
    [k: string]: string;
  };
  /**
   * Files the script finds in $KRT_OUTPUT_DIR: what earlier steps of its run wrote there. Keys are relative paths; at most 200 files of 262144 bytes in all.
   */
  outputFiles?: {
    /**
     * The content of the file.
     */
    [k: string]: string;
  };
}
/**
 * Observed state of the Run.
 */
export interface RunStatus {
  /**
   * Phase of the Run.
   */
  phase?: 'Pending' | 'Scheduled' | 'Running' | 'Succeeded' | 'Failed' | 'Timeout' | 'Cancelled';
  /**
   * Identity of the agent that claimed the Run.
   */
  assignedTo?: string;
  /**
   * Times the Run was claimed.
   */
  attempts?: number;
  /**
   * When the script started.
   */
  startTime?: string;
  /**
   * When the script ended.
   */
  completionTime?: string;
  /**
   * Last sign of life from the agent running it.
   */
  heartbeatTime?: string;
  /**
   * Exit code of the script.
   */
  exitCode?: number;
  /**
   * Machine-readable reason of the phase, such as NonZeroExit or OutputsTooLarge.
   */
  reason?: string;
  /**
   * Human-readable details.
   */
  message?: string;
  /**
   * Outputs the script wrote to $KRT_OUTPUT.
   */
  outputs?: {
    /**
     * An output value.
     */
    [k: string]: string;
  };
  /**
   * The last few KiB of output; full logs stay with runtimed.
   */
  logTail?: string;
  /**
   * Workflow control the script wrote to $KRT_CONTROL.
   */
  control?: {
    /**
     * Suspend the job until the suspend label is removed.
     */
    suspend?: boolean;
    /**
     * Re-execute the job after this duration, such as 10m.
     */
    retryAfter?: string;
    /**
     * Why.
     */
    message?: string;
  };
  /**
   * What the script wrote to $KRT_STATUS (status.yaml).
   */
  stepStatus?: {
    [k: string]: unknown;
  };
  /**
   * The files in $KRT_OUTPUT_DIR when the script ended (Kubernetes manifests). Keys are relative paths; at most 200 files of 262144 bytes in all.
   */
  outputFiles?: {
    /**
     * The content of the file.
     */
    [k: string]: string;
  };
}
/**
 * A Pipeline: inline jobs run as one WorkflowRun owned by the resource (steps of a job run in order, like Kratix containers).
 */
export interface Pipeline {
  /**
   * kruntimes.io/v1alpha1.
   */
  apiVersion?: 'kruntimes.io/v1alpha1';
  /**
   * Pipeline.
   */
  kind: 'Pipeline';
  /**
   * Names the pipeline.
   */
  metadata: {
    /**
     * Name of the pipeline, unique in its workflow; a DNS-1123 label.
     */
    name: string;
  };
  /**
   * What the pipeline runs: inline jobs, Kratix-style containers, or a Workflow of spec.workflowNamespace.
   */
  spec: {
    /**
     * Jobs of the pipeline.
     */
    jobs?: {
      /**
       * A job: either inline (runs-on and steps) or a call of a reusable Workflow (uses and optional with).
       */
      [k: string]: {
        /**
         * Jobs that must succeed before this one starts.
         *
         * @maxItems 100
         *
         * Items: A job name.
         */
        needs?: string[];
        /**
         * Runtime that executes the steps of an inline job, such as bash.
         */
        'runs-on'?: string;
        /**
         * Steps of an inline job, run in order.
         *
         * @minItems 1
         * @maxItems 50
         *
         * Items: One step of an inline job: a script run by the job runtime, or a container (runs-on: kubernetes).
         */
        steps?: {
          /**
           * Name of the step, unique in its job; label-value rules. Read by later steps as steps.<name>.
           */
          name: string;
          /**
           * The script. May hold ${{ }} expressions; prefer passing values through env.
           */
          run?: string;
          /**
           * Container image the step runs in (runs-on: kubernetes), such as registry.example/tools:1.2.
           */
          image?: string;
          /**
           * The executable and its first arguments, instead of the image's entrypoint.
           *
           * @maxItems 64
           *
           * Items: One word; may hold ${{ }} expressions, placed as data (no shell).
           */
          command?: string[];
          /**
           * Arguments to the command (or to the image's entrypoint).
           *
           * @maxItems 64
           *
           * Items: One word; may hold ${{ }} expressions, placed as data (no shell).
           */
          args?: string[];
          /**
           * Working directory of the container.
           */
          workingDir?: string;
          /**
           * Compute resources of the step container.
           */
          resources?: {
            /**
             * What the scheduler reserves for the step.
             */
            requests?: {
              /**
               * CPU, such as 250m or 1.
               */
              cpu?: string;
              /**
               * Memory, such as 64Mi or 1Gi.
               */
              memory?: string;
            };
            /**
             * What the step may use at most.
             */
            limits?: {
              /**
               * CPU, such as 250m or 1.
               */
              cpu?: string;
              /**
               * Memory, such as 64Mi or 1Gi.
               */
              memory?: string;
            };
          };
          /**
           * Volumes of the job mounted into the step's container.
           *
           * @maxItems 16
           *
           * Items: One mount.
           */
          volumeMounts?: {
            /**
             * The volume (spec.volumes of the job, or of a Kratix-shaped pipeline).
             */
            name: string;
            /**
             * Absolute path in the container; not under /krt or /kratix.
             */
            mountPath: string;
            /**
             * A path inside the volume to mount instead of its root.
             */
            subPath?: string;
            /**
             * Mounted read-only.
             */
            readOnly?: boolean;
          }[];
          /**
           * Every key of a ConfigMap or a Secret of the namespace as variables, as in a Pod.
           *
           * @maxItems 16
           *
           * Items: One source: exactly one of configMapRef, secretRef.
           */
          envFrom?: {
            /**
             * Put before each key.
             */
            prefix?: string;
            /**
             * A ConfigMap.
             */
            configMapRef?: {
              /**
               * Its name.
               */
              name: string;
              /**
               * Missing is not an error.
               */
              optional?: boolean;
            };
            /**
             * A Secret; its values are masked in logs.
             */
            secretRef?: {
              /**
               * Its name.
               */
              name: string;
              /**
               * Missing is not an error.
               */
              optional?: boolean;
            };
          }[];
          /**
           * Environment variables of the step.
           */
          env?: {
            /**
             * An environment value. May hold ${{ }} expressions.
             */
            [k: string]: string;
          };
          /**
           * Environment variables taken from Secrets of the namespace of the run when the step starts. Their values never enter a Run object and are masked in logs.
           */
          secretEnv?: {
            /**
             * A key of a Secret in the namespace of the run.
             */
            [k: string]: {
              /**
               * Name of the Secret.
               */
              name: string;
              /**
               * The key of the Secret whose value the variable takes.
               */
              key: string;
              /**
               * A missing Secret or key gives no variable instead of failing the step.
               */
              optional?: boolean;
            };
          };
          /**
           * Limits of a step's sandbox, within the ceiling of the agent that runs it.
           */
          limits?: {
            /**
             * Processes of the step.
             */
            processes?: number;
            /**
             * MiB of address space.
             */
            memoryMiB?: number;
            /**
             * MiB of the largest file the step may write.
             */
            fileMiB?: number;
            /**
             * Open files.
             */
            openFiles?: number;
            /**
             * MiB of the workspace and of /tmp, each.
             */
            workspaceMiB?: number;
          };
          /**
           * Minutes the step may run before it is stopped with phase Timeout.
           */
          'timeout-minutes'?: number;
        }[];
        /**
         * Outputs of an inline job, evaluated after its steps succeed; read downstream as jobs.<job>.outputs.<name>.
         */
        outputs?: {
          /**
           * An output expression, such as ${{ steps.package.outputs.env }}. May hold ${{ }} expressions.
           */
          [k: string]: string;
        };
        /**
         * Service account of the job's step Pods (runs-on: kubernetes); the namespace's default when unset.
         */
        serviceAccountName?: string;
        /**
         * Node labels a step Pod's node must have.
         */
        nodeSelector?: {
          /**
           * A label value.
           */
          [k: string]: string;
        };
        /**
         * Taints the step Pods tolerate, as in a Pod spec.
         *
         * @maxItems 32
         *
         * Items: One toleration.
         */
        tolerations?: {
          /**
           * The taint key; empty with operator Exists matches every taint.
           */
          key?: string;
          /**
           * Exists or Equal (the default).
           */
          operator?: 'Exists' | 'Equal';
          /**
           * The taint value, for Equal.
           */
          value?: string;
          /**
           * NoSchedule, PreferNoSchedule or NoExecute; empty matches all.
           */
          effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
          /**
           * For NoExecute: seconds the Pod stays bound after the taint appears.
           */
          tolerationSeconds?: number;
        }[];
        /**
         * Volumes of the job's step Pods (runs-on: kubernetes): a ConfigMap, a Secret or an empty directory.
         *
         * @maxItems 16
         *
         * Items: One volume: exactly one of configMap, secret, emptyDir.
         */
        volumes?: {
          /**
           * Name of the volume, unique in the job; volumeMounts name it.
           */
          name: string;
          /**
           * A ConfigMap of the namespace of the run.
           */
          configMap?: {
            /**
             * Name of the ConfigMap.
             */
            name: string;
            /**
             * Keys to project, each to a relative path; all keys when unset.
             *
             * @maxItems 64
             *
             * Items: One key.
             */
            items?: {
              /**
               * The key.
               */
              key: string;
              /**
               * Relative path of the file.
               */
              path: string;
            }[];
            /**
             * Missing is not an error.
             */
            optional?: boolean;
          };
          /**
           * A Secret of the namespace of the run; its values are masked in logs.
           */
          secret?: {
            /**
             * Name of the Secret.
             */
            secretName: string;
            /**
             * Keys to project, each to a relative path; all keys when unset.
             *
             * @maxItems 64
             *
             * Items: One key.
             */
            items?: {
              /**
               * The key.
               */
              key: string;
              /**
               * Relative path of the file.
               */
              path: string;
            }[];
            /**
             * Missing is not an error.
             */
            optional?: boolean;
          };
          /**
           * An empty directory for the Pod, shared by nothing else.
           */
          emptyDir?: {
            /**
             * Memory for a tmpfs; the node's disk when unset.
             */
            medium?: '' | 'Memory';
            /**
             * At most this much.
             */
            sizeLimit?: string;
          };
        }[];
        /**
         * Name of the reusable Workflow this call job runs, in the same namespace.
         */
        uses?: string;
        /**
         * Inputs given to the called Workflow: strings (which may hold ${{ }} expressions), numbers or booleans.
         */
        with?: {
          [k: string]: unknown;
        };
      };
    };
    /**
     * Containers run one after another in Pods (runs-on: kubernetes), as Kratix runs a pipeline.
     *
     * @minItems 1
     * @maxItems 50
     */
    containers?: PipelineContainer[];
    /**
     * Volumes of the job's step Pods (runs-on: kubernetes): a ConfigMap, a Secret or an empty directory.
     *
     * @maxItems 16
     *
     * Items: One volume: exactly one of configMap, secret, emptyDir.
     */
    volumes?: {
      /**
       * Name of the volume, unique in the job; volumeMounts name it.
       */
      name: string;
      /**
       * A ConfigMap of the namespace of the run.
       */
      configMap?: {
        /**
         * Name of the ConfigMap.
         */
        name: string;
        /**
         * Keys to project, each to a relative path; all keys when unset.
         *
         * @maxItems 64
         *
         * Items: One key.
         */
        items?: {
          /**
           * The key.
           */
          key: string;
          /**
           * Relative path of the file.
           */
          path: string;
        }[];
        /**
         * Missing is not an error.
         */
        optional?: boolean;
      };
      /**
       * A Secret of the namespace of the run; its values are masked in logs.
       */
      secret?: {
        /**
         * Name of the Secret.
         */
        secretName: string;
        /**
         * Keys to project, each to a relative path; all keys when unset.
         *
         * @maxItems 64
         *
         * Items: One key.
         */
        items?: {
          /**
           * The key.
           */
          key: string;
          /**
           * Relative path of the file.
           */
          path: string;
        }[];
        /**
         * Missing is not an error.
         */
        optional?: boolean;
      };
      /**
       * An empty directory for the Pod, shared by nothing else.
       */
      emptyDir?: {
        /**
         * Memory for a tmpfs; the node's disk when unset.
         */
        medium?: '' | 'Memory';
        /**
         * At most this much.
         */
        sizeLimit?: string;
      };
    }[];
    /**
     * How a failed run of the pipeline is retried, as Kratix sets its Job.
     */
    jobOptions?: {
      /**
       * Times a failed run of the pipeline runs again (a new WorkflowRun, after 5s doubling up to 300s) before the workflow halts; default 0 for configure, spec.workflows.resource.deleteBackoffLimit for delete.
       */
      backoffLimit?: number;
    };
    /**
     * Name of a Workflow in the Promise spec.workflowNamespace, run with the inputs of with.
     */
    uses?: string;
    /**
     * Inputs of the Workflow: strings (which may read ${{ resource.<path> }}), numbers or booleans.
     */
    with?: {
      [k: string]: unknown;
    };
  };
}
/**
 * One container of a Kratix-shaped pipeline; the containers run in order and the first failure halts the pipeline.
 */
export interface PipelineContainer {
  /**
   * Name of the container, unique in its pipeline; it names its step.
   */
  name: string;
  /**
   * Container image the step runs in (runs-on: kubernetes), such as registry.example/tools:1.2.
   */
  image: string;
  /**
   * The executable and its first arguments, instead of the image's entrypoint.
   *
   * @maxItems 64
   *
   * Items: One word; may hold ${{ }} expressions, placed as data (no shell).
   */
  command?: string[];
  /**
   * Arguments to the command (or to the image's entrypoint).
   *
   * @maxItems 64
   *
   * Items: One word; may hold ${{ }} expressions, placed as data (no shell).
   */
  args?: string[];
  /**
   * Working directory of the container.
   */
  workingDir?: string;
  /**
   * Compute resources of the step container.
   */
  resources?: {
    /**
     * What the scheduler reserves for the step.
     */
    requests?: {
      /**
       * CPU, such as 250m or 1.
       */
      cpu?: string;
      /**
       * Memory, such as 64Mi or 1Gi.
       */
      memory?: string;
    };
    /**
     * What the step may use at most.
     */
    limits?: {
      /**
       * CPU, such as 250m or 1.
       */
      cpu?: string;
      /**
       * Memory, such as 64Mi or 1Gi.
       */
      memory?: string;
    };
  };
  /**
   * Volumes of the job mounted into the step's container.
   *
   * @maxItems 16
   *
   * Items: One mount.
   */
  volumeMounts?: {
    /**
     * The volume (spec.volumes of the job, or of a Kratix-shaped pipeline).
     */
    name: string;
    /**
     * Absolute path in the container; not under /krt or /kratix.
     */
    mountPath: string;
    /**
     * A path inside the volume to mount instead of its root.
     */
    subPath?: string;
    /**
     * Mounted read-only.
     */
    readOnly?: boolean;
  }[];
  /**
   * Every key of a ConfigMap or a Secret of the namespace as variables, as in a Pod.
   *
   * @maxItems 16
   *
   * Items: One source: exactly one of configMapRef, secretRef.
   */
  envFrom?: {
    /**
     * Put before each key.
     */
    prefix?: string;
    /**
     * A ConfigMap.
     */
    configMapRef?: {
      /**
       * Its name.
       */
      name: string;
      /**
       * Missing is not an error.
       */
      optional?: boolean;
    };
    /**
     * A Secret; its values are masked in logs.
     */
    secretRef?: {
      /**
       * Its name.
       */
      name: string;
      /**
       * Missing is not an error.
       */
      optional?: boolean;
    };
  }[];
  /**
   * Environment variables, as in a Pod; a value may read ${{ resource.<path> }}.
   *
   * @maxItems 100
   *
   * Items: One variable.
   */
  env?: {
    /**
     * Variable name.
     */
    name: string;
    /**
     * The value.
     */
    value?: string;
    /**
     * Where the value comes from when the step starts, instead of value.
     */
    valueFrom?: {
      /**
       * A key of a Secret in the namespace of the run.
       */
      secretKeyRef?: {
        /**
         * Name of the Secret.
         */
        name: string;
        /**
         * The key of the Secret whose value the variable takes.
         */
        key: string;
        /**
         * A missing Secret or key gives no variable instead of failing the step.
         */
        optional?: boolean;
      };
    };
  }[];
}
/**
 * A resource API (spec.api) and the workflows that run for each of its resources.
 */
export interface PromiseSpec {
  /**
   * The CustomResourceDefinition (apiextensions.k8s.io/v1) of the resource API; the controller installs it with the status fields and printer columns the workflows need.
   */
  api: {
    [k: string]: unknown;
  };
  /**
   * The namespace of the Workflows that pipelines name with uses (read when a pipeline starts).
   */
  workflowNamespace?: string;
  /**
   * How often each resource's configure workflow runs again to correct drift, such as 10h (the controller default, --reconcile-interval, is 10h).
   */
  reconcileInterval?: string;
  /**
   * Workflows of the Promise and of its resources.
   */
  workflows?: {
    /**
     * Workflows of the Promise itself, run in spec.workflowNamespace: configure when it is created or changed (its API is served once it first succeeded), delete when it is deleted (after its resources).
     */
    promise?: {
      /**
       * Pipelines run one after another when the Promise is created or changed, or reconciled.
       *
       * @maxItems 10
       */
      configure?: Pipeline[];
      /**
       * At most one pipeline, run when the Promise is deleted.
       *
       * @maxItems 1
       */
      delete?: Pipeline[];
    };
    /**
     * Lifecycle workflows of each resource.
     */
    resource?: {
      /**
       * Pipelines run one after another when a resource is created, updated or reconciled, or the Promise changes.
       *
       * @maxItems 10
       */
      configure?: Pipeline[];
      /**
       * At most one pipeline, run when a resource is deleted.
       *
       * @maxItems 1
       */
      delete?: Pipeline[];
      /**
       * Retries of a failed delete pipeline before the deletion stops as DeleteWorkflowFailed (as a Job's backoffLimit; default 6).
       */
      deleteBackoffLimit?: number;
    };
  };
}
/**
 * Observed state of the Promise.
 */
export interface PromiseStatus {
  /**
   * The .metadata.generation last reconciled.
   */
  observedGeneration?: number;
  /**
   * Observations of the object, in the Kubernetes convention.
   *
   * @maxItems 16
   */
  conditions?: Condition[];
  /**
   * What kruntimes ran for the Promise's own workflows.
   */
  kruntimes?: {
    workflows?: ResourceWorkflows;
    delete?: ResourceDelete;
  };
  /**
   * The resource API the Promise serves.
   */
  api?: {
    /**
     * API group.
     */
    group?: string;
    /**
     * Served storage version.
     */
    version?: string;
    /**
     * Kind.
     */
    kind?: string;
    /**
     * Plural resource name.
     */
    plural?: string;
  };
  /**
   * Resources of the API.
   */
  resources?: number;
  /**
   * Resources whose configure workflow last succeeded for their current spec.
   */
  configured?: number;
  /**
   * Configured resources out of all, as configured/total.
   */
  summary?: string;
  /**
   * Why the Promise is in its state.
   */
  message?: string;
}
/**
 * The configure workflow of this resource.
 */
export interface ResourceWorkflows {
  /**
   * Hash of the resource spec and the Promise pipelines the workflow ran for.
   */
  hash?: string;
  /**
   * How many times the workflow was started.
   */
  round?: number;
  /**
   * Running, Succeeded, Failed or Suspended.
   */
  phase?: string;
  /**
   * When the current round started.
   */
  startedAt?: string;
  /**
   * When the current round ended.
   */
  completedAt?: string;
  /**
   * The pipelines of the current round, in order.
   *
   * @maxItems 10
   */
  pipelines?: PipelineStatus[];
}
/**
 * One pipeline of the current configure workflow.
 */
export interface PipelineStatus {
  /**
   * Pipeline name.
   */
  name?: string;
  /**
   * Pending, Running, Succeeded, Failed, Suspended or Cancelled.
   */
  phase?: string;
  /**
   * Its WorkflowRun.
   */
  workflowRunName?: string;
  /**
   * Executions of its suspended or retried job so far.
   */
  attempts?: number;
  /**
   * When a pipeline that wrote retryAfter runs again.
   */
  nextRetryAt?: string;
  /**
   * Why the pipeline is in its phase (a suspension message, a failure).
   */
  message?: string;
}
/**
 * The delete workflow of this resource, once it is deleted.
 */
export interface ResourceDelete {
  /**
   * Hash of the resource spec and the Promise spec the current round ran for.
   */
  hash?: string;
  /**
   * How many times the delete workflow was started anew (after a failure and a change).
   */
  round?: number;
  /**
   * Attempt of the delete pipeline in this round.
   */
  attempt?: number;
  /**
   * Running, Succeeded, Failed, Suspended, or Skipped (its namespace is being deleted).
   */
  phase?: string;
  /**
   * The delete pipeline run of this attempt.
   */
  workflowRunName?: string;
  /**
   * When a delete pipeline that wrote retryAfter runs again.
   */
  nextRetryAt?: string;
  /**
   * Why the delete workflow is in its phase.
   */
  message?: string;
}
/**
 * The Kubernetes objects one pipeline wrote to $KRT_OUTPUT_DIR, applied to the cluster by the controller (server-side apply, field manager kruntimes).
 */
export interface WorkSpec {
  /**
   * The pipeline that wrote them.
   */
  pipeline: string;
  /**
   * The pipeline WorkflowRun they came from.
   */
  workflowRunName?: string;
  /**
   * The objects, in the order of their files.
   *
   * @maxItems 1000
   *
   * Items: A Kubernetes object.
   */
  objects?: {
    [k: string]: unknown;
  }[];
}
/**
 * What the controller applied.
 */
export interface WorkStatus {
  /**
   * The .metadata.generation last applied.
   */
  observedGeneration?: number;
  /**
   * Observations of the object, in the Kubernetes convention.
   *
   * @maxItems 16
   */
  conditions?: Condition[];
  /**
   * Objects applied from the current spec, pruned when a newer spec drops them.
   *
   * @maxItems 1000
   */
  applied?: AppliedObject[];
  /**
   * Why the Work is in its state.
   */
  message?: string;
}
/**
 * One object a Work applied.
 */
export interface AppliedObject {
  /**
   * API version.
   */
  apiVersion?: string;
  /**
   * Kind.
   */
  kind?: string;
  /**
   * Namespace, empty for a cluster-scoped object.
   */
  namespace?: string;
  /**
   * Name.
   */
  name?: string;
}
/**
 * Set by kruntimes: the configure workflow, its conditions and what status.yaml said.
 */
export interface ResourceStatus {
  /**
   * What kruntimes ran for this resource.
   */
  kruntimes?: {
    workflows?: ResourceWorkflows;
    delete?: ResourceDelete;
  };
  /**
   * The message a pipeline wrote to status.yaml, or why the workflow is in its state.
   */
  message?: string;
  /**
   * Observations of the object, in the Kubernetes convention.
   *
   * @maxItems 16
   */
  conditions?: Condition[];
  /**
   * The .metadata.generation the last workflow ran for.
   */
  observedGeneration?: number;
  [k: string]: unknown;
}
