// Where the GPU facts of a workspace come from (spec §5.1): the SKU catalog when nodes are
// auto-provisioned, the GPU Feature Discovery labels of the first ready matching node in BYO mode.
// Both are looked up once, in the resolved workspace (src/api/resolved-workspace.ts).
import { firstReadyNode, type ResolvedWorkspace } from '../api/resolved-workspace.js';
import type { Decision } from '../api/types.js';
import { unsupportedSkuMessage } from '../catalog/gpu-skus.js';
import type { GpuConfig } from '../catalog/types.js';
import type { ClusterFacts } from './facts.js';
import { problem, type Problem } from './problems.js';

export type GpuResult = { ok: true; gpuConfig: GpuConfig; decision: Decision } | { ok: false; problem: Problem };

export function isBringYourOwnNodes(facts: ClusterFacts): boolean {
  return facts.featureGates.disableNodeAutoProvisioning;
}

function describe(gpu: GpuConfig): string {
  return `${gpu.gpuCount}× ${gpu.gpuModel}, ${gpu.gpuMemGiB} GiB GPU memory per node`;
}

/** The GPU facts the resolved workspace holds, or the problem that there are none. */
export function resolveGpuConfig(resolved: ResolvedWorkspace): GpuResult {
  const { cloud, sku } = resolved;
  if (sku) {
    if (!sku.gpu) {
      return {
        ok: false,
        problem: problem('resource.instanceType', 'UnsupportedSKU', `failed to get GPU config: ${unsupportedSkuMessage(sku.instanceType)} (cloud ${cloud})`),
      };
    }
    return {
      ok: true,
      gpuConfig: sku.gpu,
      decision: { topic: 'gpu', choice: sku.instanceType, reason: `${describe(sku.gpu)} (${cloud} SKU catalog)` },
    };
  }
  const first = firstReadyNode(resolved);
  if (!first) {
    return {
      ok: false,
      problem: problem('resource.labelSelector', 'NoReadyNodes', "no ready nodes found matching the workspace's label selector"),
    };
  }
  if (!first.gpu.ok) {
    return { ok: false, problem: problem('resource.labelSelector', 'NodeGPULabels', `failed to get GPU config: ${first.gpu.message}`) };
  }
  return {
    ok: true,
    gpuConfig: first.gpu.gpuConfig,
    decision: {
      topic: 'gpu',
      choice: first.name,
      reason: `${describe(first.gpu.gpuConfig)} (GPU labels of the first ready matching node; bring-your-own nodes)`,
    },
  };
}
