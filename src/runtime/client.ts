// The thin I/O shell the reconciler writes through. Children are written with server-side apply
// under ONE field manager, status only through the status subresource, deletes carry a UID
// precondition. Reads normally come from the caches; `get` is for the rare direct read.
import type { KubernetesObject } from '@kubernetes/client-node';
import { apiVersionOf, resourcePath, type ResourceType } from './resources.js';
import { WRITE_VERBS, type HttpRequest, type KubeTransport, type Query, type StreamHandle } from './transport.js';
import { NotLeaderError, type Leadership } from './leadership.js';
import type { Priority } from './rate-limit.js';

export const FIELD_MANAGER = 'kaito-ts';
export const APPLY_PATCH = 'application/apply-patch+yaml';
export const MERGE_PATCH = 'application/merge-patch+json';
export const JSON_PATCH = 'application/json-patch+json';

export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

export interface ApplyOptions {
  /** Take ownership of fields another manager holds. Controllers normally force (SSA docs). */
  force?: boolean;
  dryRun?: boolean;
}

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  accept?: string;
  signal?: AbortSignal;
}

/** A list as the server sends it (raw JSON: `metadata.continue`, not client-node's `_continue`). */
export interface ObjectList<T> {
  apiVersion?: string;
  kind?: string;
  metadata?: { resourceVersion?: string; continue?: string };
  items: T[];
}

export interface ClientOptions {
  fieldManager?: string;
  /** Default for `apply` when the call does not say. */
  force?: boolean;
}

/** What every request of a bound client carries (`withSignal`). */
export interface CallOptions {
  /** Aborts every request of the client, in flight or not yet sent: they reject with kind 'Aborted'. */
  signal?: AbortSignal;
  /** Per-request timeout instead of the transport's (30 s); not for watches, which have their own watchdog. */
  timeoutMs?: number;
  /** The line every request waits in for the QPS budget (`withPriority`, `deferred`); `normal` when absent. */
  priority?: Priority;
  /** Ends a deferral: once it fires, deferred requests wait in the `high` line. */
  urgent?: AbortSignal;
  /** Writes are sent only while this holds (checked last, after the QPS wait): `guardedBy`. */
  leadership?: Leadership;
}

export class KubeClient {
  readonly fieldManager: string;
  private readonly force: boolean;

  constructor(
    readonly transport: KubeTransport,
    opts: ClientOptions = {},
    private readonly call: CallOptions = {},
  ) {
    this.fieldManager = opts.fieldManager ?? FIELD_MANAGER;
    this.force = opts.force ?? true;
  }

  /** The signal every request of this client carries (from `withSignal`), if any. */
  get signal(): AbortSignal | undefined {
    return this.call.signal;
  }

  /**
   * The same client (transport, field manager, counters) with every request bound to `signal`: a
   * reconcile passes its `ctx.signal` so a stopping controller cancels the pass's calls on the wire,
   * and a call whose signal has already fired is never sent. Binding a bound client aborts on either
   * signal. `timeoutMs` overrides the per-request timeout for these calls.
   */
  withSignal(signal: AbortSignal, opts: { timeoutMs?: number } = {}): KubeClient {
    return new KubeClient(
      this.transport,
      { fieldManager: this.fieldManager, force: this.force },
      {
        ...this.call,
        signal: anySignal(this.call.signal, signal),
        timeoutMs: opts.timeoutMs ?? this.call.timeoutMs,
      },
    );
  }

  /**
   * The same client whose requests yield the QPS budget to every request of other clients: for
   * writes that can follow later (a new workspace's Services and status once its model load started).
   * `urgent` ends that: a request waiting when it fires, or sent after, goes in the `high` line.
   */
  deferred(urgent?: AbortSignal): KubeClient {
    return this.withPriority('deferred', urgent);
  }

  /** The same client with every request in `priority`'s line for the QPS budget (TokenBucket.acquire). */
  withPriority(priority: Priority, urgent?: AbortSignal): KubeClient {
    const { urgent: _previous, ...call } = this.call;
    return new KubeClient(this.transport, { fieldManager: this.fieldManager, force: this.force }, { ...call, priority, ...(urgent ? { urgent } : {}) });
  }

  /**
   * The same client whose writes are sent only while `leadership` holds, checked the moment before
   * each goes on the wire; a refused write rejects with NotLeaderError. Reads are never refused.
   */
  guardedBy(leadership: Leadership): KubeClient {
    return new KubeClient(this.transport, { fieldManager: this.fieldManager, force: this.force }, { ...this.call, leadership });
  }

  get counter() {
    return this.transport.counter;
  }

  get<T extends KubernetesObject>(type: ResourceType, namespace: string | undefined, name: string): Promise<T> {
    return this.send<T>({ verb: 'get', method: 'GET', path: resourcePath(type, namespace, name) });
  }

  list<T extends KubernetesObject>(type: ResourceType, opts: ListOptions = {}): Promise<ObjectList<T>> {
    const { namespace, signal, accept, ...query } = opts;
    return this.send({ verb: 'list', method: 'GET', path: resourcePath(type, namespace), query: { ...query }, accept, signal });
  }

  create<T extends KubernetesObject>(type: ResourceType, obj: T): Promise<T> {
    return this.send<T>({
      verb: 'create',
      method: 'POST',
      path: resourcePath(type, obj.metadata?.namespace),
      query: { fieldManager: this.fieldManager },
      body: withTypeMeta(type, obj),
    });
  }

  /** Replaces the whole object (PUT); `obj.metadata.resourceVersion` guards it: 409 when the object moved on. */
  update<T extends KubernetesObject>(type: ResourceType, obj: T): Promise<T> {
    const name = obj.metadata?.name;
    if (!name) throw new Error(`update ${type.kind}: metadata.name is required`);
    return this.send<T>({
      verb: 'update',
      method: 'PUT',
      path: resourcePath(type, obj.metadata?.namespace, name),
      query: { fieldManager: this.fieldManager },
      body: withTypeMeta(type, obj),
    });
  }

  /**
   * Server-side apply: send only the fields we have an opinion on. Re-applying the same intent
   * is a no-op on the server (resourceVersion unchanged).
   */
  apply<T extends KubernetesObject>(type: ResourceType, obj: T, opts: ApplyOptions = {}): Promise<T> {
    return this.applyTo(type, obj, undefined, opts);
  }

  /** SSA on the status subresource. `status` must be the whole status this manager owns. */
  applyStatus<T extends KubernetesObject>(type: ResourceType, ref: ObjectRefLike, status: unknown, opts: ApplyOptions = {}): Promise<T> {
    const body = { metadata: { name: ref.name, namespace: ref.namespace }, status } as KubernetesObject;
    return this.applyTo(type, body as T, 'status', opts);
  }

  /** Merge patch of `{status}` on the status subresource (replaces lists wholesale). */
  mergePatchStatus<T extends KubernetesObject>(type: ResourceType, ref: ObjectRefLike, status: unknown): Promise<T> {
    return this.patch<T>(type, ref, { status }, MERGE_PATCH, 'status');
  }

  /** Merge or JSON patch (e.g. a `test`-guarded finalizer removal). Strategic merge is not offered: CRs reject it. */
  patch<T extends KubernetesObject>(
    type: ResourceType,
    ref: ObjectRefLike,
    body: unknown,
    contentType: typeof MERGE_PATCH | typeof JSON_PATCH = MERGE_PATCH,
    subresource?: string,
  ): Promise<T> {
    return this.send<T>({
      verb: 'patch',
      method: 'PATCH',
      path: resourcePath(type, ref.namespace, ref.name, subresource),
      query: { fieldManager: this.fieldManager },
      body,
      contentType,
    });
  }

  /**
   * Delete; with `uid` the server refuses (409 Conflict) when the name now belongs to another
   * object — so we never delete something we did not look at.
   */
  delete(
    type: ResourceType,
    ref: ObjectRefLike,
    opts: { uid?: string; resourceVersion?: string; propagationPolicy?: PropagationPolicy; gracePeriodSeconds?: number } = {},
  ): Promise<unknown> {
    const preconditions = opts.uid || opts.resourceVersion ? { uid: opts.uid, resourceVersion: opts.resourceVersion } : undefined;
    return this.send({
      verb: 'delete',
      method: 'DELETE',
      path: resourcePath(type, ref.namespace, ref.name),
      body: {
        apiVersion: 'v1',
        kind: 'DeleteOptions',
        preconditions,
        propagationPolicy: opts.propagationPolicy ?? 'Background',
        gracePeriodSeconds: opts.gracePeriodSeconds,
      },
    });
  }

  /** One watch request; the Reflector owns restarts. */
  watch(
    type: ResourceType,
    query: Query,
    onLine: (line: string) => void,
    idleTimeoutMs: number,
    opts: { namespace?: string; accept?: string; signal?: AbortSignal } = {},
  ): Promise<StreamHandle> {
    return this.transport.stream(
      {
        verb: 'watch',
        method: 'GET',
        path: resourcePath(type, opts.namespace),
        query: { ...query, watch: true },
        accept: opts.accept,
        signal: anySignal(this.call.signal, opts.signal),
      },
      onLine,
      idleTimeoutMs,
    );
  }

  private applyTo<T extends KubernetesObject>(type: ResourceType, obj: T, subresource: string | undefined, opts: ApplyOptions): Promise<T> {
    const name = obj.metadata?.name;
    if (!name) throw new Error(`apply ${type.kind}: metadata.name is required`);
    return this.send<T>({
      verb: 'apply',
      method: 'PATCH',
      path: resourcePath(type, obj.metadata?.namespace, name, subresource),
      query: { fieldManager: this.fieldManager, force: opts.force ?? this.force, dryRun: opts.dryRun ? 'All' : undefined },
      // JSON is YAML, and the apiserver accepts it under the apply content type.
      body: withTypeMeta(type, obj),
      contentType: APPLY_PATCH,
    });
  }

  /** Every request but watches goes out here, with this client's signal and timeout. */
  private send<T>(req: HttpRequest): Promise<T> {
    return this.transport.request<T>({
      ...req,
      signal: anySignal(this.call.signal, req.signal),
      timeoutMs: req.timeoutMs ?? this.call.timeoutMs,
      ...(this.call.priority ? { priority: this.call.priority } : {}),
      ...(this.call.priority === 'deferred' && this.call.urgent ? { urgent: this.call.urgent } : {}),
      ...(this.call.leadership && WRITE_VERBS.includes(req.verb) ? { beforeSend: leadershipCheck(this.call.leadership, req) } : {}),
    });
  }
}

function leadershipCheck(leadership: Leadership, req: HttpRequest): () => void {
  return () => {
    if (!leadership.holds(`${req.verb} ${req.path}`))
      throw new NotLeaderError(`${req.verb} ${req.path} not sent: this process no longer holds the leader lease`);
  };
}

/** One signal that fires when either does (undefined when neither is given). */
function anySignal(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  if (!a || !b || a === b) return a ?? b;
  return AbortSignal.any([a, b]);
}

export interface ObjectRefLike {
  namespace?: string;
  name: string;
}

/** SSA needs apiVersion and kind in the body; fill them from the resource type when absent. */
export function withTypeMeta<T extends KubernetesObject>(type: ResourceType, obj: T): T {
  return { ...obj, apiVersion: obj.apiVersion ?? apiVersionOf(type), kind: obj.kind ?? type.kind };
}
