// List + watch one resource into an ObjectCache, the way client-go's reflector does:
// paginated list, watch from the list's resourceVersion with bookmarks and a random 5–10 min
// server timeout, re-watch from the last seen version on a clean close, relist on 410 Gone,
// jittered backoff (800 ms → 30 s, reset after 2 min) on every other failure. It never gives up:
// a missing CRD or RBAC rule is reported and retried, it does not stop the process.
import type { KubernetesObject } from '@kubernetes/client-node';
import { ObjectCache, type CacheOptions, type ObjectEvent } from './cache.js';
import type { KubeClient } from './client.js';
import { KubeApiError, toKubeError } from './errors.js';
import { JitteredBackoff, Slots, sleep } from './rate-limit.js';
import type { ResourceType } from './resources.js';
import type { StreamHandle } from './transport.js';

export type EventHandler<T> = (event: ObjectEvent<T>) => void;

export interface ReflectorOptions<T extends KubernetesObject> {
  client: KubeClient;
  type: ResourceType;
  /** Restrict to one namespace; all namespaces otherwise. */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /**
   * Metadata only (PartialObjectMetadata), annotations dropped: for Secrets, whose values must never
   * be held (kubectl's last-applied annotation would carry them).
   */
  metadataOnly?: boolean;
  cache?: ObjectCache<T>;
  /** What the cache keeps and indexes (when the reflector makes the cache). */
  cacheOptions?: CacheOptions<T>;
  /** Seconds the server keeps one watch open; default random in [300, 600]. */
  watchTimeoutSeconds?: () => number;
  /** Items per list page (default 100). */
  pageSize?: number;
  /** Shared by reflectors whose lists should not run together (default: one slot per process). */
  listSlots?: Slots;
  backoff?: JitteredBackoff;
  /** Called on every failure (for logs/metrics); the reflector retries regardless. */
  onError?: (err: KubeApiError) => void;
}

export interface ReflectorStats {
  lists: number;
  watches: number;
  /** Relists forced by 410 Gone / "too old resource version". */
  expired: number;
  errors: number;
}

interface WatchLine {
  type?: string;
  object?: KubernetesObject & { code?: number; reason?: string; message?: string };
}

/**
 * Every reflector starts by listing, all at once. A page is held three times while it is read (the
 * chunks, their concatenation, the string) and once more parsed before the cache keeps a reduced copy,
 * so pages of 100 and one list at a time per process bound that transient memory: a restart over 1000
 * converged workspaces peaked at 143–153 MiB before, 124 MiB with this, about a second slower to have
 * passed every workspace (docs/benchmarks.md, "One list at a time").
 */
const DEFAULT_PAGE_SIZE = 100;
const LIST_SLOTS = new Slots(1);

export class Reflector<T extends KubernetesObject> {
  readonly cache: ObjectCache<T>;
  readonly stats: ReflectorStats = { lists: 0, watches: 0, expired: 0, errors: 0 };
  readonly synced: Promise<void>;
  lastError?: KubeApiError;
  private markSynced!: () => void;
  private isSynced = false;
  private resourceVersion?: string;
  private readonly handlers = new Set<EventHandler<T>>();
  private readonly stopper = new AbortController();
  private current?: StreamHandle;
  private loop?: Promise<void>;
  private readonly backoff: JitteredBackoff;

  constructor(private readonly o: ReflectorOptions<T>) {
    this.cache = o.cache ?? new ObjectCache<T>(o.cacheOptions);
    this.backoff = o.backoff ?? new JitteredBackoff();
    this.synced = new Promise((resolve) => (this.markSynced = resolve));
  }

  get name(): string {
    return `${this.o.type.plural}${this.o.namespace ? `@${this.o.namespace}` : ''}`;
  }

  get hasSynced(): boolean {
    return this.isSynced;
  }

  /** The last resourceVersion seen (list, event or bookmark). */
  get lastResourceVersion(): string | undefined {
    return this.resourceVersion;
  }

  /** Subscribes to add/update/delete; returns an unsubscribe function. */
  on(handler: EventHandler<T>): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  start(): this {
    this.loop ??= this.run();
    return this;
  }

  async stop(): Promise<void> {
    this.stopper.abort();
    this.current?.abort();
    await this.loop;
  }

  /**
   * Ends the current watch; the loop resumes from the last resourceVersion, or from
   * `fromResourceVersion` (tests use an ancient one to provoke 410 Gone on a real server).
   */
  restartWatch(fromResourceVersion?: string): void {
    if (fromResourceVersion !== undefined) this.resourceVersion = fromResourceVersion;
    this.current?.abort();
  }

  /** Resolves true when synced, false on timeout. */
  async waitForSync(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    try {
      return await Promise.race([this.synced.then(() => true), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private get stopped(): boolean {
    return this.stopper.signal.aborted;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        if (this.resourceVersion === undefined) await this.list();
        const sawEvents = await this.watchOnce();
        // A watch that closes at once without news would otherwise spin (client-node #1933).
        if (!sawEvents) await sleep(this.backoff.next(), this.stopper.signal);
      } catch (err) {
        if (this.stopped) break;
        const e = toKubeError(err);
        this.stats.errors++;
        this.lastError = e;
        this.o.onError?.(e);
        if (e.kind === 'Gone') {
          this.stats.expired++;
          this.resourceVersion = undefined;
          continue; // relist right away: our version is simply too old
        }
        // Network trouble: retry the watch from where we were; anything else: start over with a list.
        if (!e.retryable) this.resourceVersion = undefined;
        await sleep(this.backoff.next(), this.stopper.signal);
      }
    }
  }

  private async list(): Promise<void> {
    this.stats.lists++;
    // The whole list, pages and cache replace, holds the slot: the lists of a start then run one after
    // another instead of all growing together.
    await (this.o.listSlots ?? LIST_SLOTS).run(async () => {
      const items: T[] = [];
      let token: string | undefined;
      let rv: string | undefined;
      do {
        const page = await this.o.client.list<T>(this.o.type, {
          namespace: this.o.namespace,
          labelSelector: this.o.labelSelector,
          fieldSelector: this.o.fieldSelector,
          limit: this.o.pageSize ?? DEFAULT_PAGE_SIZE,
          continue: token,
          signal: this.stopper.signal,
          accept: this.o.metadataOnly ? METADATA_LIST : undefined,
        });
        // List items carry no apiVersion/kind; restore them so handlers see whole objects. An empty
        // PartialObjectMetadataList says `items: null`.
        for (const item of page.items ?? []) items.push(this.kept({ ...item, apiVersion: page.apiVersion, kind: this.o.type.kind }));
        token = page.metadata?.continue || undefined;
        rv = page.metadata?.resourceVersion;
      } while (token);
      this.emitAll(this.cache.replace(items));
      this.resourceVersion = rv;
    }, this.stopper.signal);
    if (!this.isSynced) {
      this.isSynced = true;
      this.markSynced();
    }
  }

  /** Runs one watch request to its end. Returns whether any event (or bookmark) arrived. */
  private async watchOnce(): Promise<boolean> {
    this.stats.watches++;
    const timeoutSeconds = this.o.watchTimeoutSeconds?.() ?? Math.floor(300 + Math.random() * 300);
    let sawEvents = false;
    let failure: KubeApiError | undefined;
    const handle = await this.o.client.watch(
      this.o.type,
      {
        resourceVersion: this.resourceVersion,
        allowWatchBookmarks: true,
        timeoutSeconds,
        labelSelector: this.o.labelSelector,
        fieldSelector: this.o.fieldSelector,
      },
      (line) => {
        const ev = failure ? undefined : parseLine(line);
        if (!ev) return;
        sawEvents = true;
        failure = this.apply(ev);
        if (failure) this.current?.abort();
      },
      // Watchdog for half-open connections: the server must have closed by then.
      (timeoutSeconds + 60) * 1000,
      { namespace: this.o.namespace, signal: this.stopper.signal, accept: this.o.metadataOnly ? METADATA_OBJECT : undefined },
    );
    this.current = handle;
    try {
      await handle.done;
    } finally {
      this.current = undefined;
    }
    if (failure) throw failure;
    return sawEvents;
  }

  /** Applies one watch event; returns an error that must end the watch. */
  private apply(ev: WatchLine): KubeApiError | undefined {
    const obj = ev.object?.metadata && ev.type !== 'ERROR' ? this.kept(ev.object as T) : (ev.object as T | undefined);
    if (ev.type === 'ERROR') {
      const s = ev.object ?? {};
      return new KubeApiError(s.code === 410 ? 'Gone' : 'Unknown', s.message ?? 'watch error', s.code, s.reason);
    }
    if (!obj?.metadata) return undefined;
    const rv = obj.metadata.resourceVersion;
    if (ev.type === 'BOOKMARK') {
      this.resourceVersion = rv ?? this.resourceVersion;
      return undefined;
    }
    const change = ev.type === 'DELETED' ? this.cache.remove(obj) : this.cache.upsert(obj);
    this.resourceVersion = rv ?? this.resourceVersion;
    if (change) this.emitAll([change]);
    return undefined;
  }

  /** What the cache keeps of an object: all of it, or its metadata without annotations. */
  private kept(obj: T): T {
    if (!this.o.metadataOnly) return obj;
    const { annotations: _dropped, ...metadata } = obj.metadata ?? {};
    return { apiVersion: obj.apiVersion, kind: this.o.type.kind, metadata } as T;
  }

  private emitAll(events: ObjectEvent<T>[]): void {
    for (const e of events) {
      for (const h of this.handlers) {
        try {
          h(e);
        } catch (err) {
          // One broken handler must not stop the stream for the others.
          this.o.onError?.(toKubeError(err));
        }
      }
    }
  }
}

export const METADATA_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
const METADATA_OBJECT = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';

function parseLine(line: string): WatchLine | undefined {
  try {
    return JSON.parse(line) as WatchLine;
  } catch {
    return undefined;
  }
}
