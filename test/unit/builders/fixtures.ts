// Workspaces and cluster facts for the builder tests.
import type { V1Node } from '@kubernetes/client-node';
import { DEFAULT_FEATURE_GATES } from '../../../src/api/feature-gates.js';
import type { Workspace } from '../../../src/api/types.js';
import { defaultFacts, type ClusterFacts } from '../../../src/builders/facts.js';
import { operatorConfigOf, type OperatorConfig } from '../../../src/controllers/workspace/context.js';

export const NVME_CLASS = 'kaito-local-nvme-disk';

export function presetWorkspace(preset: string, instanceType = 'Standard_NC24ads_A100_v4', extra: Partial<Workspace> = {}): Workspace {
  return {
    apiVersion: 'kaito.sh/v1beta1',
    kind: 'Workspace',
    metadata: { name: 'ws1', namespace: 'ns1', uid: 'uid-1' },
    resource: { count: 1, instanceType, labelSelector: { matchLabels: { apps: 'test', pool: 'gpu' } } },
    inference: { preset: { name: preset } },
    ...extra,
  };
}

export function byoWorkspace(preset: string): Workspace {
  const ws = presetWorkspace(preset);
  delete ws.resource.instanceType;
  return ws;
}

export function gpuNode(name: string, labels: Record<string, string>, ready = true): V1Node {
  return {
    metadata: { name, labels: { apps: 'test', pool: 'gpu', ...labels } },
    status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  };
}

export const H100_NODE_LABELS = {
  'node.kubernetes.io/instance-type': 'Standard_NC80adis_H100_v5',
  'nvidia.com/gpu.product': 'NVIDIA-H100-NVL',
  'nvidia.com/gpu.count': '2',
  'nvidia.com/gpu.memory': '96256',
};
export const A10_NODE_LABELS = {
  'node.kubernetes.io/instance-type': 'Standard_NV36ads_A10_v5',
  'nvidia.com/gpu.product': 'NVIDIA-A10',
  'nvidia.com/gpu.count': '1',
  'nvidia.com/gpu.memory': '24576',
};

/**
 * The NVMe cluster. Short preset names render as KAITO v0.8.0 did (`--legacy-presets=v0.8`): the builder
 * tables were written against v0.8.0's presets; the default (v0.12) has its own tables (generation.test.ts,
 * legacy-presets.test.ts, legacy-v012.test.ts).
 */
export function facts(overrides: Partial<ClusterFacts> = {}): ClusterFacts {
  return defaultFacts({ storageClassNames: [NVME_CLASS], legacyNames: 'v0.8', ...overrides });
}

export function byoFacts(overrides: Partial<ClusterFacts> = {}): ClusterFacts {
  return facts({ featureGates: { ...DEFAULT_FEATURE_GATES, disableNodeAutoProvisioning: true }, ...overrides });
}

/** The operator's configuration with bring-your-own nodes (node auto-provisioning off), catalogs as defaultFacts. */
export function byoOperatorConfig(nodeProvisioningTimeoutMs = 1_800_000): OperatorConfig {
  return operatorConfigOf(byoFacts(), nodeProvisioningTimeoutMs);
}
