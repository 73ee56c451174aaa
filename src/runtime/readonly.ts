// Read-only by type. What a cache stores is deep-frozen, so a write into it fails at run time;
// `DeepReadonly` makes the same write a compile error for whoever reads the cache.

/**
 * `T` with every property readonly, all the way down; arrays become `readonly` arrays, Maps and
 * Sets their read-only views. Functions and Dates are left as they are.
 */
export type DeepReadonly<T> = 0 extends 1 & T
  ? T // any stays any (client-node types a ControllerRevision's data so)
  : T extends (...args: never[]) => unknown
    ? T
    : T extends Date
      ? T
      : T extends ReadonlyMap<infer K, infer V>
        ? ReadonlyMap<DeepReadonly<K>, DeepReadonly<V>>
        : T extends ReadonlySet<infer U>
          ? ReadonlySet<DeepReadonly<U>>
          : T extends readonly (infer U)[]
            ? readonly DeepReadonly<U>[]
            : T extends object
              ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
              : T;

/**
 * `value` typed read-only, not copied. Always sound (anything may be read as read-only), but the
 * compiler cannot see that for a generic `T`: generic code (the cache) says it with this.
 */
export function asReadonly<T>(value: T): DeepReadonly<T> {
  // T → DeepReadonly<T> only removes the ability to write; a conditional type on a type parameter stays unresolved.
  return value as DeepReadonly<T>;
}

/**
 * A mutable copy of a read-only value: what a builder needs when it makes a new object from a
 * cached one. The type argument names what the copy is (`mutableCopy<V1PodSpec>(sts.spec.template.spec)`).
 */
export function mutableCopy<T>(value: DeepReadonly<T>): T {
  // structuredClone returns a fresh object graph nobody else holds: mutable whatever its type said.
  return structuredClone(value) as T;
}
