// How many GPU nodes a workspace gets (spec §4.6): KAITO's AdvancedNodesEstimator as a pure function,
// plus the rules of UpdateWorkspaceTargetNodeCount that decide when the estimator applies.
import { GIB, tryParseQuantity } from '../catalog/quantity.js';
import type { GpuConfig, Preset, Runtime } from '../catalog/types.js';
import { GPU_MEMORY_UTILIZATION, STATIC_OVERHEAD_GIB, WEIGHT_OVERHEAD_FACTOR } from './max-model-len.js';

export type NodeEstimate = { ok: true; nodes: number; reason: string } | { ok: false; message: string };

export type EstimatorPreset = Pick<Preset, 'name' | 'totalSafeTensorFileSize' | 'bytesPerToken' | 'disableTensorParallelism' | 'supportDistributedInference'>;

export interface EstimatorInput {
  /** The workspace's preset; undefined for template/no-preset workspaces. */
  preset?: EstimatorPreset;
  /** GPU facts of the SKU (NAP) or of the first ready node (BYO). */
  gpuConfig?: Pick<GpuConfig, 'sku' | 'gpuCount' | 'gpuMemGiB'>;
  /** `resource.count` (deprecated; default 1). */
  count?: number;
  /** Context length the KV cache must hold: explicit `max-model-len` of a user ConfigMap, else 2048. */
  maxModelLen: number;
}

/** Go `%.1f` / `%.0f` for the values that occur here (no exact .5 ties in practice). */
function fixed(value: number, digits: number): string {
  return value.toFixed(digits);
}

/**
 * AdvancedNodesEstimator.EstimateNodeCount without the I/O. Integer steps truncate exactly where KAITO's
 * int64 conversions do, so the results (and error texts) match. The result replaces `count` entirely.
 * Known KAITO quirk kept for parity (W12): `floor(required / available) + 1` adds a GPU when the division is exact.
 */
export function estimateNodeCount(input: EstimatorInput): NodeEstimate {
  const count = input.count ?? 1;
  const { preset, gpuConfig } = input;
  if (!preset || preset.name === '') {
    return { ok: true, nodes: count, reason: `no preset: resource.count ${count}` };
  }
  if (!gpuConfig || gpuConfig.gpuMemGiB <= 0 || gpuConfig.gpuCount <= 0) {
    return { ok: true, nodes: count, reason: `no GPU memory facts: resource.count ${count}` };
  }
  const modelBytes = tryParseQuantity(preset.totalSafeTensorFileSize);
  if (modelBytes === undefined) {
    // KAITO's MustParse would panic; a catalog row can only get here through a bad edit.
    return { ok: false, message: `invalid totalSafeTensorFileSize ${JSON.stringify(preset.totalSafeTensorFileSize)} of preset ${preset.name}` };
  }
  const { gpuCount, gpuMemGiB } = gpuConfig;
  const requiredBytes = Math.trunc(modelBytes * WEIGHT_OVERHEAD_FACTOR);
  const perGpuBytes = Math.trunc((gpuMemGiB * GIB) / gpuCount);
  const availablePerGpuBytes = Math.trunc(perGpuBytes * GPU_MEMORY_UTILIZATION);
  const kvCacheBytes = (input.maxModelLen * preset.bytesPerToken) / gpuCount;
  const overheadBytes = STATIC_OVERHEAD_GIB * GIB + kvCacheBytes;

  if (preset.disableTensorParallelism && requiredBytes + Math.trunc(overheadBytes) > availablePerGpuBytes) {
    return {
      ok: false,
      message:
        `GPU memory ${perGpuBytes} bytes is too small for model, needs ${requiredBytes + Math.trunc(overheadBytes)} bytes ` +
        `(model: ${requiredBytes} + overhead: ${fixed(overheadBytes, 0)})`,
    };
  }
  if (availablePerGpuBytes <= overheadBytes) {
    return {
      ok: false,
      message:
        `GPU memory ${perGpuBytes} bytes is too small, needs at least ${fixed(overheadBytes / GIB, 1)} GB overhead ` +
        `(base: 2.3GB + Advanced KV Cache: ${fixed(kvCacheBytes / GIB, 1)} GB)`,
    };
  }
  const minGpus = Math.trunc(requiredBytes / (availablePerGpuBytes - overheadBytes)) + 1;
  const nodes = Math.ceil(minGpus / gpuCount);
  if (nodes > 1 && preset.disableTensorParallelism) {
    return {
      ok: false,
      message: `models with disabled tensor parallelism cannot be distributed across more than 1 GPU node, calculated nodes: ${nodes}`,
    };
  }
  if (nodes > 1 && !preset.supportDistributedInference) {
    return {
      ok: false,
      message:
        'models with disabled support distributed inference cannot be distributed across more than 1 GPU node, ' +
        `please use a node with larger GPU memory, calculated nodes: ${nodes}`,
    };
  }
  const perGpuGiB = gpuMemGiB / gpuCount;
  return {
    ok: true,
    nodes,
    reason:
      `${preset.name} (${preset.totalSafeTensorFileSize} weights, context ${input.maxModelLen}) needs ${minGpus} GPU(s) ` +
      `of ${perGpuGiB} GiB on ${gpuConfig.sku} (${gpuCount} per node)`,
  };
}

/** KAITO v0.12's estimator: runtime overhead that grows with each GPU's share of the weights. */
const V012_OVERHEAD_WEIGHT_FACTOR = 0.05;

/**
 * KAITO v0.12.0's NodeEstimator (nodesestimator/estimator.go), for models named by Hugging Face id. In
 * floating point as v0.12 computes it: usable = per-GPU × 0.84; reserve = 2.3 GiB + context × bytes per
 * token / GPUs; per-GPU room for weights = (usable − reserve) / 1.05; GPUs = trunc(weights × 1.02 / room) + 1.
 * No tensor-parallelism switch: every such model may shard and spread over nodes.
 */
export function estimateNodeCountV012(input: EstimatorInput): NodeEstimate {
  const count = input.count ?? 1;
  const { preset, gpuConfig } = input;
  if (!preset || !gpuConfig || gpuConfig.gpuMemGiB <= 0 || gpuConfig.gpuCount <= 0) return estimateNodeCount(input);
  const modelBytes = tryParseQuantity(preset.totalSafeTensorFileSize);
  if (modelBytes === undefined) return { ok: false, message: `invalid model size ${JSON.stringify(preset.totalSafeTensorFileSize)} of ${preset.name}` };
  const { gpuCount, gpuMemGiB } = gpuConfig;
  const modelSize = modelBytes * WEIGHT_OVERHEAD_FACTOR;
  const perGpu = Math.trunc((gpuMemGiB * GIB) / gpuCount);
  const usable = perGpu * GPU_MEMORY_UTILIZATION;
  const kvCache = (input.maxModelLen * preset.bytesPerToken) / gpuCount;
  const reserve = STATIC_OVERHEAD_GIB * GIB + kvCache;
  if (usable <= reserve) {
    return {
      ok: false,
      message:
        `GPU memory ${fixed(perGpu, 0)} bytes is too small, needs at least ${fixed(reserve / GIB, 1)} GB overhead ` +
        `(base: ${fixed(STATIC_OVERHEAD_GIB, 1)}GB + KV Cache: ${fixed(kvCache / GIB, 1)} GB)`,
    };
  }
  const room = (usable - reserve) / (1 + V012_OVERHEAD_WEIGHT_FACTOR);
  const minGpus = Math.trunc(modelSize / room) + 1;
  const nodes = Math.ceil(minGpus / gpuCount);
  return {
    ok: true,
    nodes,
    reason:
      `${preset.name} (${preset.totalSafeTensorFileSize} weights, context ${input.maxModelLen}) needs ${minGpus} GPU(s) ` +
      `of ${gpuMemGiB / gpuCount} GiB on ${gpuConfig.sku} (${gpuCount} per node; KAITO v0.12's estimator, resource.count ${count} not used)`,
  };
}

export interface TargetNodeCountInput {
  /** `status.targetNodeCount`; a non-zero value is kept (KAITO sets it once). */
  current?: number;
  hasTuning: boolean;
  hasInference: boolean;
  runtime: Runtime;
  /** `resource.count` (default 1). */
  count?: number;
  /** The estimator, called only for vLLM inference (so BYO transformers needs no GPU facts). */
  estimate: () => NodeEstimate;
}

/**
 * UpdateWorkspaceTargetNodeCount's decision: kept if already set; 1 for tuning or no inference;
 * the estimator (at least 1) for vLLM inference, which falls back to `count` for template workspaces;
 * `count` for transformers. Errors are prefixed like KAITO's (`failed to calculate target node count: …`);
 * the status writer adds its own `failed to update Workspace status targetNodeCount: ` prefix.
 */
export function targetNodeCount(input: TargetNodeCountInput): NodeEstimate {
  if (input.current !== undefined && input.current !== 0) {
    // Set once, as KAITO. Keep the reason when a fresh estimate agrees; say so when it would not.
    const fresh = targetNodeCount({ ...input, current: undefined });
    if (fresh.ok && fresh.nodes === input.current) return fresh;
    const now = fresh.ok ? `a fresh estimate gives ${fresh.nodes}` : `a fresh estimate fails: ${fresh.message}`;
    return {
      ok: true,
      nodes: input.current,
      reason: `status.targetNodeCount was set to ${input.current} when the workspace was first reconciled and is kept (set once); ${now}`,
    };
  }
  if (input.hasTuning || !input.hasInference) {
    return { ok: true, nodes: 1, reason: input.hasTuning ? 'tuning runs on one node' : 'no inference: one node' };
  }
  if (input.runtime === 'transformers') {
    const count = input.count ?? 1;
    return { ok: true, nodes: count, reason: `transformers runtime: resource.count ${count}` };
  }
  const estimate = input.estimate();
  if (!estimate.ok) return { ok: false, message: `failed to calculate target node count: ${estimate.message}` };
  return estimate.nodes >= 1 ? estimate : { ok: true, nodes: 1, reason: `${estimate.reason}; raised to the minimum of 1` };
}
