// The vLLM `--max-model-len` value (spec §5.5) and the explicit value a user may set in the inference ConfigMap.
import { bytesToGiB, tryParseQuantity } from '../catalog/quantity.js';
import type { GpuConfig, Preset, Runtime } from '../catalog/types.js';

/** KAITO's context length when nothing else decides it (estimator input, transformers, missing config). */
export const DEFAULT_MAX_MODEL_LEN = 2048;
/** vLLM `--gpu-memory-utilization` KAITO always passes; also the usable share of GPU memory in the sizing maths. */
export const GPU_MEMORY_UTILIZATION = 0.84;
/** vLLM loads about 2% more than the safetensors size. */
export const WEIGHT_OVERHEAD_FACTOR = 1.02;
/** GiB per GPU for activations (1.7) and non-torch memory (0.6). */
export const STATIC_OVERHEAD_GIB = 2.3;
const TOKEN_ALIGNMENT = 256;

export type MaxModelLenPreset = Pick<Preset, 'totalSafeTensorFileSize' | 'bytesPerToken' | 'modelTokenLimit' | 'disableTensorParallelism'>;
export type MaxModelLenGpu = Pick<GpuConfig, 'gpuCount' | 'gpuMemGiB'>;

function leadingIndent(line: string): string {
  return /^[ \t]*/.exec(line)?.[0] ?? '';
}

/**
 * The explicit positive integer `max-model-len:` under the `vllm:` section of `inference_config.yaml`,
 * found by the same line scan as KAITO's `ParseExplicitMaxModelLen` (no YAML parser):
 * the section starts at the first line whose trimmed text begins with `vllm:`; it ends at the first
 * non-blank, non-comment line indented less than the `vllm:` line + 2 spaces; the first `max-model-len:`
 * line inside decides — a value that is not a plain positive integer (e.g. `4096 # note`) means "none".
 */
export function parseExplicitMaxModelLen(content: string): number | undefined {
  let sectionIndent: number | undefined;
  for (const line of content.split('\n')) {
    const trimmed = line.trim();
    if (sectionIndent === undefined) {
      if (trimmed.startsWith('vllm:')) sectionIndent = leadingIndent(line).length + 2;
      continue;
    }
    if (trimmed !== '' && !trimmed.startsWith('#') && leadingIndent(line).length < sectionIndent) return undefined;
    if (trimmed.startsWith('max-model-len:')) {
      const text = trimmed.slice('max-model-len:'.length).trim();
      const value = /^[+-]?\d+$/.test(text) ? Number(text) : NaN;
      return Number.isSafeInteger(value) && value > 0 ? value : undefined;
    }
  }
  return undefined;
}

/**
 * KAITO's `computeMaxModelLen`: the longest context that fits next to the weights on each GPU,
 * clamped to the model's limit and rounded down to a multiple of 256. 0 means "do not pass the flag".
 * The float operations follow KAITO's order so results match bit for bit (including W11: the KV-cache
 * term is multiplied by the node count while the weight term is divided by it).
 */
export function computeMaxModelLen(preset: MaxModelLenPreset | undefined, gpu: MaxModelLenGpu | undefined, nodes: number): number {
  if (!preset || !gpu || nodes <= 0) return 0;
  if (preset.modelTokenLimit <= 0 || preset.bytesPerToken <= 0 || gpu.gpuMemGiB <= 0 || gpu.gpuCount <= 0) return 0;
  const weightBytes = tryParseQuantity(preset.totalSafeTensorFileSize);
  if (weightBytes === undefined || weightBytes <= 0) return 0;
  const weightGiB = bytesToGiB(weightBytes);

  const usablePerGpuGiB = (gpu.gpuMemGiB * GPU_MEMORY_UTILIZATION) / gpu.gpuCount;
  const weightPerGpuGiB = preset.disableTensorParallelism ? weightGiB * WEIGHT_OVERHEAD_FACTOR : (weightGiB * WEIGHT_OVERHEAD_FACTOR) / (nodes * gpu.gpuCount);
  const availableBytes = (usablePerGpuGiB - weightPerGpuGiB - STATIC_OVERHEAD_GIB) * 2 ** 30;
  const bytesPerToken = preset.disableTensorParallelism ? preset.bytesPerToken : (preset.bytesPerToken / gpu.gpuCount) * nodes;
  if (availableBytes <= 0 || bytesPerToken <= 0) return 0;

  const candidate = Math.trunc(availableBytes / bytesPerToken);
  if (candidate <= 0) return 0;
  const clamped = Math.min(candidate, preset.modelTokenLimit);
  return Math.floor(clamped / TOKEN_ALIGNMENT) * TOKEN_ALIGNMENT;
}

export interface MaxModelLenInput {
  runtime: Runtime;
  /** `inference_config.yaml` of the resolved ConfigMap; undefined when the key is missing. */
  inferenceConfigYaml?: string;
  preset?: MaxModelLenPreset;
  gpuConfig?: MaxModelLenGpu;
  numNodes: number;
}

export interface MaxModelLenChoice {
  /** Value for `--max-model-len`; 0 = omit the flag. */
  value: number;
  reason: string;
}

/**
 * The `--max-model-len` the vLLM command gets (spec §5.5), with the reason for status decisions.
 * kaito-ts difference (W13): an explicit `max-model-len` in the ConfigMap's `vllm:` section is used for
 * the flag too. KAITO ignores it here, yet the server appends the ConfigMap keys after the flags, so the
 * explicit value wins at runtime anyway; rendering it keeps the command, the estimator and the pod in agreement.
 */
export function chooseMaxModelLen(input: MaxModelLenInput): MaxModelLenChoice {
  if (input.runtime !== 'vllm') {
    return { value: DEFAULT_MAX_MODEL_LEN, reason: `default ${DEFAULT_MAX_MODEL_LEN} (runtime ${input.runtime})` };
  }
  if (!input.inferenceConfigYaml) {
    return { value: DEFAULT_MAX_MODEL_LEN, reason: `default ${DEFAULT_MAX_MODEL_LEN} (no inference_config.yaml in the ConfigMap)` };
  }
  const explicit = parseExplicitMaxModelLen(input.inferenceConfigYaml);
  if (explicit !== undefined) {
    return { value: explicit, reason: `explicit max-model-len ${explicit} in inference_config.yaml` };
  }
  const computed = computeMaxModelLen(input.preset, input.gpuConfig, input.numNodes);
  return computed > 0
    ? { value: computed, reason: `largest context that fits in GPU memory on ${input.numNodes} node(s)` }
    : { value: 0, reason: 'not computable from the preset and GPU facts; flag omitted (vLLM decides)' };
}
