// Node auto-provisioning I/O: reads claims and nodes from the caches, creates the claims the plan asks
// for (counted in a workspace annotation first, so a crash never forgets a create), labels their nodes
// as KAITO does, and deletes them when the workspace goes. Never waits: claim and node events wake it.
import { ACCELERATOR_NVIDIA, LABEL_ACCELERATOR } from '../../api/labels.js';
import type { ResolvedWorkspace } from '../../api/resolved-workspace.js';
import { buildNodeClaim, nodeClaimName, nodeClaimSelector, type NodeClaim } from '../../builders/nodeclaim.js';
import { MERGE_PATCH } from '../../runtime/client.js';
import { ignoreGone, isAlreadyExists } from '../../runtime/errors.js';
import { Resources } from '../../runtime/resources.js';
import type { WorkspaceDeps, WorkspaceObject } from './context.js';
import { NODECLAIMS_CREATED_ANNOTATION, planProvisioning, type ProvisioningPlan } from './provisioning-plan.js';

/** Claims labelled for this workspace (by label, never by name: the name carries a timestamp). */
export function workspaceClaims(ws: WorkspaceObject, deps: WorkspaceDeps): NodeClaim[] {
  return deps.caches.nodeClaims?.list({ selector: { matchLabels: nodeClaimSelector(ws) } }) ?? [];
}

export function createdSoFar(ws: WorkspaceObject): number {
  return Number(ws.metadata.annotations?.[NODECLAIMS_CREATED_ANNOTATION] ?? 0) || 0;
}

export function planFor(ws: WorkspaceObject, deps: WorkspaceDeps, target: number, resolved: ResolvedWorkspace): ProvisioningPlan {
  return planProvisioning({
    ws,
    target,
    claims: workspaceClaims(ws, deps),
    nodes: deps.caches.nodes.list(),
    created: createdSoFar(ws),
    catalogSku: !!resolved.sku?.gpu,
    waitLimitMs: deps.config.nodeProvisioningTimeoutMs,
    now: deps.now(),
  });
}

/**
 * Creates `plan.toCreate` claims. `countCreates` persists the new total on the workspace before any
 * create, so a restart in between over-counts (safe) instead of creating twice.
 */
export async function createClaims(ws: WorkspaceObject, deps: WorkspaceDeps, resolved: ResolvedWorkspace, plan: ProvisioningPlan, countCreates: (total: number) => Promise<WorkspaceObject>): Promise<WorkspaceObject> {
  if (plan.toCreate === 0) return ws;
  const current = await countCreates(createdSoFar(ws) + plan.toCreate);
  const now = deps.now();
  for (let i = 0; i < plan.toCreate; i++) {
    const claim = buildNodeClaim(ws, resolved, nodeClaimName(ws, now, i));
    try {
      const created = await deps.client.create<NodeClaim>(Resources.nodeClaims, claim);
      deps.caches.nodeClaims?.upsert(created);
      await deps.recorder.event(ws, 'Normal', 'NodeClaimCreated', `NodeClaim ${claim.metadata.name} created for instance type ${ws.resource?.instanceType}`);
    } catch (err) {
      if (isAlreadyExists(err)) continue;
      await deps.recorder.event(ws, 'Warning', 'NodeClaimCreationFailed', `NodeClaim ${claim.metadata.name}: ${(err as Error).message}`);
      throw err;
    }
  }
  if (plan.replacements > 0) {
    await deps.recorder.event(ws, 'Warning', 'NodeClaimReplaced', `${plan.replacements} NodeClaim(s) replaced after their predecessor went away (node repair, expiry or deletion); each node is replaced at most once`);
  }
  return current;
}

/** KAITO labels the nodes of its claims accelerator=nvidia; only our claims' nodes, only that label. */
export async function labelClaimNodes(deps: WorkspaceDeps, names: readonly string[]): Promise<void> {
  for (const name of names) {
    const node = deps.caches.nodes.get(undefined, name);
    if (!node) continue;
    const patch = { metadata: { resourceVersion: node.metadata?.resourceVersion, labels: { [LABEL_ACCELERATOR]: ACCELERATOR_NVIDIA } } };
    const patched = await deps.client.patch(Resources.nodes, { name }, patch, MERGE_PATCH).catch(ignoreGone);
    if (patched) deps.caches.nodes.upsert(patched);
  }
}

/**
 * Deletion: deletes the workspace's claims (UID-guarded) and says which remain. Returns the claims
 * still present; the caller keeps its finalizer until none is.
 */
export async function deleteClaims(ws: WorkspaceObject, deps: WorkspaceDeps): Promise<NodeClaim[]> {
  const claims = workspaceClaims(ws, deps);
  for (const c of claims.filter((x) => !x.metadata.deletionTimestamp)) {
    await deps.client.delete(Resources.nodeClaims, { name: c.metadata.name }, { uid: c.metadata.uid ?? '' }).catch(ignoreGone);
  }
  return claims;
}

export function claimsLeftMessage(claims: readonly NodeClaim[]): string {
  const list = claims.map((c) => `${c.metadata.name}${c.metadata.finalizers?.length ? ` (finalizers: ${c.metadata.finalizers.join(', ')})` : ''}`);
  return `workspace is being deleted; waiting for ${claims.length} NodeClaim(s) to be removed by the provisioner: ${list.join(', ')}`;
}
