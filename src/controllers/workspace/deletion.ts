// Deletion: announce it, clean up what ownerReferences cannot (the shared default inference or
// tuning ConfigMap copy, when no other workspace in the namespace uses it), then drop our finalizer.
// NodeClaims (cluster-scoped) are deleted and waited for. Owned objects (StatefulSet, Services,
// ControllerRevisions) go through garbage collection; the StatefulSet's NVMe claims follow it
// (whenDeleted: Delete).
import { DEFAULT_INFERENCE_CONFIG_TEMPLATE, WORKSPACE_FINALIZER } from '../../api/labels.js';
import { defaultTuningTemplate, tuningMethod } from '../../api/tuning-config.js';
import type { NodeClaim } from '../../builders/nodeclaim.js';
import type { DeepReadonly } from '../../runtime/readonly.js';
import { findConfigMap } from '../../builders/facts.js';
import { Resources } from '../../runtime/resources.js';
import type { Plan } from '../shared/actions.js';
import type { WorkspaceObject } from './context.js';
import { writtenBy } from './ownership.js';
import { nodePoolIsOurs } from './karpenter-provision.js';
import { PlanBuilder } from './plan-builder.js';
import type { WorkspaceSnapshot } from './snapshot.js';
import { deletingStatus } from './workspace-status.js';

/** Label kaito-ts puts on the ConfigMap copies it creates, so it only ever deletes its own. */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY = 'kaito-ts';

export function planDeletion(snap: WorkspaceSnapshot): Plan {
  const b = new PlanBuilder(snap);
  const { ws } = snap;
  const index = (ws.metadata.finalizers ?? []).indexOf(WORKSPACE_FINALIZER);
  if (index < 0) return b.done();
  // An empty NodeClaim cache that has not listed yet (just after a restart: the NodeClaim watch is
  // optional, so workers do not wait for it) proves nothing: dropping the finalizer now would leave the
  // workspace's claims, and their GPU nodes, behind for ever. Its sync enqueues every workspace.
  if (snap.provisioning === 'crdUnknown' || snap.provisioningSettled === false) {
    const { status, changed } = deletingStatus(ws, snap.now, NODE_CACHE_NOT_LISTED);
    return changed ? b.add({ kind: 'status', status }).done() : b.done();
  }
  // NodeClaims are cluster-scoped, so garbage collection cannot follow the workspace: delete them and
  // keep the finalizer until the provisioner has let them go (their deletion events bring us back).
  const claimsLeft = snap.claims;
  for (const c of claimsLeft.filter((x) => !x.metadata.deletionTimestamp)) {
    b.add({ kind: 'delete', type: Resources.nodeClaims, ref: { name: c.metadata.name }, uid: c.metadata.uid ?? '', why: 'the workspace is being deleted' });
  }
  // Karpenter mode: the NodePool goes, Karpenter drains its claims and nodes; we wait for both.
  const pool = snap.nodePool && nodePoolIsOurs(snap.nodePool, ws) ? snap.nodePool : undefined;
  if (pool && !pool.metadata.deletionTimestamp)
    b.add({
      kind: 'delete',
      type: Resources.nodePools,
      ref: { name: pool.metadata.name },
      uid: pool.metadata.uid ?? '',
      why: 'the workspace is being deleted',
    });
  const waitingFor = claimsLeft.length
    ? claimsLeftMessage(claimsLeft)
    : pool || snap.poolClaims.length
      ? poolLeftMessage(pool?.metadata.name, snap.poolClaims)
      : undefined;
  const { status, changed } = deletingStatus(ws, snap.now, waitingFor);
  if (changed) b.add({ kind: 'status', status });
  if (waitingFor) return b.done();

  const copy = unusedConfigCopy(snap);
  if (copy)
    b.add({
      kind: 'delete',
      type: Resources.configMaps,
      ref: { namespace: copy.metadata?.namespace, name: copy.metadata?.name ?? '' },
      uid: copy.metadata?.uid ?? '',
      why: 'the shared config copy no other workspace of the namespace uses',
    });
  return b.add({ kind: 'removeFinalizer', index, finalizer: WORKSPACE_FINALIZER }).done();
}

export const NODE_CACHE_NOT_LISTED =
  'workspace is being deleted; waiting for the NodeClaim and NodePool caches to list once before deciding which nodes are left';

export function poolLeftMessage(pool: string | undefined, claims: readonly DeepReadonly<NodeClaim>[]): string {
  const what = [pool ? `NodePool ${pool}` : '', claims.length ? `${claims.length} NodeClaim(s) (${claims.map((c) => c.metadata.name).join(', ')})` : '']
    .filter(Boolean)
    .join(' and ');
  return `workspace is being deleted; waiting for Karpenter to remove ${what} and their nodes`;
}

export function claimsLeftMessage(claims: readonly DeepReadonly<NodeClaim>[]): string {
  const list = claims.map((c) => `${c.metadata.name}${c.metadata.finalizers?.length ? ` (finalizers: ${c.metadata.finalizers.join(', ')})` : ''}`);
  return `workspace is being deleted; waiting for ${claims.length} NodeClaim(s) to be removed by the provisioner: ${list.join(', ')}`;
}

/** The shared default ConfigMap copy a workspace reads (inference or tuning template), if it uses one. */
function defaultConfigCopyName(ws: DeepReadonly<WorkspaceObject>): string | undefined {
  if (ws.tuning) {
    const method = tuningMethod(ws.tuning.method);
    return ws.tuning.config || !method ? undefined : defaultTuningTemplate(method);
  }
  return ws.inference && !ws.inference.config ? DEFAULT_INFERENCE_CONFIG_TEMPLATE : undefined;
}

function unusedConfigCopy(snap: WorkspaceSnapshot) {
  const { ws } = snap;
  const name = defaultConfigCopyName(ws);
  if (!name) return undefined;
  const ns = ws.metadata.namespace ?? 'default';
  const cm = findConfigMap(snap, ns, name);
  // Our label alone proves nothing (anyone can copy it): the copy must also have been written by us.
  if (!cm || cm.metadata?.labels?.[MANAGED_BY_LABEL] !== MANAGED_BY || !writtenBy(cm, snap.fieldManager) || ns === snap.config.releaseNamespace)
    return undefined;
  const stillUsed = snap.namespaceWorkspaces.some(
    (other) => other.metadata.uid !== ws.metadata.uid && !other.metadata.deletionTimestamp && defaultConfigCopyName(other) === name,
  );
  return stillUsed ? undefined : cm;
}
