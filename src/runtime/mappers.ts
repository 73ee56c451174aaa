// Event → keys mapping functions (controller-runtime's handler package). A mapper looks at one
// changed object and names the primary objects ("namespace/name") that must be reconciled.
import { isDeepStrictEqual } from 'node:util';
import type { KubernetesObject } from '@kubernetes/client-node';
import { controllerOf, keyOf, type ObjectEvent } from './cache.js';
import type { DeepReadonly } from './readonly.js';
import { objectKey } from './resources.js';

export type Mapper<T extends KubernetesObject = KubernetesObject> = (event: ObjectEvent<T>) => string[];

/** The object itself (`For(...)`). */
export const enqueueSelf: Mapper = (e) => [keyOf(e.obj)];

/**
 * The controlling owner of the given kind (`Owns(...)`): a StatefulSet with
 * `ownerReferences[controller=true] = Workspace/w1` enqueues `ns/w1`. On update the old owner is
 * enqueued too, in case the reference changed. `apiGroup` guards against same-named kinds.
 */
export function enqueueOwner(kind: string, apiGroup?: string): Mapper {
  const ownerKey = (obj: DeepReadonly<KubernetesObject>): string | undefined => {
    const ref = controllerOf(obj);
    if (!ref || ref.kind !== kind) return undefined;
    if (apiGroup !== undefined && groupOf(ref.apiVersion) !== apiGroup) return undefined;
    return objectKey(obj.metadata?.namespace, ref.name);
  };
  return (e) => unique([ownerKey(e.obj), e.type === 'update' ? ownerKey(e.old) : undefined]);
}

/**
 * The primary named by two labels of the object (cluster-scoped children, which carry no owner
 * reference: a NodePool names its workspace, or its InferenceSet). On update the old labels' too.
 */
export function enqueueLabelled(nameLabel: string, namespaceLabel: string): <T extends KubernetesObject>(e: ObjectEvent<T>) => string[] {
  const key = (obj: DeepReadonly<KubernetesObject> | undefined): string | undefined => {
    const name = obj?.metadata?.labels?.[nameLabel];
    const ns = obj?.metadata?.labels?.[namespaceLabel];
    return name && ns ? objectKey(ns, name) : undefined;
  };
  return (e) => unique([key(e.obj), e.type === 'update' ? key(e.old) : undefined]);
}

/** Only when a predicate holds (controller-runtime predicates), e.g. "node labels changed". */
export function when<T extends KubernetesObject>(predicate: (e: ObjectEvent<T>) => boolean, mapper: Mapper<T>): Mapper<T> {
  return (e) => (predicate(e) ? mapper(e) : []);
}

/** Drops updates that only touched status/metadata noise: same generation, same labels. */
export function generationOrLabelsChanged(e: ObjectEvent<KubernetesObject>): boolean {
  if (e.type !== 'update') return true;
  const a = e.old.metadata;
  const b = e.obj.metadata;
  return a?.generation !== b?.generation || !isDeepStrictEqual(a?.labels ?? {}, b?.labels ?? {});
}

const groupOf = (apiVersion: string): string => (apiVersion.includes('/') ? apiVersion.split('/')[0]! : '');

function unique(keys: (string | undefined)[]): string[] {
  return [...new Set(keys.filter((k): k is string => k !== undefined))];
}
