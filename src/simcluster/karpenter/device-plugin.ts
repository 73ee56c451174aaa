// What the NVIDIA device plugin and the local-disk provisioner would do on a node Karpenter's kwok
// provider made: that provider sets the node's capacity to its NodeClaim's requests only, so
// `nvidia.com/gpu` never reaches status.capacity (which KAITO reads) and no NVMe volume exists.
// Pure: the node, the SKU facts and the clock in; the status patch and the volumes out.
import type { V1Node, V1PersistentVolume } from '@kubernetes/client-node';
import { GPU_RESOURCE } from '../nodes.js';
import type { SkuFacts } from '../provisioner/node.js';
import { localPvsForNode } from '../storage.js';
import type { DeepReadonly } from '../../runtime/readonly.js';
import { instanceResources } from './instance-types.js';

/** Karpenter's own test for "a node of the kwok provider" (IsManaged): the node class label of its kind. */
export const KWOK_NODE_CLASS_LABEL = 'karpenter.kwok.sh/kwoknodeclass';
/** On the NVMe volumes made for a Karpenter node: the node's name. */
export const KARPENTER_PV_LABEL = 'kaito.sh/sim-karpenter-node';
const KWOK_PROVIDER_PREFIX = 'kwok://';

export function isKarpenterKwokNode(node: DeepReadonly<V1Node>): boolean {
  return node.metadata?.labels?.[KWOK_NODE_CLASS_LABEL] !== undefined && (node.spec?.providerID ?? '').startsWith(KWOK_PROVIDER_PREFIX);
}

export type DevicePluginStep =
  { action: 'none' } | { action: 'wait'; ms: number } | { action: 'patch'; status: Pick<NonNullable<V1Node['status']>, 'capacity' | 'allocatable'> };

/**
 * Once `dueAtMs` has passed: capacity = what the kubelet would report for the instance type, and
 * `nvidia.com/gpu` in allocatable too (Karpenter's allocatable has the rest). Nothing when already so,
 * so a node kwok's Stage wrote back over gets the patch again on its next event.
 */
export function devicePluginStep(node: DeepReadonly<V1Node>, facts: SkuFacts, nowMs: number, dueAtMs: number): DevicePluginStep {
  const capacity = instanceResources(facts);
  const gpus = capacity[GPU_RESOURCE] ?? '0';
  const has = (want: Record<string, string>, have: DeepReadonly<Record<string, string>> | undefined): boolean =>
    Object.entries(want).every(([k, v]) => have?.[k] === v);
  if (has(capacity, node.status?.capacity) && node.status?.allocatable?.[GPU_RESOURCE] === gpus) return { action: 'none' };
  if (nowMs < dueAtMs) return { action: 'wait', ms: dueAtMs - nowMs };
  return { action: 'patch', status: { capacity, allocatable: { [GPU_RESOURCE]: gpus } } };
}

/**
 * The node's local NVMe volumes on NVMe SKUs, pinned to its hostname label and owned by the node, so
 * the garbage collector removes them with it.
 */
export function karpenterNvmeVolumes(node: DeepReadonly<V1Node>, facts: SkuFacts): V1PersistentVolume[] {
  const name = node.metadata?.name ?? '';
  if (!facts.nvme || name === '') return [];
  const hostname = node.metadata?.labels?.['kubernetes.io/hostname'] ?? name;
  return localPvsForNode(name, facts.nvme, hostname).map((pv) => ({
    ...pv,
    metadata: {
      ...pv.metadata,
      labels: { ...pv.metadata?.labels, [KARPENTER_PV_LABEL]: name },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name, uid: node.metadata?.uid ?? '' }],
    },
  }));
}
