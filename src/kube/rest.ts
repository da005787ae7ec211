// The thin typed client: get, create, replace, patch and delete of any resource by its coordinates,
// as plain JSON over src/kube/raw.ts (keep-alive connections, the access's credentials and
// impersonation). The controller uses it instead of client-node's generated clients, which are the
// larger part of a Node.js process's memory (docs/benchmarks.md, "Memory").
import { GROUP, VERSION } from '../api/crds.js';
import type { KubeAccess } from './access.js';
import { HttpError, rawJson, serverSideApply } from './raw.js';

/** Where the client counts its writes (the controller's krt_controller_api_writes_total). */
export type WriteCounter = { inc(labels: { verb: string; resource: string }): void };

/** Where a resource lives: its group ('' for the core group), version, plural and namespace (none when cluster-scoped). */
export interface Coordinates {
  group: string;
  version: string;
  plural: string;
  namespace?: string;
}

/** One object of a resource: its coordinates and name. */
export type ObjectCoordinates = Coordinates & { name: string };

/** Coordinates of a kruntimes.io/v1alpha1 resource. */
export function crd(plural: 'workflows' | 'workflowruns' | 'runs' | 'works', namespace: string) {
  return { group: GROUP, version: VERSION, plural, namespace };
}

/** Coordinates of a core-group (v1) resource; cluster-scoped without a namespace. */
export function core(plural: string, namespace?: string): Coordinates {
  return { group: '', version: 'v1', plural, ...(namespace !== undefined ? { namespace } : {}) };
}

/** Coordinates of the Leases of a namespace (coordination.k8s.io/v1). */
export function leases(namespace: string): Coordinates {
  return { group: 'coordination.k8s.io', version: 'v1', plural: 'leases', namespace };
}

/** The URL path of a collection, or of one object and optionally its subresource. */
export function resourcePath(c: Coordinates & { name?: string }, subresource?: string): string {
  const base = c.group ? `/apis/${c.group}/${c.version}` : `/api/${c.version}`;
  const ns = c.namespace ? `/namespaces/${encodeURIComponent(c.namespace)}` : '';
  const name = c.name ? `/${encodeURIComponent(c.name)}` : '';
  return `${base}${ns}/${c.plural}${name}${c.name && subresource ? `/${subresource}` : ''}`;
}

const PATCH_TYPES = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
} as const;

export type PatchType = keyof typeof PATCH_TYPES;

export interface DeleteOptions {
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  /** Only that object: the API server answers 409 when the name now holds another one. */
  uid?: string;
  gracePeriodSeconds?: number;
}

/**
 * Every write a controller makes goes through here, and is counted here (by verb and resource) before
 * it is sent.
 */
export class KubeClient {
  constructor(
    readonly access: KubeAccess,
    private readonly writes?: WriteCounter,
  ) {}

  /** The same client with other credentials (a Promise's service account), its writes counted alike. */
  as(access: KubeAccess): KubeClient {
    return new KubeClient(access, this.writes);
  }

  private count(verb: string, c: Coordinates, subresource?: string): void {
    this.writes?.inc({ verb, resource: subresource ? `${c.plural}/${subresource}` : c.plural });
  }

  get<T = unknown>(o: ObjectCoordinates): Promise<T> {
    return rawJson(this.access, 'GET', resourcePath(o)) as Promise<T>;
  }

  /** One page of a collection (at most `limit` items), chosen by label and field selectors. */
  list<T = unknown>(
    c: Coordinates,
    select: { labelSelector?: string; fieldSelector?: string; limit?: number } = {},
  ): Promise<{ items?: T[]; metadata?: { resourceVersion?: string; continue?: string } }> {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(select)) if (v !== undefined) q.set(k, String(v));
    const query = q.size > 0 ? `?${q.toString()}` : '';
    return rawJson(this.access, 'GET', resourcePath(c) + query) as Promise<{ items?: T[] }>;
  }

  /**
   * Creates an object in the collection `c` (a POST to the collection: coordinates with a name are
   * refused by the type, as the API server would refuse them with 405). `fieldManager`: who the new
   * object's fields are recorded as written by.
   */
  create<T = unknown>(c: Coordinates & { name?: never }, body: unknown, fieldManager?: string): Promise<T> {
    this.count('create', c);
    const q = fieldManager ? `?fieldManager=${encodeURIComponent(fieldManager)}` : '';
    return rawJson(this.access, 'POST', resourcePath(c) + q, { body }) as Promise<T>;
  }

  replace<T = unknown>(o: ObjectCoordinates, body: unknown): Promise<T> {
    this.count('update', o);
    return rawJson(this.access, 'PUT', resourcePath(o), { body }) as Promise<T>;
  }

  /** PUT of the status subresource: a conflict (409) when `body`'s resourceVersion is not the stored one. */
  replaceStatus<T = unknown>(o: ObjectCoordinates, body: unknown): Promise<T> {
    this.count('update', o, 'status');
    return rawJson(this.access, 'PUT', resourcePath(o, 'status'), { body }) as Promise<T>;
  }

  patch<T = unknown>(o: ObjectCoordinates, body: unknown, type: PatchType = 'merge'): Promise<T> {
    this.count('patch', o);
    return rawJson(this.access, 'PATCH', resourcePath(o), {
      body,
      contentType: PATCH_TYPES[type],
    }) as Promise<T>;
  }

  /** A patch of the status subresource (what an executor writes of a Run). */
  patchStatus<T = unknown>(o: ObjectCoordinates, body: unknown, type: PatchType = 'merge'): Promise<T> {
    this.count('patch', o, 'status');
    const path = resourcePath(o, 'status');
    return rawJson(this.access, 'PATCH', path, { body, contentType: PATCH_TYPES[type] }) as Promise<T>;
  }

  /** Server-side apply as kruntimes, taking over fields another manager holds (src/kube/raw.ts). */
  apply<T = unknown>(o: ObjectCoordinates, body: unknown): Promise<T> {
    this.count('apply', o);
    return serverSideApply(this.access, resourcePath(o), body) as Promise<T>;
  }

  /** Deletes one object (see DeleteOptions). */
  async delete(o: ObjectCoordinates, options: DeleteOptions = {}): Promise<void> {
    this.count('delete', o);
    const q = new URLSearchParams();
    if (options.propagationPolicy) q.set('propagationPolicy', options.propagationPolicy);
    if (options.gracePeriodSeconds !== undefined)
      q.set('gracePeriodSeconds', String(options.gracePeriodSeconds));
    const query = q.size > 0 ? `?${q.toString()}` : '';
    const { uid } = options;
    const body = uid ? { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid } } : undefined;
    await rawJson(this.access, 'DELETE', resourcePath(o) + query, { body });
  }
}

/**
 * The HTTP status of a failed API call, or undefined for other errors: this client's HttpError,
 * or client-node's ApiException (also a numeric `code` with a `body`), told apart by shape so that
 * this module does not load client-node.
 */
export function statusCode(e: unknown): number | undefined {
  if (e instanceof HttpError) return e.code;
  return isApiException(e) ? e.code : undefined;
}

function isApiException(e: unknown): e is { code: number; body: unknown } {
  return e instanceof Error && typeof (e as { code?: unknown }).code === 'number' && 'body' in e;
}

/** A failed API call's Kubernetes Status: its message, and its details (what it is about, and why). */
export interface ApiStatus {
  message?: unknown;
  /** A cause's kind is its `reason` in JSON (StatusCause.Type in Go), such as NamespaceTerminating. */
  details?: {
    kind?: string;
    name?: string;
    causes?: { reason?: string; message?: string; field?: string }[];
  };
}

/** The Status body of a failed API call, when it has one that is JSON. */
export function apiStatus(e: unknown): ApiStatus | undefined {
  if (!(isApiException(e) || e instanceof HttpError)) return undefined;
  const body: unknown = e.body;
  try {
    const parsed: unknown = typeof body === 'string' ? JSON.parse(body) : body;
    return parsed && typeof parsed === 'object' ? (parsed as ApiStatus) : undefined;
  } catch {
    return undefined; // not JSON
  }
}

/** The message of a Kubernetes Status body from a failed API call, else the error's own message. */
export function statusMessage(e: unknown): string {
  if (isApiException(e) || e instanceof HttpError) {
    const status = apiStatus(e);
    return status && 'message' in status ? String(status.message) : String(e.body);
  }
  return e instanceof Error ? e.message : String(e);
}
