// The NodeClaim status Karpenter's lifecycle controller writes: Launched, Registered, Initialized
// and the root Ready condition, status.providerID/nodeName/capacity. Pure: `now` is passed in, and
// an unchanged condition keeps its lastTransitionTime so an unchanged claim costs no write.
import { isDeepStrictEqual } from 'node:util';
import type { DeepReadonly } from '../../runtime/readonly.js';
import { truncateMessage, type ClaimCondition, type ClaimStatus } from './claim-view.js';

export const ConditionType = { launched: 'Launched', registered: 'Registered', initialized: 'Initialized', ready: 'Ready' } as const;
const DEPENDENTS = [ConditionType.launched, ConditionType.registered, ConditionType.initialized] as const;

type Wanted = Omit<ClaimCondition, 'lastTransitionTime'>;

/** Where a claim stands, as the provisioner sees it. */
export type Phase =
  | { kind: 'waiting' }
  | { kind: 'launchFailed'; message: string }
  | {
      kind: 'launched';
      providerID: string;
      capacity: Record<string, string>;
      allocatable: Record<string, string>;
      nodeName?: string;
      registered: boolean;
      nodeReady: boolean;
    };

const AWAITING = { status: 'Unknown', reason: 'AwaitingReconciliation', message: 'object is awaiting reconciliation' } as const;

function dependents(phase: Phase): Wanted[] {
  switch (phase.kind) {
    case 'waiting':
      return DEPENDENTS.map((type) => ({ type, ...AWAITING }));
    case 'launchFailed':
      return [
        { type: ConditionType.launched, status: 'Unknown', reason: 'LaunchFailed', message: truncateMessage(phase.message) },
        { type: ConditionType.registered, ...AWAITING },
        { type: ConditionType.initialized, ...AWAITING },
      ];
    case 'launched':
      return [
        { type: ConditionType.launched, status: 'True', reason: 'Launched', message: '' },
        phase.registered
          ? { type: ConditionType.registered, status: 'True', reason: 'Registered', message: '' }
          : { type: ConditionType.registered, status: 'Unknown', reason: 'NodeNotFound', message: 'Node not registered with cluster' },
        phase.registered && phase.nodeReady
          ? { type: ConditionType.initialized, status: 'True', reason: 'Initialized', message: '' }
          : {
              type: ConditionType.initialized,
              status: 'Unknown',
              reason: phase.registered ? 'NodeNotReady' : 'NotLaunched',
              message: phase.registered ? 'Node status is NotReady' : 'Node not registered with cluster',
            },
      ];
  }
}

/** The conditions for `phase`, with Ready derived from the three others. */
export function wantedConditions(phase: Phase): Wanted[] {
  const deps = dependents(phase);
  const unhealthy = deps.filter((c) => c.status !== 'True');
  const ready: Wanted =
    unhealthy.length === 0
      ? { type: ConditionType.ready, status: 'True', reason: 'Ready', message: '' }
      : { type: ConditionType.ready, status: 'Unknown', reason: 'UnhealthyDependents', message: unhealthy.map((c) => `${c.type}=${c.status}`).join(', ') };
  return [...deps, ready];
}

/** Merges wanted conditions into the current ones: a condition whose status did not change keeps its transition time. */
export function mergeConditions(
  current: readonly DeepReadonly<ClaimCondition>[] | undefined,
  wanted: readonly Wanted[],
  now: Date,
  generation?: number,
): ClaimCondition[] {
  const others = (current ?? []).filter((c) => !wanted.some((w) => w.type === c.type));
  const merged = wanted.map((w): ClaimCondition => {
    const old = current?.find((c) => c.type === w.type);
    const lastTransitionTime = old && old.status === w.status ? old.lastTransitionTime : now.toISOString().replace(/\.\d+Z$/, 'Z');
    return { ...w, lastTransitionTime, ...(generation !== undefined ? { observedGeneration: generation } : {}) };
  });
  return [...others, ...merged];
}

/** The whole status this provisioner owns for `phase`. */
export function wantedStatus(current: DeepReadonly<ClaimStatus> | undefined, phase: Phase, now: Date, generation?: number): ClaimStatus {
  const conditions = mergeConditions(current?.conditions, wantedConditions(phase), now, generation);
  if (phase.kind !== 'launched') return { conditions };
  return {
    providerID: phase.providerID,
    imageID: 'aks-ubuntu-sim',
    capacity: phase.capacity,
    allocatable: phase.allocatable,
    ...(phase.nodeName !== undefined ? { nodeName: phase.nodeName } : {}),
    conditions,
  };
}

/** Whether writing `next` would change anything the provisioner owns (lastPodEventTime is not ours). */
export function statusChanged(current: DeepReadonly<ClaimStatus> | undefined, next: ClaimStatus): boolean {
  const { lastPodEventTime: _ignored, ...mine } = current ?? {};
  return !isDeepStrictEqual(normalize(mine), normalize(next));
}

function normalize(s: DeepReadonly<ClaimStatus>): DeepReadonly<ClaimStatus> {
  const out = { ...s };
  if (out.conditions) out.conditions = [...out.conditions].sort((a, b) => a.type.localeCompare(b.type));
  for (const k of Object.keys(out) as (keyof typeof out)[]) if (out[k] === undefined) delete out[k];
  return out;
}
