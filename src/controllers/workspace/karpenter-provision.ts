// Karpenter mode (--node-provisioner=karpenter, KAITO v0.11+): the plan's step that keeps one
// NodePool per workspace at the node count still missing. The counting and the conditions are
// planKarpenter's (karpenter-plan.ts); this step turns its answer into actions.
import type { KubernetesObject, V1Node } from '@kubernetes/client-node';
import {
  KARPENTER_MANAGED_BY_KAITO,
  LABEL_KARPENTER_MANAGED_BY,
  LABEL_KARPENTER_WORKSPACE_NAME,
  LABEL_KARPENTER_WORKSPACE_NAMESPACE,
} from '../../api/labels.js';
import type { NodeClassConfig } from '../../api/node-class-config.js';
import type { ResolvedWorkspace } from '../../api/resolved-workspace.js';
import { nodePoolUpdate } from '../../builders/nodepool.js';
import type { DeepReadonly } from '../../runtime/readonly.js';
import { Resources, type ResourceType } from '../../runtime/resources.js';
import type { WorkspaceObject } from './context.js';
import { planKarpenter } from './karpenter-plan.js';
import type { PlanBuilder } from './plan-builder.js';
import type { ProvisioningPlan } from './provisioning-plan.js';

/** The NodeClass kind of the flags, as the runtime addresses it (cluster-scoped, like every Karpenter NodeClass). */
export function nodeClassResource(cfg: Pick<NodeClassConfig, 'group' | 'version' | 'resourceName' | 'kind'> | undefined): ResourceType {
  if (!cfg) throw new Error('karpenter mode needs the NodeClass configuration (--karpenter-node-classes)');
  return { group: cfg.group, version: cfg.version, plural: cfg.resourceName, kind: cfg.kind, namespaced: false };
}

/** Ours (or KAITO's, which we adopt): the managed-by label and this workspace's identity labels. */
export function nodePoolIsOurs(pool: DeepReadonly<KubernetesObject>, ws: WorkspaceObject): boolean {
  const labels = pool.metadata?.labels ?? {};
  return (
    labels[LABEL_KARPENTER_MANAGED_BY] === KARPENTER_MANAGED_BY_KAITO &&
    labels[LABEL_KARPENTER_WORKSPACE_NAME] === ws.metadata.name &&
    labels[LABEL_KARPENTER_WORKSPACE_NAMESPACE] === ws.metadata.namespace
  );
}

/** Nodes Karpenter made for this workspace's NodePool (its template labels name the workspace). */
export function poolNodes<N extends DeepReadonly<V1Node>>(ws: WorkspaceObject, nodes: readonly N[]): N[] {
  return nodes.filter(
    (n) =>
      n.metadata?.labels?.[LABEL_KARPENTER_WORKSPACE_NAME] === ws.metadata.name &&
      n.metadata?.labels?.[LABEL_KARPENTER_WORKSPACE_NAMESPACE] === ws.metadata.namespace,
  );
}

/**
 * The NodePool step: created with the missing count and only ever raised, as KAITO does, so nodes
 * that serve are never taken away. A raise applies the count and the disruption budgets as cached
 * (nodePoolUpdate: the InferenceSet's drift step applies them under the same field manager), at the
 * resourceVersion read; the rest of a pool KAITO made stays as KAITO wrote it.
 */
export function provisionKarpenter(b: PlanBuilder, target: number, resolved: ResolvedWorkspace): ProvisioningPlan {
  const { snap, ws } = b;
  const config = snap.config.nodeClasses;
  if (!config) throw new Error('karpenter mode without a NodeClass configuration');
  const plan = planKarpenter({
    ws,
    target,
    nodes: snap.nodes,
    nodeClaims: snap.poolClaims,
    legacyNodeClaims: snap.claims,
    nodePool: snap.nodePool,
    nodeClasses: snap.nodeClasses,
    config,
    catalogSku: !!resolved.sku?.gpu,
    waitLimitMs: snap.config.nodeProvisioningTimeoutMs,
    now: snap.now,
  });
  const write = plan.write;
  if (write?.kind === 'create') {
    const name = write.nodePool.metadata.name;
    b.add({
      kind: 'create',
      type: Resources.nodePools,
      object: write.nodePool,
      why: `${write.nodePool.spec.replicas} node(s) missing for ${target} target node(s)`,
      created: {
        type: 'Normal',
        reason: 'NodePoolCreated',
        message: `NodePool ${name} created for ${write.nodePool.spec.replicas} node(s) of ${ws.resource?.instanceType}`,
      },
      failed: { type: 'Warning', reason: 'NodePoolCreationFailed', message: `NodePool ${name}` },
    });
  } else if (write?.kind === 'scale' && snap.nodePool) {
    const scale = nodePoolUpdate(snap.nodePool, { replicas: write.replicas });
    b.add({ kind: 'apply', type: Resources.nodePools, object: scale, why: `raise replicas to ${write.replicas} for ${target} target node(s)` });
  }
  return {
    toCreate: 0,
    replacements: 0,
    claims: plan.nodeClaims,
    ...(plan.nodeClaims.ready && !plan.nodes.ready ? { nodeIssue: { reason: plan.nodes.reason, message: plan.nodes.message } } : {}),
    nodesUsable: plan.nodesUsable,
    nodesToLabel: plan.nodesToLabel,
    ...(plan.recheckAfterMs !== undefined ? { recheckAfterMs: plan.recheckAfterMs } : {}),
  };
}
