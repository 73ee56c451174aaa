// GPU facts of a bring-your-own node, read from its GPU Feature Discovery labels (spec §7.4).
// Two deliberate differences from KAITO:
//  - W10: `nvidia.com/gpu.memory` is the memory of ONE GPU (MiB); GpuConfig.gpuMemGiB is the NODE total,
//    so the total is per-GPU GiB × GPU count (KAITO stores the per-GPU value and under-sizes multi-GPU nodes).
//  - NVMe: if the node's `node.kubernetes.io/instance-type` is an NVMe SKU of the cloud's catalog, the node
//    has the local disk, so `nvmeDiskEnabled` is true and `sku` is that instance type (KAITO: never, W18).
import { LABEL_GPU_COUNT, LABEL_GPU_MEMORY, LABEL_GPU_PRODUCT, LABEL_INSTANCE_TYPE } from '../api/labels.js';
import { lookupSku } from './gpu-skus.js';
import type { CloudProvider, GpuConfig } from './types.js';

/** The part of a V1Node this needs. */
export interface NodeLabelsSource {
  metadata?: { name?: string; labels?: Record<string, string> };
}

export type NodeGpuResult = { ok: true; gpuConfig: GpuConfig } | { ok: false; message: string };

/** SKU value KAITO uses when the SKU is not known from labels. */
export const UNKNOWN_SKU = 'unknown';

/** Whole, positive decimal integer in the forms Go's strconv.Atoi accepts (optional sign, digits). */
function positiveInt(text: string): number | undefined {
  if (!/^[+-]?\d+$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

/** GFD MiB → whole GiB, rounded half up like KAITO's `int(MiB/1024 + 0.5)`. */
export function mibToRoundedGiB(mib: number): number {
  return Math.floor(mib / 1024 + 0.5);
}

export function gpuConfigFromNodeLabels(node: NodeLabelsSource, cloud: CloudProvider): NodeGpuResult {
  const name = node.metadata?.name ?? '';
  const labels = node.metadata?.labels ?? {};
  const product = labels[LABEL_GPU_PRODUCT];
  const countText = labels[LABEL_GPU_COUNT];
  const memoryText = labels[LABEL_GPU_MEMORY];
  if (product === undefined || countText === undefined || memoryText === undefined) {
    return { ok: false, message: `missing required nvidia.com labels on node ${name}` };
  }
  // KAITO accepts zero/negative values here; a GPU node with no GPUs or no memory is a labelling error.
  const gpuCount = positiveInt(countText);
  if (gpuCount === undefined) {
    return { ok: false, message: `invalid nvidia.com/gpu.count value on node ${name}: ${countText}` };
  }
  const perGpuMiB = positiveInt(memoryText);
  if (perGpuMiB === undefined) {
    return { ok: false, message: `invalid nvidia.com/gpu.memory value on node ${name}: ${memoryText}` };
  }
  const instanceType = labels[LABEL_INSTANCE_TYPE];
  const catalogSku = instanceType === undefined ? undefined : lookupSku(cloud, instanceType);
  const nvme = catalogSku?.nvmeDiskEnabled === true;
  return {
    ok: true,
    gpuConfig: {
      sku: nvme && instanceType !== undefined ? instanceType : UNKNOWN_SKU,
      gpuCount,
      gpuModel: product,
      gpuMemGiB: mibToRoundedGiB(perGpuMiB) * gpuCount,
      nvmeDiskEnabled: nvme,
    },
  };
}
