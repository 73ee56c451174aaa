// What gpu-provisioner's "launch" leaves in the cluster for a NodeClaim: an AKS agent-pool node,
// here a kwok Node with the same name, providerID, labels, taints and capacity. Pure: the caller
// passes the clock and the SKU facts.
import { createHash } from 'node:crypto';
import type { V1Node, V1OwnerReference, V1PersistentVolume, V1Taint } from '@kubernetes/client-node';
import { lookupSku } from '../../catalog/gpu-skus.js';
import { formatBinaryQuantity } from '../../catalog/quantity.js';
import { fakeIp, GPU_RESOURCE, type NodePool } from '../nodes.js';
import { localPvsForNode } from '../storage.js';
import { INSTANCE_TYPE_LABEL, storageBytesOf, type NodeClaim } from './claim-view.js';
import { mutableCopy, type DeepReadonly } from '../../runtime/readonly.js';

export const AGENT_POOL_LABEL = 'agentpool';
export const AKS_AGENT_POOL_LABEL = 'kubernetes.azure.com/agentpool';
export const AKS_CLUSTER_LABEL = 'kubernetes.azure.com/cluster';
export const REGISTERED_LABEL = 'karpenter.sh/registered';
export const INITIALIZED_LABEL = 'karpenter.sh/initialized';
/** Label kwok's chaos Stage watches: the node turns NotReady while it is "true". */
export const KWOK_NOT_READY_LABEL = 'node-not-ready.stage.kwok.x-k8s.io';
/** PVs the provisioner made for a claim's node carry the claim name here. */
export const PV_CLAIM_LABEL = 'kaito.sh/sim-nodeclaim';

/** What the simulated cloud knows about a VM size. */
export interface SkuFacts {
  sku: string;
  gpuCount: number;
  gpuProduct: string;
  gpuMemoryMiB: number;
  cpu: string;
  memory: string;
  nvme?: { volumes: number; size: string };
}

/** Azure VM size names carry the vCPU count: Standard_NC24ads_A100_v4 → 24. */
function vcpusOf(sku: string): number | undefined {
  const m = /^Standard_[A-Z]+(\d+)/.exec(sku);
  return m?.[1] ? Number(m[1]) : undefined;
}

/**
 * Facts for a VM size: GPUs and NVMe from KAITO's Azure catalog; product, CPU, memory and NVMe
 * volumes from the simcluster pool of the same size when there is one (so provisioned nodes look
 * like the static ones), else derived from the name. Undefined: the "cloud" does not offer it.
 */
export function skuFacts(sku: string, pools: readonly NodePool[]): SkuFacts | undefined {
  const gpu = lookupSku('azure', sku);
  if (!gpu) return undefined;
  const pool = pools.find((p) => p.instanceType === sku);
  const cpus = vcpusOf(sku) ?? 8;
  const nvme = pool?.nvme ?? { volumes: 1, size: '1000Gi' };
  return {
    sku,
    gpuCount: gpu.gpuCount,
    gpuProduct: pool?.gpu.product ?? gpu.gpuModel.replace(/ /g, '-'),
    gpuMemoryMiB: pool?.gpu.memoryMiB ?? Math.round((gpu.gpuMemGiB * 1024) / gpu.gpuCount),
    cpu: pool?.cpu ?? String(cpus),
    memory: pool?.memory ?? `${cpus * 8}Gi`,
    ...(gpu.nvmeDiskEnabled ? { nvme } : {}),
  };
}

/** The 8 digits AKS puts in node names; fixed per cluster, as on AKS. */
export function clusterDigits(clusterName: string): string {
  return String(createHash('sha256').update(clusterName).digest().readUInt32BE(0) % 100_000_000).padStart(8, '0');
}

export function nodeNameFor(claimName: string, clusterName: string): string {
  return `aks-${claimName}-${clusterDigits(clusterName)}-vmss000000`;
}

/** The AKS node resource group, which is also the value of kubernetes.azure.com/cluster. */
export function nodeResourceGroup(clusterName: string): string {
  return `MC_kaito-ts-sim_${clusterName}_sim`;
}

export function providerIdFor(claimName: string, clusterName: string): string {
  const vmss = `aks-${claimName}-${clusterDigits(clusterName)}-vmss`;
  return (
    `azure:///subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/${nodeResourceGroup(clusterName).toLowerCase()}` +
    `/providers/Microsoft.Compute/virtualMachineScaleSets/${vmss}/virtualMachines/0`
  );
}

/** `kaito.sh/creation-timestamp`: the claim's creation in gpu-provisioner's layout 2006-01-02T15-04-05Z (a label value has no colons). */
export function creationTimestampLabel(created: Date): string {
  return created
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/:/g, '-');
}

/** Node resources; `withGpu` once the simulated device plugin has registered the GPUs. */
export function nodeResources(facts: SkuFacts, storageBytes: number, withGpu: boolean): Record<string, string> {
  return {
    cpu: facts.cpu,
    memory: facts.memory,
    'ephemeral-storage': formatBinaryQuantity(storageBytes),
    pods: '110',
    ...(withGpu ? { [GPU_RESOURCE]: String(facts.gpuCount) } : {}),
  };
}

/** Labels gpu-provisioner and AKS put on the agent-pool node at launch (the claim's may override the nodepool). */
export function launchLabels(claim: DeepReadonly<NodeClaim>, facts: SkuFacts, clusterName: string, nodeName: string): Record<string, string> {
  const pool = claim.metadata?.name ?? '';
  return {
    'karpenter.sh/nodepool': 'kaito',
    ...claim.metadata?.labels,
    // gpu-provisioner: "gpu" for every Standard_N* VM size, which all of KAITO's Azure SKUs are.
    'kaito.sh/machine-type': facts.sku.includes('Standard_N') ? 'gpu' : 'cpu',
    'kaito.sh/creation-timestamp': creationTimestampLabel(new Date(claim.metadata?.creationTimestamp ?? 0)),
    [AGENT_POOL_LABEL]: pool,
    [AKS_AGENT_POOL_LABEL]: pool,
    [AKS_CLUSTER_LABEL]: nodeResourceGroup(clusterName),
    [INSTANCE_TYPE_LABEL]: facts.sku,
    'beta.kubernetes.io/instance-type': facts.sku,
    'kubernetes.io/os': 'linux',
    'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/arch': 'amd64',
    'kubernetes.io/hostname': nodeName,
    'topology.kubernetes.io/region': 'sim',
    'topology.kubernetes.io/zone': 'sim-1',
    'nvidia.com/gpu.present': 'true',
    'nvidia.com/gpu.product': facts.gpuProduct,
    'nvidia.com/gpu.count': String(facts.gpuCount),
    'nvidia.com/gpu.memory': String(facts.gpuMemoryMiB),
  };
}

export interface LaunchInput {
  claim: DeepReadonly<NodeClaim>;
  facts: SkuFacts;
  clusterName: string;
  kubeletVersion: string;
}

/** The Node as the agent pool's VM first joins: no GPU capacity yet (the device plugin is not up). */
export function launchedNode({ claim, facts, clusterName, kubeletVersion }: LaunchInput): V1Node {
  const claimName = claim.metadata?.name ?? '';
  const name = nodeNameFor(claimName, clusterName);
  const resources = nodeResources(facts, storageBytesOf(claim) ?? 0, false);
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: launchLabels(claim, facts, clusterName, name),
      annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'kwok.x-k8s.io/node': 'fake' },
    },
    // The taints are copied: the claim is the cache's (frozen).
    spec: { providerID: providerIdFor(claimName, clusterName), ...(claim.spec?.taints?.length ? { taints: mutableCopy<V1Taint[]>(claim.spec.taints) } : {}) },
    status: {
      capacity: resources,
      allocatable: resources,
      addresses: [
        { type: 'InternalIP', address: fakeIp(name) },
        { type: 'Hostname', address: name },
      ],
      nodeInfo: {
        architecture: 'amd64',
        operatingSystem: 'linux',
        kubeletVersion,
        containerRuntimeVersion: 'containerd://sim',
        kernelVersion: 'sim',
        osImage: 'AKSUbuntu (simulated)',
        kubeProxyVersion: '',
        bootID: '',
        machineID: '',
        systemUUID: name,
      },
    },
  };
}

const SKIPPED_ANNOTATIONS = new Set(['kubectl.kubernetes.io/last-applied-configuration']);

/**
 * Karpenter's registration: the claim's labels, annotations and taints synced onto the node, the
 * registered (and, once Ready, initialized) label, the termination finalizer and the owner
 * reference to the claim. Returned as the fields this provisioner applies (server-side apply).
 */
export function registrationPatch(claim: DeepReadonly<NodeClaim>, node: DeepReadonly<V1Node>, opts: { initialized: boolean; notReadyFault: boolean }): V1Node {
  const annotations = Object.fromEntries(Object.entries(claim.metadata?.annotations ?? {}).filter(([k]) => !SKIPPED_ANNOTATIONS.has(k)));
  const owner: V1OwnerReference = {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    name: claim.metadata?.name ?? '',
    uid: claim.metadata?.uid ?? '',
    blockOwnerDeletion: true,
  };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: node.metadata?.name ?? '',
      labels: {
        ...claim.metadata?.labels,
        [REGISTERED_LABEL]: 'true',
        ...(opts.initialized ? { [INITIALIZED_LABEL]: 'true' } : {}),
        ...(opts.notReadyFault ? { [KWOK_NOT_READY_LABEL]: 'true' } : {}),
      },
      ...(Object.keys(annotations).length ? { annotations } : {}),
      finalizers: ['karpenter.sh/termination'],
      ownerReferences: [owner],
    },
    // Copied: the claim is the cache's (frozen).
    ...(claim.spec?.taints?.length ? { spec: { taints: mutableCopy<V1Taint[]>(claim.spec.taints) } } : {}),
  };
}

/** True when every label, annotation, finalizer, owner and taint of `patch` is already on `node`. */
export function nodeHas(node: DeepReadonly<V1Node>, patch: DeepReadonly<V1Node>): boolean {
  const m = node.metadata ?? {};
  const p = patch.metadata ?? {};
  const subset = (want: Record<string, string> | undefined, have: Record<string, string> | undefined): boolean =>
    Object.entries(want ?? {}).every(([k, v]) => have?.[k] === v);
  return (
    subset(p.labels, m.labels) &&
    subset(p.annotations, m.annotations) &&
    (p.finalizers ?? []).every((f) => m.finalizers?.includes(f)) &&
    (p.ownerReferences ?? []).every((o) => m.ownerReferences?.some((r) => r.uid === o.uid)) &&
    (patch.spec?.taints ?? []).every((t) => node.spec?.taints?.some((x) => x.key === t.key && x.effect === t.effect && x.value === t.value))
  );
}

/** Local NVMe volumes of the node (what the acstor local-disk provisioner would offer), labelled with the claim. */
export function nvmeVolumes(claimName: string, nodeName: string, facts: SkuFacts): V1PersistentVolume[] {
  if (!facts.nvme) return [];
  return localPvsForNode(nodeName, facts.nvme).map((pv) => ({
    ...pv,
    metadata: { ...pv.metadata, labels: { ...pv.metadata?.labels, [PV_CLAIM_LABEL]: claimName } },
  }));
}
