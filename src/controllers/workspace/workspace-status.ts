// The workspace status, computed in one place from what this reconcile observed. Pure: the caller
// passes `now`, and the result says whether anything changed so no write happens otherwise.
import { findCondition, setCondition, type ConditionUpdate } from '../../api/workspace-conditions.js';
import { CONDITION_UPDATING, ConditionMessage, ConditionReason, ConditionType, V1ALPHA1_CONDITION_NODECLAIM_READY, WorkspaceState } from '../../api/labels.js';
import type { Decision, Workspace, WorkspaceCondition, WorkspaceStatus } from '../../api/types.js';
import type { Readiness } from './readiness.js';

export interface NodeFacts {
  target: number;
  ready: number;
  selected: number;
  workerNodes: string[];
  /** KAITO v0.12's node-pressure warning, appended to the NodesReady message (the status stays). */
  pressureWarning?: string;
  /** The nodes exist but cannot take the workload yet (node auto-provisioning: NodePluginsNotReady). */
  issue?: { reason: string; message: string };
  /** BYO: too few matching nodes hold the StatefulSet below the target (src/builders/replicas.ts). */
  shortfall?: { reason: string; message: string } | undefined;
}

export interface StatusInput {
  targetNodeCount: number;
  nodes?: NodeFacts;
  /** Set when node auto-provisioning is on but cannot work (e.g. the NodeClaim CRD is missing). */
  nodeClaims?: { ready: boolean; reason: string; message: string };
  /** The spec cannot be turned into a workload: reported on InferenceReady and WorkspaceSucceeded. */
  failure?: { reason: string; message: string };
  inference?: Readiness;
  decisions?: Decision[];
  /** A zero-downtime update's step (update-plan.ts); absent: the Updating condition stays as it is. */
  updating?: { status: 'True' | 'False'; reason: string; message: string };
}

export const PendingReason = 'workspacePending';

/** Compute the next status. `changed` is false when writing it would change nothing. */
export function computeStatus(ws: Workspace, input: StatusInput, now: Date): { status: WorkspaceStatus; changed: boolean } {
  const prev = ws.status ?? {};
  const generation = ws.metadata.generation;
  let conditions: WorkspaceCondition[] = [...(prev.conditions ?? [])];
  let changed = false;
  const set = (u: Omit<ConditionUpdate, 'observedGeneration'>) => {
    const r = setCondition(conditions, { ...u, observedGeneration: generation }, now);
    conditions = r.conditions;
    changed ||= r.changed;
  };

  const resourceProblems: { reason: string; message: string }[] = [];
  if (input.nodeClaims) {
    const nc = input.nodeClaims;
    const update = { status: nc.ready ? 'True' : 'False', reason: nc.reason, message: nc.message } as const;
    // v0.8.0 spells it NodeClaimsReady, v0.9+ NodeClaimReady: clients of either version find theirs.
    set({ type: ConditionType.NodeClaimsReady, ...update });
    set({ type: V1ALPHA1_CONDITION_NODECLAIM_READY, ...update });
    if (!nc.ready) resourceProblems.push(nc);
  }
  if (input.nodes) {
    const n = input.nodes;
    if (n.shortfall) resourceProblems.push(n.shortfall);
    const ok = n.ready >= n.target && !n.issue;
    const u = n.issue
      ? n.issue
      : ok
        ? { reason: ConditionReason.NodesReady, message: ConditionMessage.nodesReady(n.target, n.ready, n.selected) }
        : { reason: ConditionReason.NodeNotReady, message: ConditionMessage.nodesNotReady(n.target, n.ready, n.selected) };
    const message = n.pressureWarning ? `${u.message}; warning: ${n.pressureWarning}` : u.message;
    set({ type: ConditionType.NodesReady, status: ok ? 'True' : 'False', reason: u.reason, message });
    if (!ok) resourceProblems.push(u);
  }
  // ResourceReady reflects THIS reconcile's node facts (KAITO reads the previous one: W7).
  const firstProblem = resourceProblems[0];
  if (input.nodes || input.nodeClaims) {
    set(
      firstProblem
        ? { type: ConditionType.ResourceReady, status: 'False', ...firstProblem }
        : { type: ConditionType.ResourceReady, status: 'True', reason: ConditionReason.ResourceStatusSuccess, message: ConditionMessage.resourceReady },
    );
  }

  if (input.failure) {
    set({ type: ConditionType.InferenceReady, status: 'False', ...input.failure });
    set({ type: ConditionType.WorkspaceSucceeded, status: 'False', reason: ConditionReason.WorkspaceFailed, message: input.failure.message });
  } else if (input.inference) {
    const r = input.inference;
    set({ type: ConditionType.InferenceReady, status: r.ready ? 'True' : 'False', reason: r.reason, message: r.message });
    set(
      r.ready
        ? { type: ConditionType.WorkspaceSucceeded, status: 'True', reason: ConditionReason.WorkspaceSucceeded, message: ConditionMessage.workspaceSucceeded }
        : { type: ConditionType.WorkspaceSucceeded, status: 'Unknown', reason: PendingReason, message: `waiting for inference: ${r.message}` },
    );
  }

  if (input.updating) set({ type: CONDITION_UPDATING, ...input.updating });

  // Like KAITO v0.12 (#2270): every condition carries the generation of this write, also the ones
  // this pass did not re-evaluate.
  if (generation !== undefined && conditions.some((c) => c.observedGeneration !== generation)) {
    conditions = conditions.map((c) => ({ ...c, observedGeneration: generation }));
    changed = true;
  }

  const status: WorkspaceStatus = { ...prev, conditions };
  // Tuning workspaces have their own states (tuning-status.ts).
  if ((input.failure || input.inference) && !ws.tuning) {
    const state = inferenceState(prev.state, conditions);
    if (state !== prev.state) {
      status.state = state;
      changed = true;
    }
  }
  if (input.nodes && !sameList(prev.workerNodes, input.nodes.workerNodes)) {
    status.workerNodes = input.nodes.workerNodes;
    changed = true;
  }
  if (input.targetNodeCount > 0 && prev.targetNodeCount !== input.targetNodeCount) {
    status.targetNodeCount = input.targetNodeCount;
    changed = true;
  }
  if (input.decisions && JSON.stringify(prev.decisions ?? []) !== JSON.stringify(input.decisions)) {
    status.decisions = input.decisions;
    changed = true;
  }
  return { status, changed };
}

/**
 * KAITO v0.9's status.state for inference: Ready when inference and resources are ready; once a
 * workspace has been Ready or NotReady it is NotReady when not ready, before that Pending.
 */
export function inferenceState(prev: string | undefined, conditions: readonly WorkspaceCondition[]): WorkspaceState {
  const inference = findCondition(conditions, ConditionType.InferenceReady)?.status;
  const resource = findCondition(conditions, ConditionType.ResourceReady)?.status;
  if (inference === 'True' && resource !== 'False') return WorkspaceState.Ready;
  return prev === WorkspaceState.Ready || prev === WorkspaceState.NotReady ? WorkspaceState.NotReady : WorkspaceState.Pending;
}

/** Status while the workspace is being deleted. */
export function deletingStatus(ws: Workspace, now: Date, message: string = ConditionMessage.workspaceDeleting): { status: WorkspaceStatus; changed: boolean } {
  const r = setCondition(
    ws.status?.conditions,
    { type: ConditionType.WorkspaceDeleting, status: 'True', reason: ConditionReason.WorkspaceDeleted, message, observedGeneration: ws.metadata.generation },
    now,
  );
  return { status: { ...(ws.status ?? {}), conditions: r.conditions }, changed: r.changed };
}

function sameList(a: readonly string[] | undefined, b: readonly string[]): boolean {
  return (a ?? []).length === b.length && b.every((x, i) => a?.[i] === x);
}
