// The conditions of KAITO's rules for kaito.sh/v1alpha1 workspaces that its v1beta1 webhook lacks, as
// v0.12.0 still applies them (api/v1alpha1/workspace_validation.go, inference_config_validation.go).
// validation.ts reports them, with KAITO's messages, for workspaces written in v1alpha1 (spec-version.ts).
import type { GpuConfig } from '../catalog/types.js';
import type { PresetSpec } from './types.js';

/** Below this much memory per GPU, a multi-GPU SKU needs an explicit max-model-len. */
const SMALL_GPU_GIB = 20;

/** `accessMode: private` with no `presetOptions.image` to pull. */
export function privateWithoutImage(preset: PresetSpec): boolean {
  return preset.accessMode === 'private' && !preset.presetOptions?.image;
}

/**
 * vLLM needs `max-model-len` in the config on a multi-GPU SKU with under 20 GiB per GPU (`sku`: the
 * instanceType's catalog entry, none under BYO), or on more than one node.
 */
export function maxModelLenRequired(count: number | undefined, sku: GpuConfig | undefined): boolean {
  const smallMultiGpu = !!sku && sku.gpuCount > 1 && sku.gpuMemGiB / sku.gpuCount < SMALL_GPU_GIB;
  return smallMultiGpu || (count ?? 1) > 1;
}

/** No `max-model-len` in the `vllm` section, or an empty one (KAITO reads the values as strings: null is ''). */
export function maxModelLenMissing(vllm: unknown): boolean {
  const value = typeof vllm === 'object' && vllm !== null ? (vllm as Record<string, unknown>)['max-model-len'] : undefined;
  return value === undefined || value === null || value === '';
}
