// Where the GPU facts of a workspace come from (spec §5.1): the SKU catalog when nodes are
// auto-provisioned, the GPU Feature Discovery labels of the first ready matching node in BYO mode.
import type { Decision, Workspace } from '../api/types.js';
import { lookupSku, unsupportedSkuMessage } from '../catalog/gpu-skus.js';
import { gpuConfigFromNodeLabels } from '../catalog/node-gpu.js';
import type { GpuConfig } from '../catalog/types.js';
import { readyMatchingNodes, type ClusterFacts } from './facts.js';
import { problem, type Problem } from './problems.js';

export type GpuResult = { ok: true; gpuConfig: GpuConfig; decision: Decision } | { ok: false; problem: Problem };

export function isBringYourOwnNodes(facts: ClusterFacts): boolean {
  return facts.featureGates.disableNodeAutoProvisioning;
}

function describe(gpu: GpuConfig): string {
  return `${gpu.gpuCount}× ${gpu.gpuModel}, ${gpu.gpuMemGiB} GiB GPU memory per node`;
}

export function resolveGpuConfig(ws: Workspace, facts: ClusterFacts): GpuResult {
  if (!isBringYourOwnNodes(facts)) {
    const instanceType = ws.resource?.instanceType ?? '';
    const gpu = lookupSku(facts.cloudProvider, instanceType);
    if (!gpu) {
      return {
        ok: false,
        problem: problem('resource.instanceType', 'UnsupportedSKU', `failed to get GPU config: ${unsupportedSkuMessage(instanceType)} (cloud ${facts.cloudProvider})`),
      };
    }
    return {
      ok: true,
      gpuConfig: gpu,
      decision: { topic: 'gpu', choice: instanceType, reason: `${describe(gpu)} (${facts.cloudProvider} SKU catalog)` },
    };
  }
  const [first] = readyMatchingNodes(ws, facts.nodes);
  if (!first) {
    return {
      ok: false,
      problem: problem('resource.labelSelector', 'NoReadyNodes', "no ready nodes found matching the workspace's label selector"),
    };
  }
  const fromLabels = gpuConfigFromNodeLabels(first, facts.cloudProvider);
  if (!fromLabels.ok) {
    return { ok: false, problem: problem('resource.labelSelector', 'NodeGPULabels', `failed to get GPU config: ${fromLabels.message}`) };
  }
  return {
    ok: true,
    gpuConfig: fromLabels.gpuConfig,
    decision: {
      topic: 'gpu',
      choice: first.metadata?.name ?? '',
      reason: `${describe(fromLabels.gpuConfig)} (GPU labels of the first ready matching node; bring-your-own nodes)`,
    },
  };
}
