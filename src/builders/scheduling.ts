// Where inference pods may run (spec §5.3, §5.10): required node affinity from the workspace's label
// selector and the tolerations for GPU node taints. Shared by the preset and template paths.
import type { V1Affinity, V1NodeSelectorRequirement, V1PodSpec, V1Toleration } from '@kubernetes/client-node';
import { RESOURCE_NVIDIA_GPU } from '../api/labels.js';
import type { Workspace } from '../api/types.js';

export const GPU_TOLERATIONS: readonly V1Toleration[] = Object.freeze([
  { key: RESOURCE_NVIDIA_GPU, operator: 'Exists', effect: 'NoSchedule' },
  { key: 'sku', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' },
]);

/** Azure's taint on spot VM nodes; KAITO v0.12's inference pods tolerate it when CLOUD_PROVIDER is azure. */
export const AZURE_SPOT_TOLERATION: Readonly<V1Toleration> = Object.freeze({
  key: 'kubernetes.azure.com/scalesetpriority',
  operator: 'Equal',
  value: 'spot',
  effect: 'NoSchedule',
});

/** The GPU tolerations; `azureSpot` adds KAITO v0.12's spot toleration after them. */
export function gpuTolerations(o: { azureSpot?: boolean } = {}): V1Toleration[] {
  return [...GPU_TOLERATIONS, ...(o.azureSpot ? [AZURE_SPOT_TOLERATION] : [])].map((t) => ({ ...t }));
}

/**
 * One required node-selector term: every `matchLabels` entry as `In [value]` (sorted by key; KAITO's
 * order is random — W31), then the selector's `In` expressions, which KAITO accepts but ignores (W25).
 * No expressions at all → no affinity (KAITO's empty term matches no node, leaving the pods Pending).
 */
export function requiredNodeAffinity(ws: Workspace): V1Affinity | undefined {
  const selector = ws.resource?.labelSelector ?? {};
  const expressions: V1NodeSelectorRequirement[] = Object.entries(selector.matchLabels ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => ({ key, operator: 'In', values: [value] }));
  for (const e of selector.matchExpressions ?? []) {
    if (e.operator === 'In') expressions.push({ key: e.key, operator: 'In', values: [...(e.values ?? [])] });
  }
  if (expressions.length === 0) return undefined;
  return { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: expressions }] } } };
}

/** Node labels a provisioner puts on the nodes it made for one workspace (facts.podNodePinning). */
export interface NodePinning {
  /** This workspace's own: ANDed into the first required term, as KAITO v0.11+ does. */
  own: readonly V1NodeSelectorRequirement[];
  /**
   * Keys that mark a node as made by a provisioner (for some workspace). Beyond KAITO: a second term
   * admits nodes that carry none of them (bring-your-own nodes, which KAITO counts as covering the
   * workspace but then pins its pods away from), so a covered workspace still schedules, and a
   * sibling's node never matches.
   */
  unclaimedWithout: readonly string[];
  /**
   * Only workspaces rendered as KAITO v0.12 (catalog and Hugging Face ids) are pinned: gpu-provisioner's
   * NodeClaim mode, where legacy names and templates keep KAITO v0.8.0's pods (a v0.8.0 takeover
   * changes none). Absent: every workspace (Karpenter mode, which v0.8.0 never had).
   */
  v012Only?: boolean;
}

/** The pinning for a workspace rendered as KAITO v0.12 (`v012`) or as KAITO v0.8.0. */
export function pinningFor(pin: NodePinning | undefined, v012: boolean): NodePinning | undefined {
  return pin?.v012Only && !v012 ? undefined : pin;
}

/**
 * KAITO v0.11+: the provisioner's per-workspace node labels join the first required term, so a pod
 * never lands on a sibling's node when several workspaces share one label selector (InferenceSet
 * replicas). Modifies `spec`; nothing to add leaves it as it was.
 */
export function pinToWorkspaceNodes(spec: V1PodSpec, pin: NodePinning | undefined): void {
  if (!pin?.own.length) return;
  const node = ((spec.affinity ??= {}).nodeAffinity ??= {});
  const required = (node.requiredDuringSchedulingIgnoredDuringExecution ??= { nodeSelectorTerms: [] });
  if (!required.nodeSelectorTerms.length) required.nodeSelectorTerms.push({});
  const first = required.nodeSelectorTerms[0]!;
  const selector = first.matchExpressions ?? [];
  first.matchExpressions = [...selector, ...pin.own.map((r) => ({ ...r, values: [...(r.values ?? [])] }))];
  if (pin.unclaimedWithout.length)
    required.nodeSelectorTerms.splice(1, 0, {
      matchExpressions: [
        ...selector.map((r) => ({ ...r, values: [...(r.values ?? [])] })),
        ...pin.unclaimedWithout.map((key) => ({ key, operator: 'DoesNotExist' })),
      ],
    });
}
