// The CustomResourceDefinitions of kruntimes.io/v1alpha1, built from the schemas in schema.ts.
import * as L from '../limits.js';
import { WORKFLOW_NAME_PATTERN } from './patterns.js';
import type { Schema } from './schema-helpers.js';
import * as S from './schema.js';
import * as PS from './promise-schema.js';

export const GROUP = 'kruntimes.io';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'date' | 'boolean' | 'number';
  jsonPath: string;
  description?: string;
  priority?: number;
}

export interface KindInfo {
  kind: string;
  plural: string;
  singular: string;
  shortNames: string[];
  categories: string[];
  scope?: 'Namespaced' | 'Cluster';
  schema: Schema;
  columns: PrinterColumn[];
}

const age: PrinterColumn = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };
const ready: PrinterColumn = {
  name: 'Ready',
  type: 'string',
  jsonPath: '.status.conditions[?(@.type=="Ready")].status',
};

export const KINDS: KindInfo[] = [
  {
    kind: 'Workflow',
    plural: 'workflows',
    singular: 'workflow',
    shortNames: ['wf'],
    categories: ['kruntimes'],
    schema: S.rootSchema(
      'A reusable Workflow template. Started with `krt workflow trigger`, or called by a job with `uses`.',
      S.workflowSpecSchema,
      S.workflowStatusSchema,
      {
        'x-kubernetes-validations': [
          {
            rule: `self.metadata.name.size() <= ${L.MAX_LABEL_VALUE_LENGTH} && self.metadata.name.matches('${WORKFLOW_NAME_PATTERN}')`,
            message: `a Workflow name must be a DNS-1123 label of at most ${L.MAX_LABEL_VALUE_LENGTH} characters (it is used as a label value)`,
          },
        ],
      },
    ),
    columns: [ready, age],
  },
  {
    kind: 'WorkflowRun',
    plural: 'workflowruns',
    singular: 'workflowrun',
    shortNames: ['wfr'],
    categories: ['kruntimes'],
    schema: S.rootSchema('One execution of inline jobs.', S.workflowRunSpecSchema, S.workflowRunStatusSchema),
    columns: [
      { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
      { name: 'Jobs', type: 'string', jsonPath: '.status.progress', description: 'Jobs ended / all jobs' },
      {
        name: 'Succeeded',
        type: 'string',
        jsonPath: '.status.conditions[?(@.type=="Succeeded")].status',
        priority: 1,
      },
      { name: 'Message', type: 'string', jsonPath: '.status.message' },
      age,
    ],
  },
  {
    kind: 'Run',
    plural: 'runs',
    singular: 'run',
    shortNames: ['krun'],
    categories: ['kruntimes'],
    schema: S.rootSchema("One step's execution, seen by runtimed.", S.runSpecSchema, S.runStatusSchema),
    columns: [
      { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
      { name: 'Runtime', type: 'string', jsonPath: '.spec.runtime' },
      { name: 'Exit', type: 'integer', jsonPath: '.status.exitCode' },
      { name: 'Agent', type: 'string', jsonPath: '.status.assignedTo', priority: 1 },
      { name: 'Reason', type: 'string', jsonPath: '.status.reason', priority: 1 },
      age,
    ],
  },
  {
    kind: 'Promise',
    plural: 'promises',
    singular: 'promise',
    shortNames: ['promise'],
    categories: ['kruntimes'],
    scope: 'Cluster',
    schema: S.rootSchema(
      'A resource API and the workflows that run for each of its resources (configure, delete).',
      PS.promiseSpecSchema,
      PS.promiseStatusSchema,
    ),
    columns: [
      { name: 'Kind', type: 'string', jsonPath: '.status.api.kind' },
      { name: 'Group', type: 'string', jsonPath: '.status.api.group', priority: 1 },
      {
        name: 'Configured',
        type: 'string',
        jsonPath: '.status.summary',
        description: 'Configured / all resources',
      },
      {
        name: 'Available',
        type: 'string',
        jsonPath: '.status.conditions[?(@.type=="Available")].status',
      },
      { name: 'Message', type: 'string', jsonPath: '.status.message', priority: 1 },
      age,
    ],
  },
  {
    kind: 'Work',
    plural: 'works',
    singular: 'work',
    shortNames: [],
    categories: ['kruntimes'],
    schema: S.rootSchema(
      "The objects one pipeline of a resource's workflow wrote, applied by the controller.",
      PS.workSpecSchema,
      PS.workStatusSchema,
    ),
    columns: [
      { name: 'Pipeline', type: 'string', jsonPath: '.spec.pipeline' },
      {
        name: 'Applied',
        type: 'string',
        jsonPath: '.status.conditions[?(@.type=="Applied")].status',
      },
      { name: 'Message', type: 'string', jsonPath: '.status.message' },
      age,
    ],
  },
];

export function crdFor(k: KindInfo): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${k.plural}.${GROUP}` },
    spec: {
      group: GROUP,
      names: {
        kind: k.kind,
        listKind: `${k.kind}List`,
        plural: k.plural,
        singular: k.singular,
        shortNames: k.shortNames,
        categories: k.categories,
      },
      scope: k.scope ?? 'Namespaced',
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: k.schema },
          subresources: { status: {} },
          additionalPrinterColumns: k.columns,
        },
      ],
    },
  };
}
