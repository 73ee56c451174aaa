// A weights claim on local NVMe is tied to one node. When that node is gone for good (NodeRepair,
// expiry, a replaced NodeClaim, a removed BYO node), the claim still points at it and the
// StatefulSet's new pod can never be scheduled. KAITO leaves it stuck; kaito-ts deletes the claim
// and the unscheduled pod, so the StatefulSet controller makes both again on a node that exists.
import type { V1PersistentVolume, V1PersistentVolumeClaim, V1Pod } from '@kubernetes/client-node';
import { LABEL_HOSTNAME } from '../../api/labels.js';
import { MODEL_WEIGHTS_VOLUME } from '../../builders/volumes.js';
import type { DeepReadonly } from '../../runtime/readonly.js';

/** Set by the scheduler when it binds a WaitForFirstConsumer claim: the node the volume lives on. */
export const SELECTED_NODE_ANNOTATION = 'volume.kubernetes.io/selected-node';

export interface StrandedClaim {
  claim: DeepReadonly<V1PersistentVolumeClaim>;
  /** Why the claim can never serve its pod again. */
  why: string;
  /** The StatefulSet pod of the same ordinal, when it exists (it is unscheduled). */
  pod?: DeepReadonly<V1Pod>;
}

/** Nodes a local volume is pinned to (kubernetes.io/hostname In [...]); empty when not pinned that way. */
function pinnedNodes(pv: DeepReadonly<V1PersistentVolume>): string[] {
  return (pv.spec?.nodeAffinity?.required?.nodeSelectorTerms ?? []).flatMap((t) =>
    (t.matchExpressions ?? []).filter((e) => e.key === LABEL_HOSTNAME && e.operator === 'In').flatMap((e) => e.values ?? []),
  );
}

/** Why a claim's volume can no longer be reached, or undefined while it can. */
function lostBecause(
  claim: DeepReadonly<V1PersistentVolumeClaim>,
  volume: (name: string) => DeepReadonly<V1PersistentVolume> | undefined,
  nodeExists: (name: string) => boolean,
): string | undefined {
  const selected = claim.metadata?.annotations?.[SELECTED_NODE_ANNOTATION];
  if (selected && !nodeExists(selected)) return `was placed on node ${selected}, which no longer exists`;
  const pvName = claim.spec?.volumeName;
  if (!pvName) return undefined;
  const pv = volume(pvName);
  if (!pv) return claim.status?.phase === 'Lost' ? `lost its volume ${pvName}` : undefined;
  if (pv.metadata?.deletionTimestamp) return `is bound to volume ${pvName}, which is being deleted`;
  const nodes = pinnedNodes(pv);
  if (nodes.length > 0 && !nodes.some(nodeExists)) return `is bound to volume ${pvName} on node ${nodes.join(', ')}, which no longer exists`;
  return undefined;
}

/** Pure: the StatefulSet's weights claims whose volume is unreachable for good and whose pod runs nowhere. */
export function strandedClaims(
  statefulSet: string,
  claims: readonly DeepReadonly<V1PersistentVolumeClaim>[],
  pods: readonly DeepReadonly<V1Pod>[],
  volume: (name: string) => DeepReadonly<V1PersistentVolume> | undefined,
  nodeExists: (name: string) => boolean,
): StrandedClaim[] {
  const prefix = `${MODEL_WEIGHTS_VOLUME}-${statefulSet}-`;
  const out: StrandedClaim[] = [];
  for (const claim of claims) {
    const name = claim.metadata?.name ?? '';
    const ordinal = name.slice(prefix.length);
    if (!name.startsWith(prefix) || !/^\d+$/.test(ordinal) || claim.metadata?.deletionTimestamp) continue;
    const why = lostBecause(claim, volume, nodeExists);
    if (!why) continue;
    const pod = pods.find((p) => p.metadata?.name === `${statefulSet}-${ordinal}`);
    if (pod?.spec?.nodeName) continue; // still bound to a node: the node lifecycle decides first
    out.push({ claim, why, ...(pod ? { pod } : {}) });
  }
  return out;
}
