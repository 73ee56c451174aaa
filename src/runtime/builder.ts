// Declarative controller wiring (controller-runtime's builder: For / Owns / Watches; kube-rs's
// Controller::new().owns().watches()). A controller is declared as a table of the kinds it reads:
// for each, how narrowly it is watched (selectors, metadata only, cache transform and index label,
// namespace scope, required or optional) and how one of its changes maps to primary keys. `build`
// makes one Reflector per row, typed caches keyed by the row names, and the Controller fed by them.
//
//   const { controller, caches } = new ControllerBuilder({ client, namespace })
//     .for('workspaces', resource<Workspace>(Resources.workspaces))
//     .owns('statefulSets', resource<V1StatefulSet>(Resources.statefulSets))
//     .watches('nodes', resource<V1Node>(Resources.nodes), { when: nodeChanged, map: (c) => selecting(c.workspaces) })
//     .build({ name: 'workspace', reconcile });
import type { KubernetesObject } from '@kubernetes/client-node';
import type { CacheReader, CacheTransform, ObjectCache, ObjectEvent } from './cache.js';
import type { KubeClient } from './client.js';
import { Controller, type ControllerOptions } from './controller.js';
import type { KubeApiError } from './errors.js';
import { enqueueOwner, enqueueSelf, when as onlyWhen, type Mapper } from './mappers.js';
import { Reflector } from './reflector.js';
import type { ResourceType } from './resources.js';
import type { Lane } from './workqueue.js';

/** A resource type that carries the object type its cache holds (a phantom: nothing at run time). */
export interface TypedResource<T extends KubernetesObject> {
  readonly type: ResourceType;
  /** Never set; only ties `T` to the descriptor. */
  readonly object?: T;
}

/** `resource<V1Pod>(Resources.pods)`: the descriptor, typed for the builder. */
export const resource = <T extends KubernetesObject = KubernetesObject>(type: ResourceType): TypedResource<T> => ({ type });

/** Row name → object type; the builder's type parameter. */
export type KindMap = Record<string, KubernetesObject | undefined>;

/** One typed cache per row (optional rows, from `gated`, stay optional). */
export type CachesOf<M extends KindMap> = { [K in keyof M]: ObjectCache<NonNullable<M[K]>> };
/** The same caches, read-only: what mappers are given (only the reflectors write). */
export type ReadersOf<M extends KindMap> = { [K in keyof M]: CacheReader<NonNullable<M[K]>> };
/** One typed reflector per row. */
export type ReflectorsOf<M extends KindMap> = { [K in keyof M]: Reflector<NonNullable<M[K]>> };

/** How narrowly one kind is watched and cached. */
export interface SourceOptions<T extends KubernetesObject> {
  labelSelector?: string;
  fieldSelector?: string;
  /** PartialObjectMetadata, annotations dropped (Secrets: never hold a value). */
  metadataOnly?: boolean;
  /** What the cache keeps; the builder's `transform` otherwise. */
  transform?: CacheTransform<T>;
  /** A label the cache indexes (with the namespace). */
  indexLabel?: string;
  /**
   * Namespace scope: the builder's `namespace` for namespaced kinds by default; a name watches that
   * namespace, `null` all of them. Cluster-scoped kinds are always watched cluster-wide.
   */
  namespace?: string | null;
  /** false: the source may never sync (an optional CRD) and cannot hold `start()` back. Default true. */
  required?: boolean;
  /** Only events for which this holds are mapped (controller-runtime predicates). */
  when?: (e: ObjectEvent<T>) => boolean;
  /** `fast`: this kind's events report progress (a pod turned Ready) and jump the queue's normal lane. */
  lane?: Lane;
  /** A fast event for which this holds also ends the deferral of its key's pass in process (`ReconcileContext.urgent`). */
  urgentWhen?: (e: ObjectEvent<T>) => boolean;
}

export interface WatchesOptions<T extends KubernetesObject, C> extends SourceOptions<T> {
  /** The mapper, made once at build time from every cache of the table, read-only (so it may read other kinds). */
  map: (caches: C) => Mapper<T>;
}

export interface BuilderOptions {
  client: KubeClient;
  /** Namespaced kinds are watched in this namespace only; all namespaces otherwise. */
  namespace?: string;
  /** The cache transform of rows that name none (the cache's own default otherwise: managedFields cut down). */
  transform?: CacheTransform<KubernetesObject>;
  /** Every reflector's failures (it retries regardless). */
  onWatchError?: (type: ResourceType, err: KubeApiError) => void;
}

export interface BuiltController<M extends KindMap> {
  controller: Controller;
  caches: CachesOf<M>;
  /** By row name: `synced`, `hasSynced`, `lastError` of one kind. */
  sources: ReflectorsOf<M>;
  /** Every reflector, in table order (what a manager starts before leader election). */
  reflectors: Reflector<KubernetesObject>[];
  /** The reflectors of required rows: what readiness waits for. */
  required: Reflector<KubernetesObject>[];
}

/** One row, with its object type erased (the builder's casts are where rows go in and where caches come out). */
interface Row {
  key: string;
  type: ResourceType;
  options: SourceOptions<KubernetesObject>;
  map: (caches: Record<string, CacheReader<KubernetesObject>>) => Mapper;
}

export class ControllerBuilder<M extends KindMap = Record<never, never>> {
  private forType?: ResourceType;

  constructor(
    private readonly o: BuilderOptions,
    private readonly rows: Row[] = [],
  ) {}

  /** The primary kind (`For`): its own events enqueue it. Exactly one per controller, declared first. */
  for<K extends string, T extends KubernetesObject>(key: K, kind: TypedResource<T>, opts: SourceOptions<T> = {}): ControllerBuilder<M & Record<K, T>> {
    if (this.forType) throw new Error(`builder: a second For (${kind.type.kind}); ${this.forType.kind} is the primary kind`);
    if (this.rows.length) throw new Error(`builder: For (${kind.type.kind}) must be declared first`);
    const next = this.add<K, T>(key, kind, opts, () => enqueueSelf);
    next.forType = kind.type;
    return next;
  }

  /** A kind the primary kind controls (`Owns`): events enqueue the controller-owner of the For kind. */
  owns<K extends string, T extends KubernetesObject>(key: K, kind: TypedResource<T>, opts: SourceOptions<T> = {}): ControllerBuilder<M & Record<K, T>> {
    const owner = this.forType;
    if (!owner) throw new Error(`builder: Owns (${kind.type.kind}) needs For first`);
    const mapper = enqueueOwner(owner.kind, owner.group);
    return this.add<K, T>(key, kind, opts, () => mapper);
  }

  /** Any other kind (`Watches`), with its own mapper. */
  watches<K extends string, T extends KubernetesObject>(
    key: K,
    kind: TypedResource<T>,
    opts: WatchesOptions<T, ReadersOf<M & Record<K, T>>>,
  ): ControllerBuilder<M & Record<K, T>> {
    return this.add<K, T>(key, kind, opts, opts.map);
  }

  /**
   * Rows declared by `declare` only when `enabled` (a feature gate): their caches and reflectors are
   * optional in the result, and absent when disabled.
   */
  gated<M2 extends M>(enabled: boolean, declare: (b: ControllerBuilder<M>) => ControllerBuilder<M2>): ControllerBuilder<M & Partial<Omit<M2, keyof M>>> {
    return (enabled ? declare(this) : this).retype<M & Partial<Omit<M2, keyof M>>>();
  }

  /** Makes the reflectors, the caches and the controller, and feeds each row through its mapper. */
  build(opts: ControllerOptions): BuiltController<M> {
    const made = this.rows.map((row) => ({ row, reflector: this.reflector(row) }));
    const caches: Record<string, ObjectCache<KubernetesObject>> = {};
    const sources: Record<string, Reflector<KubernetesObject>> = {};
    for (const { row, reflector } of made) {
      caches[row.key] = reflector.cache;
      sources[row.key] = reflector;
    }
    const controller = new Controller(opts);
    for (const { row, reflector } of made) {
      const mapper = row.map(caches);
      controller.watch(reflector, row.options.when ? onlyWhen(row.options.when, mapper) : mapper, {
        required: row.options.required ?? true,
        ...(row.options.lane ? { lane: row.options.lane } : {}),
        ...(row.options.urgentWhen ? { urgentWhen: row.options.urgentWhen } : {}),
      });
    }
    // The rows were added under M's keys with M's object types: they come back typed.
    const typed = { caches, sources } as unknown as Pick<BuiltController<M>, 'caches' | 'sources'>;
    return {
      controller,
      ...typed,
      reflectors: made.map((m) => m.reflector),
      required: made.filter((m) => m.row.options.required ?? true).map((m) => m.reflector),
    };
  }

  private add<K extends string, T extends KubernetesObject>(
    // The For and Owns mappers are untyped (Mapper<KubernetesObject>): an event of T is one of KubernetesObject.
    key: K,
    kind: TypedResource<T>,
    options: SourceOptions<T>,
    map: (caches: ReadersOf<M & Record<K, T>>) => Mapper<T> | Mapper,
  ): ControllerBuilder<M & Record<K, T>> {
    if (this.rows.some((r) => r.key === key)) throw new Error(`builder: two rows named ${key}`);
    // A row forgets its object type (a Mapper<T> is no Mapper<KubernetesObject>); build() gives it back.
    const row = { key, type: kind.type, options, map } as unknown as Row;
    this.rows.push(row);
    return this.retype<M & Record<K, T>>();
  }

  /** The same rows under a wider table type (M is only a compile-time record of them). */
  private retype<N extends KindMap>(): ControllerBuilder<N> {
    const next = new ControllerBuilder<N>(this.o, this.rows);
    next.forType = this.forType;
    return next;
  }

  private reflector(row: Row): Reflector<KubernetesObject> {
    const { type, options: s } = row;
    const namespace = !type.namespaced ? undefined : s.namespace === null ? undefined : (s.namespace ?? this.o.namespace);
    const transform = s.transform ?? this.o.transform;
    return new Reflector<KubernetesObject>({
      client: this.o.client,
      type,
      ...(namespace ? { namespace } : {}),
      ...(s.labelSelector !== undefined ? { labelSelector: s.labelSelector } : {}),
      ...(s.fieldSelector !== undefined ? { fieldSelector: s.fieldSelector } : {}),
      ...(s.metadataOnly ? { metadataOnly: true } : {}),
      cacheOptions: { ...(transform ? { transform } : {}), ...(s.indexLabel !== undefined ? { indexLabel: s.indexLabel } : {}) },
      ...(this.o.onWatchError ? { onError: (err: KubeApiError) => this.o.onWatchError?.(type, err) } : {}),
    });
  }
}
