// Metadata shared by every object the operator applies for a workspace: owner reference, names,
// and the workspace label set used by selectors.
import type { V1ObjectMeta, V1OwnerReference } from '@kubernetes/client-node';
import { LABEL_INFERENCESET_CREATED_BY, LABEL_WORKSPACE_NAME } from '../api/labels.js';
import { API_VERSION, KIND, type Workspace } from '../api/types.js';
import type { DeepReadonly } from '../runtime/readonly.js';

/** Namespace a workspace renders into (`default` when the manifest has none). */
export function workspaceNamespace(ws: DeepReadonly<Workspace>): string {
  return ws.metadata.namespace || 'default';
}

export function workspaceName(ws: DeepReadonly<Workspace>): string {
  return ws.metadata.name ?? '';
}

/**
 * The controller owner reference every generated object carries (GC deletes them with their owner):
 * a Workspace's children, or an InferenceSet's Workspaces and revisions (the same API group and version).
 */
export function controllerOwnerRef(
  owner: { readonly metadata: { readonly name?: string; readonly uid?: string } },
  kind: 'Workspace' | 'InferenceSet' = KIND,
): V1OwnerReference {
  return {
    apiVersion: API_VERSION,
    kind,
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/**
 * name, namespace and owner reference of a generated object. A workspace read from a file has no uid yet;
 * its objects then carry no owner reference (one with an empty uid would be refused by the API server).
 */
export function ownedMeta(ws: DeepReadonly<Workspace>, name: string): V1ObjectMeta {
  const meta: V1ObjectMeta = { name, namespace: workspaceNamespace(ws) };
  if (ws.metadata.uid) meta.ownerReferences = [controllerOwnerRef(ws)];
  return meta;
}

/** `kaito.sh/workspace: <name>` plus the InferenceSet label when the workspace carries it (spec §5.2). */
export function workspaceSelectorLabels(ws: DeepReadonly<Workspace>): Record<string, string> {
  const labels: Record<string, string> = { [LABEL_WORKSPACE_NAME]: workspaceName(ws) };
  const createdBy = ws.metadata.labels?.[LABEL_INFERENCESET_CREATED_BY];
  if (createdBy !== undefined) labels[LABEL_INFERENCESET_CREATED_BY] = createdBy;
  return labels;
}

/** `<name>-headless`: the StatefulSet's governing Service. */
export function headlessServiceName(ws: DeepReadonly<Workspace>): string {
  return `${workspaceName(ws)}-headless`;
}

/** DNS name of pod 0 through the headless Service, where Ray workers find the leader. */
export function leaderAddress(ws: DeepReadonly<Workspace>): string {
  const name = workspaceName(ws);
  return `${name}-0.${headlessServiceName(ws)}.${workspaceNamespace(ws)}.svc.cluster.local`;
}
