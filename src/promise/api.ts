// The resource API a Promise serves (spec.api, a CustomResourceDefinition): checked at admission,
// read by the controller, and installed with what the workflows need (docs/design.md §4).
import { GROUP } from '../api/crds.js';
import { resourceStatusSchema } from '../api/promise-schema.js';
import type { PromiseObject } from '../api/types.js';
import { fieldError, type FieldError } from '../fielderror.js';
import { isObject } from '../helpers.js';
import { isDns1123Subdomain } from '../names.js';

export interface ResourceApi {
  group: string;
  /** The storage version, which the controller watches and the workflows read. */
  version: string;
  kind: string;
  plural: string;
  /** The storage version's openAPIV3Schema, for admission's checks of `resource.<path>`. */
  schema: unknown;
  /** False for `scope: Cluster`: its resources' pipelines run in the Promise's workflowNamespace. */
  namespaced: boolean;
}

const KIND_PATTERN = /^[A-Z][A-Za-z0-9]{0,62}$/;
const PLURAL_PATTERN = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** Why spec.api is not a CustomResourceDefinition the controller can install; empty when it is. */
export function resourceApiErrors(api: unknown, field = 'spec.api'): FieldError[] {
  if (!isObject(api)) return [fieldError(field, 'must be a CustomResourceDefinition')];
  const errors: FieldError[] = [];
  if (api.apiVersion !== 'apiextensions.k8s.io/v1')
    errors.push(fieldError(`${field}.apiVersion`, 'must be apiextensions.k8s.io/v1'));
  if (api.kind !== 'CustomResourceDefinition')
    errors.push(fieldError(`${field}.kind`, 'must be CustomResourceDefinition'));
  const spec = isObject(api.spec) ? api.spec : undefined;
  if (!spec) return [...errors, fieldError(`${field}.spec`, 'required value')];
  const group = spec.group;
  if (typeof group !== 'string' || !isDns1123Subdomain(group) || !group.includes('.'))
    errors.push(
      fieldError(`${field}.spec.group`, 'must be a DNS subdomain with at least one dot, such as example.com'),
    );
  else if (group === GROUP || group.endsWith(`.${GROUP}`))
    errors.push(fieldError(`${field}.spec.group`, `the group ${GROUP} belongs to kruntimes itself`));
  const names = isObject(spec.names) ? spec.names : {};
  if (typeof names.kind !== 'string' || !KIND_PATTERN.test(names.kind))
    errors.push(fieldError(`${field}.spec.names.kind`, 'must be a CamelCase kind such as Database'));
  if (typeof names.plural !== 'string' || !PLURAL_PATTERN.test(names.plural))
    errors.push(
      fieldError(`${field}.spec.names.plural`, 'must be a lowercase DNS-1123 label such as databases'),
    );
  const meta = isObject(api.metadata) ? api.metadata : {};
  if (
    typeof names.plural === 'string' &&
    typeof group === 'string' &&
    meta.name !== `${names.plural}.${group}`
  )
    errors.push(
      fieldError(
        `${field}.metadata.name`,
        `must be "${String(names.plural)}.${String(group)}" (<plural>.<group>)`,
      ),
    );
  if (spec.scope !== 'Namespaced' && spec.scope !== 'Cluster')
    errors.push(fieldError(`${field}.spec.scope`, 'must be Namespaced or Cluster'));
  const versions = Array.isArray(spec.versions) ? spec.versions : undefined;
  if (!versions || versions.length === 0)
    return [...errors, fieldError(`${field}.spec.versions`, 'must list at least one version')];
  let storage = 0;
  versions.forEach((v: unknown, i) => {
    const at = `${field}.spec.versions[${i}]`;
    if (!isObject(v)) return errors.push(fieldError(at, 'must be an object'));
    if (typeof v.name !== 'string' || !/^v[0-9]+((alpha|beta)[0-9]+)?$/.test(v.name))
      errors.push(fieldError(`${at}.name`, 'must be a version such as v1 or v1alpha1'));
    if (v.storage === true) storage++;
    const schema = isObject(v.schema) ? v.schema.openAPIV3Schema : undefined;
    if (!isObject(schema) || schema.type !== 'object')
      errors.push(fieldError(`${at}.schema.openAPIV3Schema`, 'must be a structural schema of type object'));
    return undefined;
  });
  if (storage !== 1)
    errors.push(fieldError(`${field}.spec.versions`, 'exactly one version must have storage: true'));
  return errors;
}

/** The API of a Promise whose spec.api is valid (admission saw to it); undefined otherwise. */
export function resourceApi(promise: Pick<PromiseObject, 'spec'>): ResourceApi | undefined {
  const api = promise.spec?.api as Record<string, unknown> | undefined;
  if (resourceApiErrors(api).length > 0) return undefined;
  const spec = api?.spec as {
    scope: string;
    group: string;
    names: { kind: string; plural: string };
    versions: { name: string; storage?: boolean; schema: { openAPIV3Schema: unknown } }[];
  };
  const v = spec.versions.find((x) => x.storage) as (typeof spec.versions)[number];
  return {
    group: spec.group,
    version: v.name,
    kind: spec.names.kind,
    plural: spec.names.plural,
    schema: v.schema.openAPIV3Schema,
    namespaced: spec.scope === 'Namespaced',
  };
}

/** The kind's group and kind, which an existing Promise may not change (its resources would be lost). */
export function apiIdentity(api: unknown): string | undefined {
  if (!isObject(api) || !isObject(api.spec)) return undefined;
  const names = isObject(api.spec.names) ? api.spec.names : {};
  return `${String(api.spec.group)}/${String(names.kind)}`;
}

/**
 * The CRD as installed: the Promise's, with the status subresource, the status fields kruntimes
 * writes (free keys kept for status.yaml), STATUS and MESSAGE columns and the kruntimes category.
 */
export function installableCrd(promise: PromiseObject): Record<string, unknown> {
  const api = structuredClone(promise.spec.api) as {
    metadata?: Record<string, unknown>;
    spec: {
      names: { categories?: string[] };
      versions: {
        schema: { openAPIV3Schema: { properties?: Record<string, unknown> } };
        subresources?: Record<string, unknown>;
        additionalPrinterColumns?: { name: string }[];
      }[];
    };
  };
  const categories = new Set([...(api.spec.names.categories ?? []), 'kruntimes']);
  api.spec.names.categories = [...categories];
  for (const v of api.spec.versions) {
    const root = v.schema.openAPIV3Schema;
    root.properties = { ...(root.properties ?? {}), status: mergeStatus(root.properties?.status) };
    v.subresources = { ...(v.subresources ?? {}), status: {} };
    const own = (v.additionalPrinterColumns ?? []).filter((c) => !['Status', 'Message'].includes(c.name));
    v.additionalPrinterColumns = [
      ...own,
      { name: 'Status', type: 'string', jsonPath: '.status.kruntimes.workflows.phase' } as never,
      { name: 'Message', type: 'string', jsonPath: '.status.message' } as never,
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' } as never,
    ].filter((c, i, all) => all.findIndex((x) => x.name === c.name) === i);
  }
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: (promise.spec.api as { metadata: { name: string } }).metadata.name,
      labels: { 'kruntimes.io/promise': promise.metadata.name ?? '' },
    },
    spec: api.spec,
  };
}

function mergeStatus(declared: unknown): Record<string, unknown> {
  const ours = resourceStatusSchema as { properties: Record<string, unknown> };
  const theirs = isObject(declared) && isObject(declared.properties) ? declared.properties : {};
  return { ...ours, properties: { ...theirs, ...ours.properties } };
}
