// What survives Go's decoding of a JSON value into a known Go type: keys the Go struct does not declare
// are dropped (KAITO never sees them, and server-side apply would refuse them on a StatefulSet), and
// quantities take the form Go writes back. Values are otherwise kept as written.
import { canonicalQuantity } from '../../catalog/quantity-canonical.js';
import type { GoStructTable } from './encode.js';
import { K8S_STRUCTS } from './k8s-types.js';

export interface Pruned<T> {
  value: T;
  /** Paths of the dropped keys, e.g. `spec.containers[0].resource`, in document order. */
  dropped: string[];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function walk(v: unknown, type: string, structs: GoStructTable, path: string, dropped: string[]): unknown {
  if (v === null || v === undefined) return v;
  const bare = type.replace(/^\*+/, '');
  const fields = structs[bare];
  if (fields) {
    if (!isObject(v)) return v;
    const types = new Map(fields.map(([name, t]) => [name, t]));
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(v)) {
      const t = types.get(key);
      if (t === undefined) dropped.push(join(path, key));
      else out[key] = walk(value, t, structs, join(path, key), dropped);
    }
    return out;
  }
  if (bare.startsWith('[]') && Array.isArray(v)) return v.map((e, i) => walk(e, bare.slice(2), structs, `${path}[${i}]`, dropped));
  if (bare.startsWith('map:') && isObject(v)) {
    return Object.fromEntries(Object.entries(v).map(([k, e]) => [k, walk(e, bare.slice(4), structs, `${path}[${k}]`, dropped)]));
  }
  if (bare === 'quantity' && (typeof v === 'string' || typeof v === 'number')) return canonicalQuantity(v) ?? v;
  return v;
}

/** `value` as Go type `type` would keep it (see k8s-types.ts), and what was dropped. */
export function pruneToGoType<T>(value: T, type: string, structs: GoStructTable = K8S_STRUCTS): Pruned<T> {
  const dropped: string[] = [];
  return { value: walk(value, type, structs, '', dropped) as T, dropped };
}
