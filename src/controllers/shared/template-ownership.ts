// Who wrote a StatefulSet's pod template, read from managedFields, and the ownership transfer that
// lets our apply replace a template another manager wrote. KAITO's selective update is kept for
// templates kaito-ts wrote; a template KAITO (or anyone else) made is replaced whole at the first
// new revision, so a pod never mixes KAITO's image and command with our init containers and volumes.
// Server-side apply only removes fields the applier owns: before that apply, the template fields of
// the template's writer move to our Apply entry (the same idea as client-go's csaupgrade).
import type { KubernetesObject, V1ManagedFieldsEntry } from '@kubernetes/client-node';
import type { DeepReadonly } from '../../runtime/readonly.js';

type Entry = DeepReadonly<V1ManagedFieldsEntry>;
/** A fieldsV1 set: `f:`/`k:`/`v:` keys down to `{}` leaves (`.` marks the node itself). */
type FieldSet = { [key: string]: FieldSet };

const TEMPLATE_PATH = ['f:spec', 'f:template'] as const;
const CONTAINERS_PATH = ['f:spec', 'f:template', 'f:spec', 'f:containers'] as const;

const isSet = (v: unknown): v is FieldSet => typeof v === 'object' && v !== null && !Array.isArray(v);

function at(set: unknown, path: readonly string[]): FieldSet | undefined {
  let node: unknown = set;
  for (const key of path) node = isSet(node) ? node[key] : undefined;
  return isSet(node) ? node : undefined;
}

/** The name in a list-map key `k:{"name":"x"}`, if it is one. */
function keyName(key: string): string | undefined {
  if (!key.startsWith('k:')) return undefined;
  try {
    const parsed: unknown = JSON.parse(key.slice(2));
    return isSet(parsed) && typeof parsed.name === 'string' ? parsed.name : undefined;
  } catch {
    return undefined;
  }
}

const ours = (e: Entry, manager: string) => e.manager === manager && e.operation === 'Apply';

/**
 * The entry wrote the container `name` into the template: it owns the container's `name` (whoever
 * put the list item there does). A later edit of one field (kubectl set image) owns that field only.
 */
function wroteContainer(e: Entry, name: string): boolean {
  if (e.subresource) return false;
  const containers = at(e.fieldsV1, CONTAINERS_PATH);
  if (!containers) return false;
  return Object.entries(containers).some(([key, fields]) => keyName(key) === name && isSet(fields) && 'f:name' in fields);
}

/**
 * The pod template's main container was written by a manager other than ours (KAITO's controller
 * creating it). Our apply at the same revision co-owns the values it repeats but takes nothing away
 * from the writer, so such a template stays foreign until the ownership transfer.
 */
export function foreignTemplate(sts: DeepReadonly<KubernetesObject>, mainContainer: string, manager: string): boolean {
  return (sts.metadata?.managedFields ?? []).some((e) => !ours(e, manager) && wroteContainer(e, mainContainer));
}

/**
 * What the cache keeps of a StatefulSet's managedFields entry for foreignTemplate: who, how, and
 * which containers of the template it wrote (their `f:name` marks), nothing else.
 */
export function templateWriterOf(entry: V1ManagedFieldsEntry): V1ManagedFieldsEntry {
  const containers = at(entry.fieldsV1, CONTAINERS_PATH);
  const written = containers ? Object.keys(containers).filter((k) => keyName(k) !== undefined && isSet(containers[k]) && 'f:name' in containers[k]) : [];
  return {
    manager: entry.manager,
    operation: entry.operation,
    ...(entry.subresource ? { subresource: entry.subresource } : {}),
    ...(written.length ? { fieldsV1: nest(CONTAINERS_PATH, Object.fromEntries(written.map((k) => [k, { 'f:name': {} }]))) } : {}),
  };
}

function nest(path: readonly string[], leaf: FieldSet): FieldSet {
  return path.reduceRight<FieldSet>((inner, key) => ({ [key]: inner }), leaf);
}

function union(a: FieldSet, b: FieldSet): FieldSet {
  const out: FieldSet = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = out[k] ? union(out[k], v) : v;
  return out;
}

/** `set` without the subtree at `path`; parents left empty go too. */
function without(set: FieldSet, path: readonly string[]): FieldSet {
  const [head, ...rest] = path;
  if (head === undefined || !(head in set)) return set;
  const { [head]: child, ...others } = set;
  if (rest.length === 0) return others;
  const pruned = without(child!, rest);
  return Object.keys(pruned).length ? { ...others, [head]: pruned } : others;
}

/**
 * managedFields with the pod template of every manager that wrote the main container moved into
 * `manager`'s Apply entry (made if missing); entries left owning nothing are dropped. Other managers
 * (a user's sidecar, the status writers) keep what they own. Undefined when there is nothing to move.
 */
export function takeTemplateOwnership(
  entries: readonly Entry[],
  mainContainer: string,
  manager: string,
  apiVersion: string,
): V1ManagedFieldsEntry[] | undefined {
  const writers = entries.filter((e) => !ours(e, manager) && wroteContainer(e, mainContainer));
  if (writers.length === 0) return undefined;
  const copy = structuredClone(entries) as V1ManagedFieldsEntry[];
  let moved: FieldSet = {};
  const rest: V1ManagedFieldsEntry[] = [];
  for (const [i, e] of copy.entries()) {
    if (!writers.includes(entries[i]!)) {
      rest.push(e);
      continue;
    }
    const template = at(e.fieldsV1, TEMPLATE_PATH);
    if (template) moved = union(moved, template);
    const left = without(e.fieldsV1 as FieldSet, TEMPLATE_PATH);
    if (Object.keys(left).length) rest.push({ ...e, fieldsV1: left });
  }
  const grant = nest(TEMPLATE_PATH, moved);
  const mine = rest.find((e) => ours(e, manager));
  if (mine) {
    mine.fieldsV1 = union((mine.fieldsV1 ?? {}) as FieldSet, grant);
    return rest;
  }
  return [...rest, { manager, operation: 'Apply', apiVersion, fieldsType: 'FieldsV1', fieldsV1: grant }];
}
