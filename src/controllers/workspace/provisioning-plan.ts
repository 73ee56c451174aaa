// Node auto-provisioning, decided from observed claims and nodes (pure: the caller passes `now`).
// KAITO v0.8.0's counting: needed = target − ready matching nodes that no nodepool made; create
// needed − existing claims. Beyond KAITO: the provisioner's own error in the message, a bounded
// wait with its own reason, and a replacement budget instead of an endless recreate loop.
import type { V1Node } from '@kubernetes/client-node';
import {
  ACCELERATOR_NVIDIA,
  ConditionMessage,
  ConditionReason,
  LABEL_ACCELERATOR,
  LABEL_INSTANCE_TYPE,
  LABEL_KARPENTER_NODEPOOL,
  RESOURCE_NVIDIA_GPU,
} from '../../api/labels.js';
import type { Workspace } from '../../api/types.js';
import { readyMatchingNodes } from '../../builders/facts.js';
import { objectNamed } from '../../runtime/memo.js';
import type { NodeClaim } from '../../builders/nodeclaim.js';
import { isReady } from '../../runtime/conditions.js';
import type { DeepReadonly } from '../../runtime/readonly.js';

/** kaito-ts reasons beyond KAITO's (docs/controller.md). */
export const ProvisioningReason = {
  LaunchFailed: 'NodeClaimLaunchFailed',
  Timeout: 'NodeClaimProvisioningTimeout',
  ReplacementLimit: 'NodeClaimReplacementLimit',
} as const;

export interface ProvisioningInput {
  ws: Workspace;
  target: number;
  /** Every claim labelled for this workspace, deleting ones included (KAITO counts them too). */
  claims: readonly DeepReadonly<NodeClaim>[];
  nodes: readonly DeepReadonly<V1Node>[];
  /** Claims created for this workspace so far (persisted in an annotation). */
  created: number;
  /** Is the instance type in the GPU catalog (KAITO checks node plugins only then)? */
  catalogSku: boolean;
  waitLimitMs: number;
  now: Date;
}

export interface ConditionFacts {
  ready: boolean;
  reason: string;
  message: string;
}

export interface ProvisioningPlan {
  toCreate: number;
  /** Part of toCreate that replaces a claim that existed before (repaired, expired, deleted). */
  replacements: number;
  claims: ConditionFacts;
  /** Set when the claims are ready but their nodes are not usable yet (NodesReady=False). */
  nodeIssue?: { reason: string; message: string };
  /** KAITO's order: the workload is created once claims and node plugins are ready. */
  nodesUsable: boolean;
  /** Nodes of our claims that lack accelerator=nvidia (KAITO labels them; some device plugins select on it). */
  nodesToLabel: string[];
  /** When the bounded wait of a pending claim runs out, so the condition flips on time without polling. */
  recheckAfterMs?: number;
}

/** Each node may be replaced once: beyond target × 2 creates the workspace stops and says why. */
export const REPLACEMENTS_PER_NODE = 1;

export function claimIsReady(c: DeepReadonly<NodeClaim>): boolean {
  if (c.metadata.deletionTimestamp) return false;
  const ready = c.status?.conditions?.find((x) => x.type === 'Ready');
  return ready ? ready.status === 'True' : !!c.status?.nodeName;
}

/** The provisioner's own words on a claim that is not ready: a failed launch first, then any False/Unknown condition with a message. */
export function claimProblem(c: DeepReadonly<NodeClaim>): string | undefined {
  const conds = (c.status?.conditions ?? []).filter((x) => x.status !== 'True' && x.message);
  const pick = conds.find((x) => x.type === 'Launched') ?? conds.find((x) => x.type !== 'Ready') ?? conds[0];
  return pick ? `NodeClaim ${c.metadata.name}: ${pick.type}=${pick.status} ${pick.reason ?? ''}: ${pick.message}`.replace(/ +:/, ':') : undefined;
}

function launchFailed(c: DeepReadonly<NodeClaim>): boolean {
  return (c.status?.conditions ?? []).some(
    (x) => x.type === 'Launched' && x.status !== 'True' && /fail|error|quota|unavailable/i.test(`${x.reason} ${x.message}`),
  );
}

/** Timestamps arrive as RFC 3339 strings (typed as Date by client-node). */
export function timeOf(t: Date | string | undefined): number {
  return t ? new Date(t).getTime() : NaN;
}

export function gpuCapacity(node: DeepReadonly<V1Node>): number {
  return Number(node.status?.capacity?.[RESOURCE_NVIDIA_GPU] ?? 0) || 0;
}

export function planProvisioning(i: ProvisioningInput): ProvisioningPlan {
  const byoReady = readyMatchingNodes(i.ws, i.nodes).filter((n) => !n.metadata?.labels?.[LABEL_KARPENTER_NODEPOOL]);
  const needed = Math.max(0, i.target - byoReady.length);
  const missing = Math.max(0, needed - i.claims.length);
  const budget = i.target * (1 + REPLACEMENTS_PER_NODE);
  const toCreate = Math.max(0, Math.min(missing, budget - i.created));
  const replacements = Math.max(0, Math.min(toCreate, i.created + toCreate - i.target));
  const ready = i.claims.filter(claimIsReady);
  const plan: ProvisioningPlan = {
    toCreate,
    replacements,
    claims: { ready: true, reason: ConditionReason.NodeClaimsReady, message: ConditionMessage.nodeClaimsReady(needed, ready.length) },
    nodesUsable: false,
    nodesToLabel: [],
  };

  const problems = i.claims
    .filter((c) => !claimIsReady(c))
    .map(claimProblem)
    .filter((p): p is string => !!p);
  const detail = problems.length ? `; ${problems.join('; ')}` : '';
  if (missing > toCreate) {
    plan.claims = {
      ready: false,
      reason: ProvisioningReason.ReplacementLimit,
      message: `${i.created} NodeClaims were created for ${i.target} node(s) and each node may be replaced ${REPLACEMENTS_PER_NODE} time(s); not creating ${missing - toCreate} more. Remove the workspace annotation ${NODECLAIMS_CREATED_ANNOTATION} to allow new attempts${detail}`,
    };
    return plan;
  }
  if (ready.length < needed) {
    const pending = i.claims.filter((c) => !claimIsReady(c) && !c.metadata.deletionTimestamp);
    const oldest = Math.min(...pending.map((c) => timeOf(c.metadata.creationTimestamp) || i.now.getTime()));
    const waited = pending.length ? i.now.getTime() - oldest : 0;
    const base = ConditionMessage.nodeClaimsNotReady(needed, ready.length);
    if (pending.length && waited >= i.waitLimitMs) {
      plan.claims = {
        ready: false,
        reason: ProvisioningReason.Timeout,
        message: `${base}: not Ready after ${Math.round(waited / 1000)}s (limit ${Math.round(i.waitLimitMs / 1000)}s); still waiting for the provisioner${detail}`,
      };
    } else {
      const failed = i.claims.some(launchFailed);
      plan.claims = { ready: false, reason: failed ? ProvisioningReason.LaunchFailed : ConditionReason.NodeClaimNotReady, message: `${base}${detail}` };
      if (pending.length) plan.recheckAfterMs = Math.max(1000, i.waitLimitMs - waited);
    }
    return plan;
  }

  const nodeIssue = i.catalogSku ? nodePluginIssue(i) : undefined;
  if (nodeIssue) plan.nodeIssue = nodeIssue;
  plan.nodesUsable = !nodeIssue;
  if (i.catalogSku)
    plan.nodesToLabel = claimNodes(i)
      .filter((n) => n?.metadata?.labels?.[LABEL_ACCELERATOR] !== ACCELERATOR_NVIDIA)
      .map((n) => n!.metadata!.name!);
  return plan;
}

/** Annotation on the workspace counting the claims it created (kaito-ts's own key). */
export const NODECLAIMS_CREATED_ANNOTATION = 'kaito-ts.io/nodeclaims-created';

function claimNodes(i: ProvisioningInput): (DeepReadonly<V1Node> | undefined)[] {
  return i.claims
    .filter((c) => !c.metadata.deletionTimestamp && c.status?.nodeName)
    .map((c) => objectNamed(i.nodes, c.status?.nodeName))
    .filter((n) => !!n);
}

/** KAITO's CheckIfNodePluginsReady: every live claim has a Ready node with GPU capacity and the right instance type. */
function nodePluginIssue(i: ProvisioningInput): { reason: string; message: string } | undefined {
  const want = i.ws.resource?.instanceType ?? '';
  for (const c of i.claims.filter((x) => !x.metadata.deletionTimestamp)) {
    const name = c.status?.nodeName;
    const node = name ? objectNamed(i.nodes, name) : undefined;
    const why = (m: string) => ({ reason: ConditionReason.NodePluginsNotReady, message: m });
    if (!name || !node) return why(`NodeClaim ${c.metadata.name} has no node yet`);
    if (!isReady(node)) return why(`Node ${name} of NodeClaim ${c.metadata.name} is not Ready`);
    if (gpuCapacity(node) <= 0) return why(`${ConditionMessage.nodePluginsWaiting}: Node ${name} has no ${RESOURCE_NVIDIA_GPU} capacity yet`);
    const label = node.metadata?.labels?.[LABEL_INSTANCE_TYPE];
    if (!label) return why(ConditionMessage.nodeMissingInstanceType(name));
    if (label !== want) return why(ConditionMessage.nodeInstanceTypeMismatch(name, label, want));
  }
  return undefined;
}
