// Node provisioning through a Karpenter NodePool (KAITO v0.12 `--node-provisioner=karpenter`,
// pkg/nodeprovision/karpenter/provisioner.go), decided from observed objects: pure, `now` passed in.
// KAITO's counting: nodes already covered (ready BYO nodes, live gpu-provisioner NodeClaims) reduce
// the pool's replicas, which only ever grow. Beyond KAITO: every failing claim's own words in the
// message, a bounded wait with its own reason, and when to look again.
import type { V1Node } from '@kubernetes/client-node';
import {
  LABEL_ACCELERATOR,
  ACCELERATOR_NVIDIA,
  LABEL_INSTANCE_TYPE,
  LABEL_KARPENTER_WORKSPACE_NAME,
  LABEL_WORKSPACE_NAME,
  ConditionMessage,
} from '../../api/labels.js';
import type { NodeClassConfig } from '../../api/node-class-config.js';
import { sanitizedMatchLabels } from '../../api/selector.js';
import type { Workspace } from '../../api/types.js';
import { readyMatchingNodes, matchingNodes } from '../../builders/facts.js';
import { objectNamed } from '../../runtime/memo.js';
import { workspaceName } from '../../builders/meta.js';
import type { NodeClaim } from '../../builders/nodeclaim.js';
import { buildNodePool, karpenterNodeAffinity, resolveNodeClassName, type NodePool } from '../../builders/nodepool.js';
import { hasTrueCondition, isReady } from '../../runtime/conditions.js';
import type { DeepReadonly } from '../../runtime/readonly.js';
import { nodePressureWarning } from './node-pressure.js';
import { claimIsReady, claimProblem, gpuCapacity, ProvisioningReason, timeOf, type ConditionFacts } from './provisioning-plan.js';

/** KAITO v0.12's karpenter-mode reasons and messages, and kaito-ts's own beyond them. */
export const KarpenterReason = {
  NodeClaimNotReady: 'NodeClaimNotReady',
  NodeClaimsReady: 'NodeClaimsReady',
  NodeNotReady: 'NodeNotReady',
  NodesReady: 'NodesReady',
  NodePluginsNotReady: 'NodePluginsNotReady',
  ResourceNotReady: 'workspaceResourceStatusNotReady',
  ResourceReady: 'workspaceResourceStatusSuccess',
  /** kaito-ts: KAITO returns these as reconcile errors and leaves the conditions as they were. */
  NodeClassNotPermitted: 'NodeClassNotPermitted',
  NodeClassNotReady: 'NodeClassNotReady',
  Timeout: ProvisioningReason.Timeout,
} as const;

export const KarpenterMessage = {
  nodeClaimsNotReady: 'Ready NodeClaims are not enough',
  nodeClaimsReady: 'Enough NodeClaims are ready',
  nodesNotReady: 'Not enough Nodes are ready',
  nodesReady: 'Enough Nodes are ready with GPU resources',
  resourceNotReady: 'node claim or node status condition not ready',
  resourceReady: ConditionMessage.resourceReady,
  nodePluginsWaiting: ConditionMessage.nodePluginsWaiting,
} as const;

/** KAITO requeues after this when nodes are missing and no watch event would bring it back. */
export const KARPENTER_NODE_RECHECK_MS = 2000;
/** Karpenter's not-yet-reconciled condition reason: not an error (KAITO shows it only when no error exists). */
const AWAITING_RECONCILIATION = 'AwaitingReconciliation';
const MAX_STATE_MESSAGE = 256;
const LIFECYCLE = ['Launched', 'Registered', 'Initialized'] as const;

/** An observed NodeClass (any provider kind): KAITO requires Ready=True before it writes the pool. */
export interface ObservedNodeClass {
  metadata: { name?: string };
  status?: { conditions?: { type: string; status: string }[] };
}

export interface KarpenterInput {
  ws: DeepReadonly<Workspace>;
  /** status.targetNodeCount. */
  target: number;
  nodes: readonly DeepReadonly<V1Node>[];
  /** NodeClaims labelled karpenter.sh/nodepool=<this pool>. */
  nodeClaims: readonly DeepReadonly<NodeClaim>[];
  /** gpu-provisioner NodeClaims labelled for this workspace (kaito.sh/workspace, kaito.sh/workspacenamespace). */
  legacyNodeClaims: readonly DeepReadonly<NodeClaim>[];
  nodePool: DeepReadonly<NodePool> | undefined;
  nodeClasses: readonly DeepReadonly<ObservedNodeClass>[];
  config: Pick<NodeClassConfig, 'group' | 'kind' | 'defaultName' | 'nodeClassNames'>;
  /** Is the instance type in the GPU catalog (KAITO checks node plugins only then)? */
  catalogSku: boolean;
  waitLimitMs: number;
  now: Date;
}

export type NodePoolWrite = { kind: 'create'; nodePool: NodePool } | { kind: 'scale'; name: string; replicas: number };

export interface KarpenterPlan {
  /** What ProvisionNodes writes; undefined when it writes nothing. */
  write?: NodePoolWrite;
  /** Set when KAITO's ProvisionNodes would fail (node class not allowed or not ready): no write. */
  provisionError?: { reason: string; message: string };
  nodeClaims: ConditionFacts;
  nodes: ConditionFacts;
  resource: ConditionFacts;
  /** EnsureNodesReady: the workload may be created. */
  nodesUsable: boolean;
  /** Requeue after this (EnsureNodesReady's needRequeue, or the end of the bounded wait). */
  recheckAfterMs?: number;
  /** Ready claim nodes lacking accelerator=nvidia; KAITO's plugin check labels them. */
  nodesToLabel: string[];
}

interface Counts {
  covered: number;
  readyWithInstanceType: number;
  targetClaims: number;
  readyClaims: DeepReadonly<NodeClaim>[];
}

/** KAITO's countCoveredNodes and targetNodeClaimCount. */
export function countNodes(i: Pick<KarpenterInput, 'ws' | 'target' | 'nodes' | 'nodeClaims' | 'legacyNodeClaims'>): Counts {
  const readyClaims = i.nodeClaims.filter(claimIsReady);
  const selector = i.ws.resource?.labelSelector;
  if (!selector) return { covered: 0, readyWithInstanceType: 0, targetClaims: Math.max(0, i.target), readyClaims };
  const name = workspaceName(i.ws);
  const instanceType = i.ws.resource?.instanceType ?? '';
  const own = (n: DeepReadonly<V1Node>, key: string) => n.metadata?.labels?.[key];
  const candidates = readyMatchingNodes(withMatchLabels(i.ws, sanitizedMatchLabels(selector)), i.nodes).filter(
    (n) =>
      own(n, LABEL_INSTANCE_TYPE) === instanceType &&
      // Nodes made for a sibling sharing the selector (InferenceSet replicas) are not ours; KAITO compares names only.
      [LABEL_KARPENTER_WORKSPACE_NAME, LABEL_WORKSPACE_NAME].every((k) => own(n, k) === undefined || own(n, k) === name),
  );
  const byo = candidates.filter((n) => own(n, LABEL_KARPENTER_WORKSPACE_NAME) === undefined && own(n, LABEL_WORKSPACE_NAME) === undefined);
  // Live legacy claims count whatever their state: Karpenter heals or deletes them, and a delete triggers a pass.
  const covered = byo.length + i.legacyNodeClaims.filter((c) => !c.metadata.deletionTimestamp).length;
  return { covered, readyWithInstanceType: candidates.length, targetClaims: Math.max(0, i.target - covered), readyClaims };
}

function withMatchLabels(ws: DeepReadonly<Workspace>, matchLabels: Record<string, string>): Workspace {
  return { ...ws, resource: { ...ws.resource, labelSelector: { matchLabels } } } as Workspace;
}

/** KAITO's ProvisionNodes: replicas = target − covered, a pool created only when that is positive, then only grown. */
export function desiredReplicas(target: number, covered: number, existing: DeepReadonly<NodePool> | undefined): number | undefined {
  const desired = target - covered;
  if (desired <= 0) return undefined;
  if (existing && desired <= (existing.spec?.replicas ?? 0)) return undefined;
  return desired;
}

/** KAITO's nodeclaim.FirstNodeClaimProvisioningState, with the claim it came from (live claims only). */
export function firstProvisioningState(
  claims: readonly DeepReadonly<NodeClaim>[],
): { reason: string; message: string; claim: string; truncated: boolean } | undefined {
  let pending: { reason: string; message: string; claim: string } | undefined;
  for (const stage of LIFECYCLE) {
    for (const c of claims) {
      if (c.metadata.deletionTimestamp) continue;
      for (const x of c.status?.conditions ?? []) {
        if (x.type !== stage || x.status === 'True' || !x.message) continue;
        const found = { reason: x.reason ?? '', message: x.message, claim: c.metadata.name };
        if (found.reason !== AWAITING_RECONCILIATION) return truncate(found);
        pending ??= found;
      }
    }
  }
  return pending && truncate(pending);
}

/** utils.TruncateMessage: the first 256 bytes, then "...". */
function truncate(s: { reason: string; message: string; claim: string }) {
  const bytes = Buffer.from(s.message);
  if (bytes.length <= MAX_STATE_MESSAGE) return { ...s, truncated: false };
  return { ...s, message: `${bytes.subarray(0, MAX_STATE_MESSAGE).toString()}...`, truncated: true };
}

/** KAITO's CheckIfNodePluginsReady on the ready claims: every one has a Ready node with GPU capacity and the instance type. */
function pluginsReady(i: KarpenterInput, readyClaims: readonly DeepReadonly<NodeClaim>[]): { ready: boolean; toLabel: string[] } {
  if (!i.catalogSku) return { ready: true, toLabel: [] };
  const nodes: DeepReadonly<V1Node>[] = [];
  for (const c of readyClaims) {
    const node = objectNamed(i.nodes, c.status?.nodeName);
    if (!node || !isReady(node)) break;
    nodes.push(node);
  }
  if (nodes.length !== readyClaims.length) return { ready: false, toLabel: [] };
  const toLabel: string[] = [];
  for (const n of nodes) {
    if (n.metadata?.labels?.[LABEL_ACCELERATOR] !== ACCELERATOR_NVIDIA) toLabel.push(n.metadata?.name ?? '');
    if (gpuCapacity(n) <= 0 || n.metadata?.labels?.[LABEL_INSTANCE_TYPE] !== i.ws.resource?.instanceType) return { ready: false, toLabel };
  }
  return { ready: true, toLabel };
}

/** KAITO's NodePressureWarning over the workspace's own nodes (its selector plus the pool's identity labels). */
export function poolPressureWarning(ws: DeepReadonly<Workspace>, nodes: readonly DeepReadonly<V1Node>[]): string {
  const labels = { ...sanitizedMatchLabels(ws.resource?.labelSelector) };
  for (const r of karpenterNodeAffinity(ws)) labels[r.key] = r.values?.[0] ?? '';
  return nodePressureWarning(matchingNodes(withMatchLabels(ws, labels), nodes)) ?? '';
}

function nodeClassProblem(i: KarpenterInput): { reason: string; message: string } | undefined {
  const resolved = resolveNodeClassName(i.ws, i.config);
  if (!resolved.ok) return { reason: KarpenterReason.NodeClassNotPermitted, message: resolved.message };
  const nc = i.nodeClasses.find((x) => x.metadata.name === resolved.name);
  if (nc && hasTrueCondition(nc, 'Ready')) return undefined;
  const why = !nc ? `NodeClass ${JSON.stringify(resolved.name)} not found` : `NodeClass ${JSON.stringify(resolved.name)} exists but is not Ready`;
  return { reason: KarpenterReason.NodeClassNotReady, message: `NodeClass ${JSON.stringify(resolved.name)} is not ready: ${why}` };
}

function claimsCondition(i: KarpenterInput, c: Counts): { facts: ConditionFacts; recheckAfterMs?: number } {
  if (c.readyClaims.length >= c.targetClaims)
    return { facts: { ready: true, reason: KarpenterReason.NodeClaimsReady, message: KarpenterMessage.nodeClaimsReady } };
  const state = firstProvisioningState(i.nodeClaims);
  const reason = state?.reason ?? KarpenterReason.NodeClaimNotReady;
  const base = state?.message ?? KarpenterMessage.nodeClaimsNotReady;
  // kaito-ts: the other claims' words too, and the shown one's in full when KAITO cut it.
  const problems = i.nodeClaims
    .filter((x) => !claimIsReady(x) && !x.metadata.deletionTimestamp && (x.metadata.name !== state?.claim || state.truncated))
    .map(claimProblem)
    .filter((p): p is string => !!p);
  const detail = problems.length ? `; ${problems.join('; ')}` : '';
  const pending = i.nodeClaims.filter((x) => !claimIsReady(x) && !x.metadata.deletionTimestamp);
  // Before Karpenter makes a claim the wait runs from the pool's creation.
  const starts = pending.length ? pending.map((x) => timeOf(x.metadata.creationTimestamp)) : [timeOf(i.nodePool?.metadata.creationTimestamp)];
  const since = Math.min(...starts.map((t) => (Number.isNaN(t) ? i.now.getTime() : t)));
  const waited = i.now.getTime() - since;
  if (i.nodePool && waited >= i.waitLimitMs) {
    const limit = `not Ready after ${Math.round(waited / 1000)}s (limit ${Math.round(i.waitLimitMs / 1000)}s); still waiting for Karpenter`;
    return { facts: { ready: false, reason: KarpenterReason.Timeout, message: `${base}: ${limit}${detail}` } };
  }
  return { facts: { ready: false, reason, message: `${base}${detail}` }, ...(i.nodePool ? { recheckAfterMs: Math.max(1000, i.waitLimitMs - waited) } : {}) };
}

function resourceCondition(claims: ConditionFacts, nodes: ConditionFacts): ConditionFacts {
  if (claims.ready && nodes.ready) return { ready: true, reason: KarpenterReason.ResourceReady, message: KarpenterMessage.resourceReady };
  const from = claims.ready ? nodes : claims;
  return { ready: false, reason: from.reason, message: from.message };
}

export function planKarpenter(i: KarpenterInput): KarpenterPlan {
  const counts = countNodes(i);
  const provisionError = nodeClassProblem(i);
  const claims = claimsCondition(i, counts);
  const plan: KarpenterPlan = { nodeClaims: claims.facts, nodes: claims.facts, resource: claims.facts, nodesUsable: false, nodesToLabel: [] };
  if (claims.recheckAfterMs !== undefined) plan.recheckAfterMs = claims.recheckAfterMs;
  if (provisionError) {
    plan.provisionError = provisionError;
    // kaito-ts: KAITO only logs this error; the condition says why no node comes.
    if (!plan.nodeClaims.ready) plan.nodeClaims = { ready: false, ...provisionError };
  } else {
    const replicas = desiredReplicas(i.target, counts.covered, i.nodePool);
    if (replicas !== undefined) {
      const name = resolveNodeClassName(i.ws, i.config);
      plan.write = i.nodePool
        ? { kind: 'scale', name: i.nodePool.metadata.name, replicas }
        : { kind: 'create', nodePool: buildNodePool(i.ws, replicas, i.config, name.ok ? name.name : i.config.defaultName) };
    }
  }

  // NodesReady: every ready node of the instance type counts; plugins are checked on Karpenter's nodes only.
  let nodes: ConditionFacts = { ready: false, reason: KarpenterReason.NodeNotReady, message: KarpenterMessage.nodesNotReady };
  const plugins = pluginsReady(i, counts.readyClaims);
  if (counts.readyWithInstanceType >= i.target) {
    nodes =
      counts.readyClaims.length === 0 || plugins.ready
        ? { ready: true, reason: KarpenterReason.NodesReady, message: KarpenterMessage.nodesReady }
        : { ready: false, reason: KarpenterReason.NodePluginsNotReady, message: KarpenterMessage.nodePluginsWaiting };
  }
  const warning = poolPressureWarning(i.ws, i.nodes);
  if (warning) nodes = { ...nodes, message: `${nodes.message}; warning: ${warning}` };
  plan.nodes = nodes;
  plan.resource = resourceCondition(plan.nodeClaims, nodes);

  // EnsureNodesReady: claims first (a claim event brings the next pass), then nodes and plugins (polled).
  if (counts.readyClaims.length < counts.targetClaims) return plan;
  if (counts.readyClaims.length > 0) plan.nodesToLabel = plugins.toLabel;
  if (counts.readyWithInstanceType < i.target || (counts.readyClaims.length > 0 && !plugins.ready)) {
    plan.recheckAfterMs = Math.min(plan.recheckAfterMs ?? Infinity, KARPENTER_NODE_RECHECK_MS);
    return plan;
  }
  plan.nodesUsable = !provisionError;
  return plan;
}
