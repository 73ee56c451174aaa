// Rolling drift replacement for an InferenceSet's members in Karpenter mode (KAITO v0.12's
// pkg/controllers/drift): every member's NodePool is created with its Drifted budget at "0"; this
// opens it ("1") on one member at a time, and closes it again once that member has no drifted
// NodeClaim left and is WorkspaceSucceeded. Pure: one snapshot in, at most one budget change out.
import { byMetadataName } from '../../runtime/order.js';
import {
  LABEL_KARPENTER_INFERENCESET,
  LABEL_KARPENTER_INFERENCESET_NAMESPACE,
  LABEL_KARPENTER_NODEPOOL,
  LABEL_KARPENTER_WORKSPACE_NAME,
  LABEL_KARPENTER_WORKSPACE_NAMESPACE,
} from '../../api/labels.js';
import type { NodeClaim } from '../../builders/nodeclaim.js';
import { DRIFT_BUDGET_CLOSED, DRIFT_BUDGET_OPEN, driftBudgetOf, nodePoolUpdate, type NodePool } from '../../builders/nodepool.js';
import { hasTrueCondition } from '../../runtime/conditions.js';
import type { DeepReadonly } from '../../runtime/readonly.js';
import { Resources } from '../../runtime/resources.js';
import type { Action } from '../shared/actions.js';
import { isReady, type ChildWorkspace, type InferenceSetObject } from './children.js';

/** Karpenter's NodeClaim condition for a claim that no longer matches its NodePool. */
export const DRIFTED_CONDITION = 'Drifted';

export const DriftEventReason = { Started: 'DriftStarted', Complete: 'DriftComplete' } as const;

export interface DriftSnapshot {
  /** NodePools labelled for this InferenceSet (karpenter.kaito.sh/inferenceset and …-namespace). */
  pools: readonly DeepReadonly<NodePool>[];
  /** NodeClaims labelled for this InferenceSet; grouped here by karpenter.sh/nodepool. */
  claims: readonly DeepReadonly<NodeClaim>[];
}

export interface DriftInput extends DriftSnapshot {
  is: Pick<InferenceSetObject, 'metadata'>;
  /** The live members (not terminating), as the InferenceSet plan sees them. */
  members: readonly DeepReadonly<ChildWorkspace>[];
}

export interface DriftStep {
  /** The one budget write of this pass; undefined when nothing changes. */
  change?: { pool: DeepReadonly<NodePool>; member: string; nodes: typeof DRIFT_BUDGET_OPEN | typeof DRIFT_BUDGET_CLOSED; why: string };
  /** What the open member waits for (logs, explain); undefined when no member is open. */
  waiting?: string;
}

export const isDrifted = (c: DeepReadonly<NodeClaim>): boolean => hasTrueCondition(c, DRIFTED_CONDITION);

/** The NodePools of this set's live members with a Drifted budget, by name; a pool being deleted (or of a member that is going) is left alone. */
function memberPools(i: DriftInput): { pool: DeepReadonly<NodePool>; member: DeepReadonly<ChildWorkspace>; budget: string }[] {
  const ns = i.is.metadata.namespace;
  const out: { pool: DeepReadonly<NodePool>; member: DeepReadonly<ChildWorkspace>; budget: string }[] = [];
  for (const pool of [...i.pools].sort(byMetadataName)) {
    const labels = pool.metadata.labels ?? {};
    if (labels[LABEL_KARPENTER_INFERENCESET] !== i.is.metadata.name || labels[LABEL_KARPENTER_INFERENCESET_NAMESPACE] !== ns) continue;
    if (labels[LABEL_KARPENTER_WORKSPACE_NAMESPACE] !== ns || pool.metadata.deletionTimestamp) continue;
    const member = i.members.find((m) => m.metadata?.name === labels[LABEL_KARPENTER_WORKSPACE_NAME]);
    const budget = driftBudgetOf(pool);
    if (member && budget !== undefined) out.push({ pool, member, budget });
  }
  return out;
}

/**
 * KAITO's state machine, one step: a member whose budget is open (any value but "0") waits while its
 * pool has a drifted claim, then until it is Ready, then is closed; with none open, the first member
 * (by NodePool name) with a drifted claim is opened.
 */
export function planDrift(i: DriftInput): DriftStep {
  const pools = memberPools(i);
  const drifted = (pool: DeepReadonly<NodePool>) =>
    i.claims.filter((c) => c.metadata.labels?.[LABEL_KARPENTER_NODEPOOL] === pool.metadata.name && isDrifted(c)).length;
  const open = pools.find((p) => p.budget !== DRIFT_BUDGET_CLOSED);
  if (open) {
    const member = open.member.metadata?.name ?? '';
    const left = drifted(open.pool);
    if (left > 0) return { waiting: `${member}: ${left} drifted NodeClaim(s) being replaced` };
    if (!isReady(open.member)) return { waiting: `${member}: replaced, waiting for WorkspaceSucceeded` };
    return { change: { pool: open.pool, member, nodes: DRIFT_BUDGET_CLOSED, why: `close drift replacement: ${member} replaced and Ready` } };
  }
  const next = pools.find((p) => drifted(p.pool) > 0);
  if (!next) return {};
  const member = next.member.metadata?.name ?? '';
  return {
    change: { pool: next.pool, member, nodes: DRIFT_BUDGET_OPEN, why: `open drift replacement: ${member} has ${drifted(next.pool)} drifted NodeClaim(s)` },
  };
}

/** The step as actions: the budget apply, then KAITO's event. */
export function driftActions<S extends object>(i: DriftInput, step: DriftStep): Action<S>[] {
  const c = step.change;
  if (!c) return [];
  const ref = `${i.is.metadata.namespace}/${c.member}`;
  const opened = c.nodes === DRIFT_BUDGET_OPEN;
  return [
    { kind: 'apply', type: Resources.nodePools, object: nodePoolUpdate(c.pool, { driftBudget: c.nodes }), why: c.why },
    {
      kind: 'event',
      note: {
        type: 'Normal',
        reason: opened ? DriftEventReason.Started : DriftEventReason.Complete,
        message: opened ? `Started drift replacement for workspace ${ref}` : `Drift replacement complete for workspace ${ref}`,
      },
    },
  ];
}
