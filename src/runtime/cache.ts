// The typed in-memory store a reflector fills and reconcilers read from. Reads are synchronous
// and return the stored objects, deep-frozen: a write into a cached object throws (ESM is strict)
// instead of silently changing what every other reader sees, and is a compile error already (reads
// are typed `DeepReadonly`). Copy (structuredClone, `mutableCopy`) to mutate.
import type { KubernetesObject, V1LabelSelector, V1OwnerReference } from '@kubernetes/client-node';
import { matchesSelector } from './label-selector.js';
import { asReadonly, type DeepReadonly } from './readonly.js';
import { objectKey } from './resources.js';

/** A change of the cache; its objects are read-only (the stored, frozen ones; a delete's may be the last state seen). */
export type ObjectEvent<T> =
  { type: 'add'; obj: DeepReadonly<T> } | { type: 'update'; obj: DeepReadonly<T>; old: DeepReadonly<T> } | { type: 'delete'; obj: DeepReadonly<T> };

export const keyOf = (obj: DeepReadonly<KubernetesObject>): string => objectKey(obj.metadata?.namespace, obj.metadata?.name ?? '');

export function controllerOf(obj: DeepReadonly<KubernetesObject>): DeepReadonly<V1OwnerReference> | undefined {
  return obj.metadata?.ownerReferences?.find((r) => r.controller === true);
}

/** What a cache keeps of each object it is given (a new object; the input is left as it is). */
export type CacheTransform<T> = (obj: T) => T;

/**
 * managedFields are often larger than the object itself: only who wrote it is kept (manager and
 * operation, no field sets), which is how we recognise a shared object we created.
 */
export function withoutFieldSets<T extends KubernetesObject>(obj: T): T {
  const fields = obj.metadata?.managedFields;
  if (!fields) return obj;
  return { ...obj, metadata: { ...obj.metadata, managedFields: fields.map(({ manager, operation }) => ({ manager, operation })) } };
}

/** Freezes an object and everything it holds; returns it. */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  for (const v of Object.values(value)) deepFreeze(v);
  return Object.freeze(value);
}

/**
 * resourceVersions are opaque, but etcd-backed servers hand out increasing integers; comparing them
 * lets a write's response go into the cache (write-through) without an older watch event that
 * arrives afterwards rolling it back. Non-numeric versions compare as "different means newer".
 */
export function isNewer(candidate: string | undefined, current: string | undefined): boolean {
  if (candidate === current) return false;
  if (candidate && current && /^\d+$/.test(candidate) && /^\d+$/.test(current)) return BigInt(candidate) > BigInt(current);
  return true;
}

export interface CacheOptions<T> {
  /** Runs on everything stored: list, watch and write-through alike. */
  transform?: CacheTransform<T>;
  /** A label whose value, with the namespace, is indexed: `list` with it in matchLabels reads only those objects. */
  indexLabel?: string;
}

/**
 * What a reconciler, a mapper or a snapshot reads a cache through: lookups only, every object
 * deep-readonly. Writing (`upsert`, `remove`, `replace`) is on `ObjectCache` alone, which only a
 * reflector (its source) and the executor's write-through hold.
 */
export interface CacheReader<T extends KubernetesObject> {
  readonly size: number;
  get(namespace: string | undefined, name: string): DeepReadonly<T> | undefined;
  getByKey(key: string): DeepReadonly<T> | undefined;
  keys(): string[];
  list(opts?: { namespace?: string; selector?: V1LabelSelector }): readonly DeepReadonly<T>[];
  listByOwnerUid(uid: string): DeepReadonly<T>[];
  listByOwner(kind: string, namespace: string | undefined, name: string): DeepReadonly<T>[];
}

export class ObjectCache<T extends KubernetesObject> implements CacheReader<T> {
  private readonly transform: CacheTransform<T>;
  private readonly indexLabel?: string;
  private readonly objects = new Map<string, T>();
  // Secondary indexes, each value → keys: controller-owner UID, namespace, namespace + indexLabel value.
  private readonly byOwnerUid = new KeyIndex();
  private readonly byNamespace = new KeyIndex();
  private readonly byLabel = new KeyIndex();
  /** Bumped by every change; `list()` of everything is rebuilt only when it moved. */
  private version = 0;
  private everything?: { version: number; objects: readonly DeepReadonly<T>[] };

  constructor(o: CacheOptions<T> = {}) {
    this.transform = o.transform ?? withoutFieldSets;
    this.indexLabel = o.indexLabel;
  }

  /** A cache filled from listed objects (planning outside the operator: `diff`, `render`, tests). */
  static from<T extends KubernetesObject>(objects: Iterable<T>, o: CacheOptions<T> = {}): ObjectCache<T> {
    const cache = new ObjectCache<T>(o);
    cache.replace([...objects]);
    return cache;
  }

  get size(): number {
    return this.objects.size;
  }

  get(namespace: string | undefined, name: string): DeepReadonly<T> | undefined {
    return this.getByKey(objectKey(namespace, name));
  }

  getByKey(key: string): DeepReadonly<T> | undefined {
    const obj = this.objects.get(key);
    // Deep-frozen on the way in (upsert): readers see it as it is, read-only.
    return obj && asReadonly(obj);
  }

  keys(): string[] {
    return [...this.objects.keys()];
  }

  /** All objects, optionally in one namespace and matching a label selector. */
  list(opts: { namespace?: string; selector?: V1LabelSelector } = {}): readonly DeepReadonly<T>[] {
    if (opts.namespace === undefined && opts.selector === undefined) return this.all();
    const out: DeepReadonly<T>[] = [];
    const candidates = this.candidates(opts.namespace, opts.selector);
    for (const obj of candidates ? [...candidates].map((k) => this.objects.get(k)) : this.objects.values()) {
      if (!obj) continue;
      if (opts.namespace !== undefined && obj.metadata?.namespace !== opts.namespace) continue;
      if (opts.selector && !matchesSelector(opts.selector, obj.metadata?.labels)) continue;
      out.push(asReadonly(obj));
    }
    return out;
  }

  /**
   * Every object, as one frozen array shared by all readers until the cache changes: a pass that reads
   * every node gets the array the previous pass got, so what is derived from it can be memoized by identity.
   */
  private all(): readonly DeepReadonly<T>[] {
    if (this.everything?.version !== this.version)
      this.everything = { version: this.version, objects: Object.freeze([...this.objects.values()].map((o) => asReadonly(o))) };
    return this.everything.objects;
  }

  /** Objects whose controller ownerReference has this UID (what `Owns()` needs). */
  listByOwnerUid(uid: string): DeepReadonly<T>[] {
    return [...this.byOwnerUid.keys(uid)].map((k) => this.getByKey(k)).filter((o) => o !== undefined);
  }

  /** Objects controlled by an owner of this kind and name, in one namespace (UID-agnostic, e.g. after an owner was recreated). */
  listByOwner(kind: string, namespace: string | undefined, name: string): DeepReadonly<T>[] {
    return this.list({ namespace }).filter((o) => {
      const ref = controllerOf(o);
      return ref?.kind === kind && ref.name === name;
    });
  }

  /** Inserts or replaces; returns the event to emit, or undefined when nothing changed. */
  upsert(given: T): ObjectEvent<T> | undefined {
    const key = keyOf(given);
    const old = this.objects.get(key);
    if (old && old.metadata?.uid === given.metadata?.uid && !isNewer(given.metadata?.resourceVersion, old.metadata?.resourceVersion)) return undefined;
    const obj = this.transform(given);
    if (old) this.unindex(key, old);
    deepFreeze(obj);
    this.objects.set(key, obj);
    this.index(key, obj);
    this.version++;
    return old ? { type: 'update', obj: asReadonly(obj), old: asReadonly(old) } : { type: 'add', obj: asReadonly(obj) };
  }

  remove(obj: T): ObjectEvent<T> | undefined {
    const key = keyOf(obj);
    const old = this.objects.get(key);
    if (!old) return undefined;
    this.unindex(key, old);
    this.objects.delete(key);
    this.version++;
    // Emit the last state we knew, kept like everything else.
    return { type: 'delete', obj: asReadonly(obj.metadata?.resourceVersion ? this.transform(obj) : old) };
  }

  /** Swaps in a fresh list (after a relist); returns the add/update/delete events that reconcile the difference. */
  replace(objs: T[]): ObjectEvent<T>[] {
    const events: ObjectEvent<T>[] = [];
    const fresh = new Set(objs.map(keyOf));
    for (const [key, old] of this.objects)
      if (!fresh.has(key)) {
        const e = this.remove(old);
        if (e) events.push(e);
      }
    for (const obj of objs) {
      const e = this.upsert(obj);
      if (e) events.push(e);
    }
    return events;
  }

  /** The keys an index narrows a list to; undefined when no index applies (scan everything). */
  private candidates(namespace: string | undefined, selector: V1LabelSelector | undefined): Iterable<string> | undefined {
    if (namespace === undefined) return undefined;
    const value = this.indexLabel ? selector?.matchLabels?.[this.indexLabel] : undefined;
    return value !== undefined ? this.byLabel.keys(labelSlot(namespace, value)) : this.byNamespace.keys(namespace);
  }

  private slots(obj: T): [KeyIndex, string | undefined][] {
    const ns = obj.metadata?.namespace ?? '';
    const value = this.indexLabel ? obj.metadata?.labels?.[this.indexLabel] : undefined;
    return [
      [this.byOwnerUid, controllerOf(obj)?.uid],
      [this.byNamespace, ns],
      [this.byLabel, value !== undefined ? labelSlot(ns, value) : undefined],
    ];
  }

  private index(key: string, obj: T): void {
    for (const [idx, slot] of this.slots(obj)) if (slot !== undefined) idx.add(slot, key);
  }

  private unindex(key: string, obj: T): void {
    for (const [idx, slot] of this.slots(obj)) if (slot !== undefined) idx.delete(slot, key);
  }
}

const labelSlot = (namespace: string, value: string): string => `${namespace}\u0000${value}`;

/** value → set of object keys; empty sets are dropped. */
class KeyIndex {
  private readonly sets = new Map<string, Set<string>>();

  keys(value: string): ReadonlySet<string> {
    return this.sets.get(value) ?? EMPTY;
  }

  add(value: string, key: string): void {
    let set = this.sets.get(value);
    if (!set) this.sets.set(value, (set = new Set()));
    set.add(key);
  }

  delete(value: string, key: string): void {
    const set = this.sets.get(value);
    if (!set) return;
    set.delete(key);
    if (set.size === 0) this.sets.delete(value);
  }
}

const EMPTY: ReadonlySet<string> = new Set();
