// The Karpenter NodeClaim KAITO v0.8.0 writes for each GPU node it needs (node auto-provisioning),
// field for field, so gpu-provisioner and Karpenter accept ours unchanged. Pure: the caller passes the
// time the name is derived from.
import { createHash } from 'node:crypto';
import type { V1NodeSelectorRequirement, V1ObjectMeta } from '@kubernetes/client-node';
import {
  ANNOTATION_KARPENTER_DO_NOT_DISRUPT,
  KARPENTER_NODEPOOL_KAITO,
  LABEL_INSTANCE_TYPE,
  LABEL_KARPENTER_NODEPOOL,
  LABEL_WORKSPACE_NAME,
  LABEL_WORKSPACE_NAMESPACE,
} from '../api/labels.js';
import { foundPreset, type PresetLookup, type ResolvedWorkspace } from '../api/resolved-workspace.js';
import { labelSelectorAsMap } from '../api/selector.js';
import type { Workspace } from '../api/types.js';
import type { CloudProvider } from '../catalog/types.js';
import type { DeepReadonly } from '../runtime/readonly.js';
import { workspaceName, workspaceNamespace } from './meta.js';

export interface NodeClaimRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';
  values: string[];
}

export interface NodeClaim {
  apiVersion: 'karpenter.sh/v1';
  kind: 'NodeClaim';
  metadata: V1ObjectMeta & { name: string; labels: Record<string, string> };
  spec: {
    nodeClassRef: { group: string; kind: string; name: string };
    taints: { key: string; value: string; effect: string }[];
    requirements: NodeClaimRequirement[];
    resources: { requests: { storage: string } };
  };
  status?: {
    nodeName?: string;
    providerID?: string;
    conditions?: { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }[];
  };
}

/** What template and tuning workspaces ask for: KAITO's fixed OS disk for anything without a preset. */
export const DEFAULT_NODECLAIM_STORAGE = '1024Gi';
/** The taint every KAITO GPU node carries; workspace pods tolerate it. */
export const GPU_NODE_TAINT = { key: 'sku', value: 'gpu', effect: 'NoSchedule' } as const;
export const NODE_CLASS_NAME = 'default';
const OS_LINUX_REQUIREMENT: NodeClaimRequirement = { key: 'kubernetes.io/os', operator: 'In', values: ['linux'] };

/** The NodeClass each cloud's provisioner serves; "arc" has none, which the NodeClaim CRD refuses (as KAITO's would be). */
export function nodeClassRef(cloud: CloudProvider): NodeClaim['spec']['nodeClassRef'] {
  if (cloud === 'azure') return { group: 'kaito.sh', kind: 'KaitoNodeClass', name: NODE_CLASS_NAME };
  if (cloud === 'aws') return { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: NODE_CLASS_NAME };
  return { group: '', kind: '', name: NODE_CLASS_NAME };
}

function cloudRequirement(cloud: CloudProvider, instanceType: string): NodeClaimRequirement[] {
  if (cloud === 'azure') return [{ key: 'karpenter.azure.com/sku-name', operator: 'In', values: [instanceType] }];
  if (cloud === 'aws') return [{ key: 'karpenter.k8s.aws/instance-gpu-count', operator: 'Gt', values: ['0'] }];
  return [];
}

/** Go's time.Format("2006-01-02 15:04:05.000000000") in UTC (the operator runs in UTC). */
export function goTimestamp(now: Date, extraNanos = 0): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const nanos = now.getUTCMilliseconds() * 1_000_000 + extraNanos;
  return `${now.getUTCFullYear()}-${p(now.getUTCMonth() + 1)}-${p(now.getUTCDate())} ${p(now.getUTCHours())}:${p(now.getUTCMinutes())}:${p(now.getUTCSeconds())}.${p(nanos, 9)}`;
}

/**
 * "ws" + the first 9 hex digits of sha256(namespace + name + timestamp): 11 characters, within
 * gpu-provisioner's agent-pool name rule ^[a-z][a-z0-9]{0,11}$. `salt` separates claims made in the
 * same millisecond (KAITO relies on nanosecond clocks for that).
 */
export function nodeClaimName(ws: Workspace, now: Date, salt = 0): string {
  const digest = createHash('sha256')
    .update(workspaceNamespace(ws) + workspaceName(ws) + goTimestamp(now, salt))
    .digest('hex');
  return `ws${digest.slice(0, 9)}`;
}

/** The OS disk the node needs: the inference preset's disk requirement, else KAITO's 1024Gi. */
export function nodeClaimStorage(inferencePreset: PresetLookup): string {
  return foundPreset(inferencePreset)?.diskStorageRequirement ?? DEFAULT_NODECLAIM_STORAGE;
}

/** Labels that identify a workspace's claims (claims are cluster-scoped: no owner reference can point at a workspace). */
export function nodeClaimSelector(ws: DeepReadonly<Workspace>): Record<string, string> {
  return { [LABEL_WORKSPACE_NAME]: workspaceName(ws), [LABEL_WORKSPACE_NAMESPACE]: workspaceNamespace(ws) };
}

export function buildNodeClaim(ws: Workspace, resolved: Pick<ResolvedWorkspace, 'cloud' | 'inferencePreset'>, name: string): NodeClaim {
  const { cloud } = resolved;
  const instanceType = ws.resource?.instanceType ?? '';
  const selector = labelSelectorAsMap(ws.resource?.labelSelector);
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodeClaim',
    metadata: {
      name,
      labels: {
        [LABEL_KARPENTER_NODEPOOL]: KARPENTER_NODEPOOL_KAITO,
        ...nodeClaimSelector(ws),
        ...(selector.ok ? selector.map : {}),
      },
      annotations: { [ANNOTATION_KARPENTER_DO_NOT_DISRUPT]: 'true' },
    },
    spec: {
      nodeClassRef: nodeClassRef(cloud),
      taints: [{ ...GPU_NODE_TAINT }],
      requirements: [
        { key: LABEL_KARPENTER_NODEPOOL, operator: 'In', values: [KARPENTER_NODEPOOL_KAITO] },
        { key: LABEL_INSTANCE_TYPE, operator: 'In', values: [instanceType] },
        OS_LINUX_REQUIREMENT,
        ...cloudRequirement(cloud, instanceType),
      ],
      resources: { requests: { storage: nodeClaimStorage(resolved.inferencePreset) } },
    },
  };
}

/**
 * KAITO v0.12's BuildNodeSelector with gpu-provisioner: the claim labels gpu-provisioner puts on the
 * nodes, each `In [value]`, so the workspace's pods land only on the nodes made for it.
 */
export function nodeClaimNodeAffinity(ws: DeepReadonly<Workspace>): V1NodeSelectorRequirement[] {
  return Object.entries(nodeClaimSelector(ws)).map(([key, value]) => ({ key, operator: 'In', values: [value] }));
}
