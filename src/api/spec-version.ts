// The apiVersion a workspace's spec was written in. KAITO's webhook validates each request with the
// rules of the request's own version, so a v1alpha1 workspace meets rules a v1beta1 one does not
// (v1alpha1-rules.ts). kaito-ts reads every workspace through v1beta1, the storage version, so the
// object's own apiVersion says nothing; managedFields do: each writer's entry records the apiVersion
// it wrote with and the fields it owns.
import type { V1ManagedFieldsEntry } from '@kubernetes/client-node';
import type { DeepReadonly } from '../runtime/readonly.js';
import { ALPHA_VERSION, GROUP, VERSION, type Workspace } from './types.js';

export type SpecVersion = typeof ALPHA_VERSION | typeof VERSION;

const ALPHA_API_VERSION = `${GROUP}/${ALPHA_VERSION}`;

/** The spec's top-level fields, as managedFields name them. */
const SPEC_FIELDS = ['f:resource', 'f:inference', 'f:tuning'] as const;

type Entry = DeepReadonly<V1ManagedFieldsEntry>;

/**
 * v1alpha1 when the object says so (a file, or a read through v1alpha1), else when every writer of
 * its spec wrote through v1alpha1. A spec edited through v1beta1 since, or with no managedFields,
 * counts as v1beta1: only the storage version's rules are applied to it.
 */
export function specVersionOf(ws: DeepReadonly<Pick<Workspace, 'apiVersion' | 'metadata'>>): SpecVersion {
  if (ws.apiVersion === ALPHA_API_VERSION) return ALPHA_VERSION;
  const writers = (ws.metadata?.managedFields ?? []).filter((m) => specFieldsOf(m).length > 0);
  return writers.length > 0 && writers.every((m) => m.apiVersion === ALPHA_API_VERSION) ? ALPHA_VERSION : VERSION;
}

/** A managedFields entry cut down to what specVersionOf reads: who, how, with which version, which spec fields. */
export function specWriterOf(entry: V1ManagedFieldsEntry): V1ManagedFieldsEntry {
  const owned = specFieldsOf(entry);
  return {
    manager: entry.manager,
    operation: entry.operation,
    ...(entry.apiVersion !== undefined ? { apiVersion: entry.apiVersion } : {}),
    ...(owned.length > 0 ? { fieldsV1: Object.fromEntries(owned.map((f) => [f, {}])) } : {}),
  };
}

function specFieldsOf(entry: Entry): string[] {
  const fields: unknown = entry.fieldsV1;
  if (typeof fields !== 'object' || fields === null || entry.subresource) return [];
  return SPEC_FIELDS.filter((f) => f in fields);
}
