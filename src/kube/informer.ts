// A list+watch cache that does not go quiet. Informers are reported to stop receiving events after
// a dropped connection, and a naive restart can flood the API server (kubernetes-client/javascript
// #958, #1933; docs/design.md §6). So: server-side watch timeouts, restart
// with jittered backoff, relist on 410 Gone, a periodic resync, and a health check on progress.
import { EventEmitter } from 'node:events';
import type { KubeAccess } from './access.js';
import { metadataWithoutManagedFields } from '../api/objects.js';
import { log } from '../telemetry/log.js';
import { cachedStrings } from './intern.js';
import { apiServerListWatch, type ListWatch } from './list-watch.js';

export interface KubeObject {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string; labels?: Record<string, string> };
}

export interface InformerOptions {
  /** Collection path, such as /apis/kruntimes.io/v1alpha1/workflows (all namespaces). */
  path: string;
  /** Seconds the server keeps one watch open before ending it cleanly. */
  watchTimeoutSeconds?: number;
  /** Full relist this often, to heal any missed event. */
  resyncMs?: number;
  /** Backoff bounds after a failed list or watch. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  labelSelector?: string;
  /** Label keys to index, so owners find their objects without scanning a namespace. */
  indexLabels?: string[];
  /** How to list and watch; the API server of the KubeConfig unless given. */
  listWatch?: ListWatch<never>;
  /**
   * What is kept of each object. By default everything but `metadata.managedFields`, which no
   * component reads and which is often the largest part of an object (controller-runtime's default
   * transform drops it too).
   */
  transform?: (o: never) => unknown;
}

/**
 * A watch that ends this way is not a failure: our own abort, or the watch's inactivity timeout
 * (src/kube/watch.ts ends a watch that received nothing for a while, which a quiet collection
 * does). The watch is opened again from the last resourceVersion at once: no backoff, no relist,
 * no warning.
 */
function endsCleanly(err: unknown): boolean {
  const name = (err as { name?: unknown } | null)?.name;
  return name === 'AbortError' || name === 'TimeoutError';
}

/** Drops metadata.managedFields: the field-manager bookkeeping of server-side apply. */
export function withoutManagedFields<T extends KubeObject>(o: T): T {
  const m = (o as { metadata?: { managedFields?: unknown } }).metadata;
  if (!m || m.managedFields === undefined) return o;
  return { ...o, metadata: metadataWithoutManagedFields(m) } as T;
}

type Events<T> = { add: [T]; update: [T, T]; delete: [T]; synced: [] };

export class ResilientInformer<T extends KubeObject> extends EventEmitter<Events<T>> {
  /** namespace -> name -> object: the names are the objects' own strings, no key built per object. */
  private readonly byNamespace = new Map<string, Map<string, T>>();
  /** label key -> label value -> the object, or a set when several have it (most values have one). */
  private readonly byLabel = new Map<string, Map<string, T | Set<T>>>();
  private resourceVersion = '';
  private active = false;
  /** A watch request is open. */
  private open = false;
  private abort: { abort(): void } | undefined;
  private lastProgress = 0;
  private failures = 0;
  private synced = false;
  private disconnected = true;
  private connectedAt = Number.POSITIVE_INFINITY;
  private resyncTimer: NodeJS.Timeout | undefined;
  private readonly transform: (o: T) => T;
  /** Keys shown as this process wrote them, with that resourceVersion, until the watch catches up. */
  private readonly overlaid = new Map<string, number>();
  private readonly opts: Required<
    Omit<InformerOptions, 'labelSelector' | 'indexLabels' | 'listWatch' | 'transform'>
  > & {
    labelSelector?: string;
  };
  private readonly lw: ListWatch<T>;

  constructor(kc: KubeAccess, opts: InformerOptions) {
    super();
    this.opts = {
      watchTimeoutSeconds: 240,
      resyncMs: 10 * 60_000,
      minBackoffMs: 500,
      maxBackoffMs: 30_000,
      ...opts,
    };
    for (const label of opts.indexLabels ?? []) this.byLabel.set(label, new Map());
    this.lw = (opts.listWatch as ListWatch<T> | undefined) ?? apiServerListWatch<T>(kc);
    this.transform = (opts.transform as ((o: T) => T) | undefined) ?? withoutManagedFields;
  }

  /** Indexes one more label (informers are shared, and another user may need it), over what is cached too. */
  addIndex(label: string): void {
    if (this.byLabel.has(label)) return;
    const values = new Map<string, T | Set<T>>();
    this.byLabel.set(label, values);
    for (const obj of this.list()) indexed(values, obj.metadata?.labels?.[label], obj, true);
  }

  /** What it caches: its collection path and label selector. */
  get source(): { path: string; labelSelector: string } {
    return { path: this.opts.path, labelSelector: this.opts.labelSelector ?? '' };
  }

  /** Whether its list and watch loop runs (false once stopped). */
  get running(): boolean {
    return this.active;
  }

  /** Whether a watch request is open on the API server right now. */
  get watchOpen(): boolean {
    return this.open;
  }

  /** Objects whose label `label` (an indexed one) has `value`. */
  withLabel(label: string, value: string): T[] {
    const found = this.byLabel.get(label)?.get(value);
    if (found === undefined) return [];
    return found instanceof Set ? [...found] : [found];
  }

  private index(obj: T, add: boolean): void {
    for (const [label, values] of this.byLabel) indexed(values, obj.metadata?.labels?.[label], obj, add);
  }

  static key(o: KubeObject): string {
    return `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
  }

  get(namespace: string, name: string): T | undefined {
    return this.byNamespace.get(namespace)?.get(name);
  }

  list(namespace?: string): T[] {
    if (namespace !== undefined) return [...(this.byNamespace.get(namespace)?.values() ?? [])];
    const all: T[] = [];
    for (const m of this.byNamespace.values()) for (const o of m.values()) all.push(o);
    return all;
  }

  /** Name -> object for one namespace; the map is the cache's own, do not change it. */
  namespaceMap(namespace: string): Map<string, T> {
    return this.byNamespace.get(namespace) ?? new Map();
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /**
   * When (performance.now()) this cache was last brought back in touch with the API server: its
   * first list, or the first list or watch event after a failure (an open watch request proves
   * nothing: it fails later). What it shows may be stale from before that moment, not after.
   */
  connectedSince(): number {
    // Out of touch now: nothing it shows can be vouched for.
    return this.disconnected ? performance.now() : this.connectedAt;
  }

  private reconnected(): void {
    if (!this.disconnected) return;
    this.disconnected = false;
    this.connectedAt = performance.now();
  }

  /** Healthy when the last list or watch event (or clean watch end) is recent. */
  healthy(now = Date.now()): boolean {
    return this.synced && now - this.lastProgress < (this.opts.watchTimeoutSeconds + 60) * 1000;
  }

  /** Starts listing and watching; resolves after the first successful list. */
  async start(): Promise<void> {
    this.active = true;
    const firstSync = new Promise<void>((resolve) => this.once('synced', resolve));
    void this.loop();
    this.resyncTimer = setInterval(() => this.abort?.abort(), this.opts.resyncMs);
    this.resyncTimer.unref();
    await firstSync;
  }

  stop(): void {
    this.active = false;
    if (this.resyncTimer) clearInterval(this.resyncTimer);
    this.abort?.abort();
  }

  private async loop(): Promise<void> {
    let needList = true;
    let sinceList = Date.now();
    while (this.active) {
      try {
        if (needList || Date.now() - sinceList >= this.opts.resyncMs) {
          await this.relist();
          needList = false;
          sinceList = Date.now();
        }
        const gone = await this.watchOnce();
        if (gone) needList = true;
        this.failures = 0;
      } catch (e) {
        if (!this.active) break;
        this.failures++;
        this.disconnected = true;
        const base = Math.min(
          this.opts.maxBackoffMs,
          this.opts.minBackoffMs * 2 ** Math.min(this.failures, 10),
        );
        const wait = base / 2 + Math.random() * (base / 2);
        log.warn(
          { path: this.opts.path, err: String(e), retryInMs: Math.round(wait) },
          'informer list/watch failed',
        );
        needList = needList || this.failures > 3;
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }

  private async relist(): Promise<void> {
    // Each page is cut to what the cache keeps as it arrives: a relist of a large collection holds
    // one page of whole objects at a time, not the whole collection.
    const list = await this.lw.list(this.opts.path, this.opts.labelSelector, (o) =>
      cachedStrings.internAll(this.transform(o)),
    );
    const seen = new Set<string>();
    for (const item of list.items ?? []) {
      seen.add(ResilientInformer.key(item));
      this.upsert(item, false, true);
    }
    for (const old of this.list()) if (!seen.has(ResilientInformer.key(old))) this.remove(old);
    this.resourceVersion = list.metadata?.resourceVersion ?? '';
    this.lastProgress = Date.now();
    this.reconnected();
    if (!this.synced) {
      this.synced = true;
      this.emit('synced');
    }
  }

  /** One watch until the server ends it. Returns true when the resourceVersion is gone (410). */
  private watchOnce(): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      let gone = false;
      // Any other ERROR event (the server refusing the watch) is a failure: backed off, not a
      // watch reopened at once, which a server that keeps refusing would answer in a hot loop.
      let refused: Error | undefined;
      const params: Record<string, string | number | boolean | undefined> = {
        resourceVersion: this.resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds: this.opts.watchTimeoutSeconds,
      };
      if (this.opts.labelSelector) params.labelSelector = this.opts.labelSelector;
      this.lw
        .watch(
          this.opts.path,
          params,
          (phase: string, obj: T & { code?: number }) => {
            this.lastProgress = Date.now();
            if (phase !== 'ERROR') this.reconnected();
            if (phase === 'ERROR') {
              if (obj.code === 410) gone = true;
              else
                refused = new Error(
                  `watch refused: ${obj.code ?? '?'} ${(obj as { message?: string }).message ?? ''}`.trim(),
                );
              this.abort?.abort();
              return;
            }
            if (obj.metadata?.resourceVersion) this.resourceVersion = obj.metadata.resourceVersion;
            if (phase === 'ADDED' || phase === 'MODIFIED') this.upsert(obj);
            else if (phase === 'DELETED') this.remove(obj);
          },
          (err: unknown) => {
            this.open = false;
            this.lastProgress = Date.now();
            if (refused && this.active) reject(refused);
            else if (err && !gone && !endsCleanly(err) && this.active) reject(err);
            else resolve(gone);
          },
        )
        .then((ac) => {
          this.abort = ac;
          this.open = true;
          // Stopped while the request was on its way: close it now, not at the server's timeout.
          if (!this.active) ac.abort();
        }, reject);
    });
  }

  /**
   * An object this process just wrote, as the API server answered the write: shown at once (an
   * update event) instead of when its watch event arrives, so the next reconcile does not act on
   * the version before it and conflict. Events older than it are then skipped until the watch has
   * caught up. An object it just created is shown the same way, so a second reconcile does not
   * create it again. resourceVersions are compared as integers, as client-go's mutation cache does;
   * one that is not an integer is left to the watch.
   */
  written(received: T): void {
    const key = ResilientInformer.key(received);
    const rv = Number(received.metadata?.resourceVersion);
    const known = this.get(received.metadata?.namespace ?? '', received.metadata?.name ?? '');
    const cached = known ? Number(known.metadata?.resourceVersion) : 0;
    if (!Number.isSafeInteger(rv) || !Number.isSafeInteger(cached) || rv <= cached) return;
    this.overlaid.set(key, rv);
    this.upsert(received, true);
  }

  /** `kept`: already cut to what the cache keeps (a relist's items). */
  private upsert(received: T, written = false, kept = false): void {
    const obj = kept ? received : cachedStrings.internAll(this.transform(received));
    // What the watch brings from before this process's own write is not news any more (the key is
    // built only while some write is ahead of the watch: not for every event).
    if (!written && this.overlaid.size > 0) {
      const key = ResilientInformer.key(obj);
      const over = this.overlaid.get(key);
      if (over !== undefined) {
        if (Number(obj.metadata?.resourceVersion) < over) return;
        this.overlaid.delete(key);
      }
    }
    const ns = obj.metadata?.namespace ?? '';
    let m = this.byNamespace.get(ns);
    if (!m) this.byNamespace.set(ns, (m = new Map()));
    const name = obj.metadata?.name ?? '';
    const old = m.get(name);
    if (old && old.metadata?.resourceVersion === obj.metadata?.resourceVersion) return;
    if (old) this.index(old, false);
    m.set(name, obj);
    this.index(obj, true);
    if (old) this.emit('update', old, obj);
    else this.emit('add', obj);
  }

  private remove(obj: T): void {
    const key = ResilientInformer.key(obj);
    this.overlaid.delete(key);
    const ns = obj.metadata?.namespace ?? '';
    const m = this.byNamespace.get(ns);
    const old = m?.get(obj.metadata?.name ?? '');
    if (!m || !old) return;
    this.index(old, false);
    m.delete(obj.metadata?.name ?? '');
    this.emit('delete', old);
  }
}

/** Adds or removes one object under one label value of an index. */
function indexed<T>(values: Map<string, T | Set<T>>, value: string | undefined, obj: T, add: boolean): void {
  if (value === undefined) return;
  const found = values.get(value);
  if (add) {
    if (found === undefined) values.set(value, obj);
    else if (found instanceof Set) found.add(obj);
    else if (found !== obj) values.set(value, new Set([found, obj]));
  } else if (found instanceof Set) {
    found.delete(obj);
    if (found.size === 1) values.set(value, found.values().next().value as T);
  } else if (found === obj) values.delete(value);
}
