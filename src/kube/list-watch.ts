// The two calls an informer makes of the API server: a list read in pages, and a watch.
import type { KubeAccess } from './access.js';
import { rawJson } from './raw.js';
import { watch } from './watch.js';

/** The two calls an informer makes; the API server's by default, a stub in unit tests. */
export interface ListWatch<T> {
  /** `each` maps each item as its page arrives (what a cache keeps), so no page outlives its turn. */
  list(
    path: string,
    labelSelector?: string,
    each?: (item: T) => T,
  ): Promise<{ items?: T[]; metadata?: { resourceVersion?: string } }>;
  /** Starts a watch; `onEvent` per event, `onDone` once when it ends. Resolves once it is open. */
  watch(
    path: string,
    params: Record<string, string | number | boolean | undefined>,
    onEvent: (phase: string, obj: T & { code?: number }) => void,
    onDone: (err: unknown) => void,
  ): Promise<{ abort(): void }>;
}

type ListPage<T> = { items?: T[]; metadata?: { resourceVersion?: string; continue?: string } };

/** Objects per page of a list: the API server answers a large collection in pieces, not at once. */
export const LIST_PAGE_SIZE = 500;

/**
 * A whole collection read in pages (`limit`/`continue`), so neither the API server nor this process
 * holds one huge response; the resourceVersion is the list's, from its last page.
 */
export async function pagedList<T>(
  get: (pathAndQuery: string) => Promise<unknown>,
  path: string,
  labelSelector?: string,
  each: (item: T) => T = (item) => item,
  limit = LIST_PAGE_SIZE,
): Promise<{ items: T[]; metadata: { resourceVersion?: string } }> {
  const items: T[] = [];
  let token: string | undefined;
  let resourceVersion: string | undefined;
  do {
    const q = new URLSearchParams({ limit: String(limit) });
    if (labelSelector) q.set('labelSelector', labelSelector);
    if (token) q.set('continue', token);
    const page = (await get(`${path}?${q.toString()}`)) as ListPage<T>;
    for (const item of page.items ?? []) items.push(each(item));
    resourceVersion = page.metadata?.resourceVersion;
    token = page.metadata?.continue || undefined;
  } while (token);
  return { items, metadata: { resourceVersion } };
}

export function apiServerListWatch<T>(kc: KubeAccess): ListWatch<T> {
  return {
    list: (path, labelSelector, each) =>
      pagedList<T>((p) => rawJson(kc, 'GET', p), path, labelSelector, each),
    watch: (path, params, onEvent, onDone) => watch(kc, path, params, onEvent, onDone),
  };
}
