// Field-by-field comparison of a live object and what a server-side apply dry-run returned. Pure.
// Server bookkeeping (managedFields, resourceVersion, generation, timestamps) and status are not
// changes a user cares about: an apply that only touches them changes nothing.

type Json = unknown;

export interface FieldChange {
  path: string;
  /** undefined: the field is added. */
  before?: Json;
  /** undefined: the field is removed. */
  after?: Json;
}

const METADATA_NOISE = ['managedFields', 'resourceVersion', 'generation', 'creationTimestamp', 'selfLink'];

function isObject(v: Json): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The object without status and server bookkeeping. */
export function comparable(obj: Json): Json {
  if (!isObject(obj)) return obj;
  const { status: _status, metadata, ...rest } = obj;
  if (!isObject(metadata)) return rest;
  const kept = Object.fromEntries(Object.entries(metadata).filter(([k]) => !METADATA_NOISE.includes(k)));
  return { ...rest, metadata: kept };
}

/** Lists of named entries (containers, env, volumes, ports) are matched by name, as SSA merges them. */
function byName(list: readonly Json[]): Map<string, Json> | undefined {
  if (!list.every((e) => isObject(e) && typeof e.name === 'string')) return undefined;
  const map = new Map(list.map((e) => [(e as { name: string }).name, e]));
  return map.size === list.length ? map : undefined;
}

export function fieldChanges(before: Json, after: Json, path = ''): FieldChange[] {
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((k) => fieldChanges(before[k], after[k], path ? `${path}.${k}` : k));
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const b = byName(before);
    const a = byName(after);
    if (b && a && before.length + after.length > 0) {
      const names = [...new Set([...b.keys(), ...a.keys()])];
      return names.flatMap((n) => fieldChanges(b.get(n), a.get(n), `${path}[name=${n}]`));
    }
    if (before.length === after.length) return before.flatMap((v, i) => fieldChanges(v, after[i], `${path}[${i}]`));
  }
  return [{ path, ...(before === undefined ? {} : { before }), ...(after === undefined ? {} : { after }) }];
}

const MAX_VALUE = 120;

function show(v: Json): string {
  const text = JSON.stringify(v);
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text;
}

export function formatChange(c: FieldChange): string {
  if (!('before' in c)) return `+ ${c.path}: ${show(c.after)}`;
  if (!('after' in c)) return `- ${c.path}: ${show(c.before)}`;
  return `~ ${c.path}: ${show(c.before)} → ${show(c.after)}`;
}

/** How a difference of `diff --rebuild` fares with the reconciler. */
export type RebuildMark = 'would be written' | 'kept (adopted)' | 'kept (selective update)';

/**
 * Marks each rebuilt difference: written when the reconciler's own apply changes that field (or one
 * inside or around it), else kept: by adoption while the live StatefulSet is at the workspace's
 * revision (until its spec changes), else by the selective update, which writes only four parts.
 */
export function markRebuilt(changes: readonly FieldChange[], written: readonly FieldChange[], adopted: boolean): { change: FieldChange; mark: RebuildMark }[] {
  const touches = (a: string, b: string) => a === b || a.startsWith(`${b}.`) || a.startsWith(`${b}[`) || b.startsWith(`${a}.`) || b.startsWith(`${a}[`);
  return changes.map((change) => ({
    change,
    mark: written.some((w) => touches(change.path, w.path)) ? 'would be written' : adopted ? 'kept (adopted)' : 'kept (selective update)',
  }));
}
