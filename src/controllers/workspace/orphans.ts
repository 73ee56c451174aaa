// Nodes left behind: NodeClaims (and, in Karpenter mode, NodePools) labelled for a workspace that no
// longer exists. They are cluster-scoped, so no owner reference can make garbage collection follow
// the namespaced workspace, and a claim created in a window the finalizer cannot close (a create in
// flight when the workspace was finalized, a kill between a create and its record, a pass that read a
// stale cache) would keep a GPU node billed for ever. The reconciler asks for every key whose
// workspace is not in the cache: on start (the claims' initial list enqueues their workspaces), on a
// workspace's deletion, and whenever such a claim appears. Pure: the reconciler does the live GET.
import {
  KARPENTER_MANAGED_BY_KAITO,
  LABEL_KARPENTER_INFERENCESET,
  LABEL_KARPENTER_MANAGED_BY,
  LABEL_KARPENTER_WORKSPACE_NAME,
  LABEL_KARPENTER_WORKSPACE_NAMESPACE,
  LABEL_WORKSPACE_NAME,
  LABEL_WORKSPACE_NAMESPACE,
} from '../../api/labels.js';
import type { NodeClaim } from '../../builders/nodeclaim.js';
import type { NodePool } from '../../builders/nodepool.js';
import type { DeepReadonly } from '../../runtime/readonly.js';
import { Resources } from '../../runtime/resources.js';
import type { Action, Plan } from '../shared/actions.js';

export const OrphanReason = { NodeClaim: 'OrphanNodeClaimDeleted', NodePool: 'OrphanNodePoolDeleted' } as const;

export interface OrphanInput {
  /** The workspace the key names. */
  namespace: string;
  name: string;
  /** NodeClaims from the cache labelled for it (kaito.sh/workspace, kaito.sh/workspacenamespace). */
  claims: readonly DeepReadonly<NodeClaim>[];
  /** Karpenter mode: NodePools from the cache labelled for it (karpenter.kaito.sh/workspace-name, -namespace). */
  pools: readonly DeepReadonly<NodePool>[];
  /** What a live GET of the workspace said; absent until asked, so a cache lag never deletes a live workspace's node. */
  live?: 'absent' | 'present';
}

export type OrphanPlan =
  /** Nothing labelled for it, or the workspace exists after all. */
  | { verdict: 'none' }
  /** Candidates found in the cache: ask the API server whether the workspace exists. */
  | { verdict: 'confirm'; claims: number; pools: number }
  /** The workspace is gone: delete each (UID-guarded), each with an event. */
  | { verdict: 'collect'; plan: Plan<object> };

const labelledFor = (o: DeepReadonly<{ metadata: { labels?: Record<string, string> } }>, nameKey: string, nsKey: string, i: OrphanInput): boolean =>
  o.metadata.labels?.[nameKey] === i.name && o.metadata.labels?.[nsKey] === i.namespace;

export function planOrphans(i: OrphanInput): OrphanPlan {
  // Already deleting ones are on their way (the provisioner or Karpenter drains them).
  const claims = i.claims.filter((c) => !c.metadata.deletionTimestamp && labelledFor(c, LABEL_WORKSPACE_NAME, LABEL_WORKSPACE_NAMESPACE, i));
  // Only pools KAITO's way of making them marks as ours; Karpenter drains a deleted pool's claims and nodes.
  const pools = i.pools.filter(
    (p) =>
      !p.metadata.deletionTimestamp &&
      p.metadata.labels[LABEL_KARPENTER_MANAGED_BY] === KARPENTER_MANAGED_BY_KAITO &&
      labelledFor(p, LABEL_KARPENTER_WORKSPACE_NAME, LABEL_KARPENTER_WORKSPACE_NAMESPACE, i),
  );
  if (!claims.length && !pools.length) return { verdict: 'none' };
  if (i.live === undefined) return { verdict: 'confirm', claims: claims.length, pools: pools.length };
  if (i.live === 'present') return { verdict: 'none' };

  const gone = `workspace ${i.namespace}/${i.name}`;
  const actions: Action<object>[] = [];
  for (const c of claims) {
    const why = `it is labelled for ${gone}, which no longer exists`;
    actions.push(
      { kind: 'delete', type: Resources.nodeClaims, ref: { name: c.metadata.name }, uid: c.metadata.uid ?? '', why },
      {
        kind: 'event',
        regarding: { apiVersion: 'karpenter.sh/v1', kind: 'NodeClaim', metadata: { name: c.metadata.name, uid: c.metadata.uid ?? '' } },
        note: { type: 'Normal', reason: OrphanReason.NodeClaim, message: `Deleted NodeClaim ${c.metadata.name}: ${why}; its node goes with it` },
      },
    );
  }
  for (const p of pools) {
    const set = p.metadata.labels[LABEL_KARPENTER_INFERENCESET];
    const why = `it is labelled for ${gone}${set ? ` (InferenceSet ${i.namespace}/${set})` : ''}, which no longer exists`;
    actions.push(
      { kind: 'delete', type: Resources.nodePools, ref: { name: p.metadata.name }, uid: p.metadata.uid ?? '', why },
      {
        kind: 'event',
        regarding: { apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: p.metadata.name, uid: p.metadata.uid ?? '' } },
        note: { type: 'Normal', reason: OrphanReason.NodePool, message: `Deleted NodePool ${p.metadata.name}: ${why}; Karpenter drains its nodes` },
      },
    );
  }
  return { verdict: 'collect', plan: { actions } };
}

/** The cache reads planOrphans needs, by the labels KAITO puts on each kind. */
export function orphanSelectors(namespace: string, name: string): { claims: Record<string, string>; pools: Record<string, string> } {
  return {
    claims: { [LABEL_WORKSPACE_NAME]: name, [LABEL_WORKSPACE_NAMESPACE]: namespace },
    pools: { [LABEL_KARPENTER_WORKSPACE_NAME]: name, [LABEL_KARPENTER_WORKSPACE_NAMESPACE]: namespace },
  };
}
