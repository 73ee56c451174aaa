// Ownership: a workspace counts, reuses, prunes and deletes only objects whose controller
// ownerReference carries its UID. Labels and names are claims anyone can make; the UID is not.
// A name we need that something else holds is a collision, reported and never touched.
import type { KubernetesObject } from '@kubernetes/client-node';
import { controllerOf } from '../../runtime/cache.js';
import type { WorkspaceObject } from './context.js';
import type { DeepReadonly } from '../../runtime/readonly.js';

export function ownedBy(obj: DeepReadonly<KubernetesObject>, ws: WorkspaceObject): boolean {
  const owner = controllerOf(obj);
  return owner?.kind === 'Workspace' && !!ws.metadata.uid && owner.uid === ws.metadata.uid;
}

/** The objects of `list` this workspace controls (look-alikes with our labels but no owner drop out). */
export function ownedOnly<T extends DeepReadonly<KubernetesObject>>(list: readonly T[], ws: WorkspaceObject): T[] {
  return list.filter((o) => ownedBy(o, ws));
}

/** One wording for every collision: the condition message and the Warning event say the same. */
export function notOwnedMessage(kind: string, obj: DeepReadonly<KubernetesObject>, consequence = 'kaito-ts leaves it untouched'): string {
  const ref = obj.metadata?.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : obj.metadata?.name;
  return `${kind} ${ref} exists and is not controlled by this workspace; ${consequence}`;
}

/**
 * A shared object we created (the default inference ConfigMap copy has no single owner): our field
 * manager wrote it, and we only ever create it, never write to one that exists. A look-alike with
 * our labels, made by anyone else, fails this.
 */
export function writtenBy(obj: DeepReadonly<KubernetesObject>, fieldManager: string): boolean {
  return (obj.metadata?.managedFields ?? []).some((m) => m.manager === fieldManager);
}
