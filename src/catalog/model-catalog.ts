// KAITO v0.12.0's model catalog (presets/workspace/models/model_catalog.yaml): every model it serves
// by Hugging Face id with no request to the hub, with the config.json values its generator sizes from.
// Also v0.12's legacy short names (each mapped to a catalog entry) and the names it no longer serves.
// Facts only, copied from v0.12.0; kaito-ts keeps rendering its legacy names as KAITO v0.8.0 did
// (src/catalog/presets.ts): the mapping is recorded so `render --explain` can name the entry.

/** One catalog model: the Hugging Face config values KAITO v0.12's generator reads (0 or absent: not known). */
export interface CatalogEntry {
  /** Hugging Face id as the catalog spells it (lookups ignore case, as v0.12's do). */
  name: string;
  /** Size of the weight files, e.g. `27.31Gi`. */
  modelFileSize: string;
  architectures: readonly string[];
  modelTokenLimit: number;
  hiddenSize: number;
  numHiddenLayers: number;
  numAttentionHeads: number;
  numKeyValueHeads: number;
  headDim?: number;
  /** Multi-head latent attention (DeepSeek): the KV cache holds kvLoraRank + qkRopeHeadDim per layer. */
  kvLoraRank?: number;
  qkRopeHeadDim?: number;
  quantMethod?: string;
  quantBits?: number;
  /** vLLM `--load_format` / `--config_format` / `--tokenizer_mode` when not `auto` (Mistral-format repos). */
  loadFormat?: string;
  configFormat?: string;
  tokenizerMode?: string;
}

// prettier-ignore
const ENTRIES: readonly CatalogEntry[] = [
  { name: 'microsoft/phi-4', modelFileSize: '27.31Gi', architectures: ['Phi3ForCausalLM'], modelTokenLimit: 16384, hiddenSize: 5120, numHiddenLayers: 40, numAttentionHeads: 40, numKeyValueHeads: 10 },
  { name: 'microsoft/Phi-4-mini-instruct', modelFileSize: '7.15Gi', architectures: ['Phi3ForCausalLM'], modelTokenLimit: 131072, hiddenSize: 3072, numHiddenLayers: 32, numAttentionHeads: 24, numKeyValueHeads: 8 },
  { name: 'deepseek-ai/DeepSeek-R1-Distill-Llama-8B', modelFileSize: '14.96Gi', architectures: ['LlamaForCausalLM'], modelTokenLimit: 131072, hiddenSize: 4096, numHiddenLayers: 32, numAttentionHeads: 32, numKeyValueHeads: 8 },
  { name: 'deepseek-ai/DeepSeek-R1-Distill-Qwen-14B', modelFileSize: '27.51Gi', architectures: ['Qwen2ForCausalLM'], modelTokenLimit: 131072, hiddenSize: 5120, numHiddenLayers: 48, numAttentionHeads: 40, numKeyValueHeads: 8 },
  { name: 'microsoft/Phi-3-mini-4k-instruct', modelFileSize: '7.12Gi', architectures: ['Phi3ForCausalLM'], modelTokenLimit: 4096, hiddenSize: 3072, numHiddenLayers: 32, numAttentionHeads: 32, numKeyValueHeads: 32 },
  { name: 'microsoft/Phi-3-mini-128k-instruct', modelFileSize: '7.12Gi', architectures: ['Phi3ForCausalLM'], modelTokenLimit: 131072, hiddenSize: 3072, numHiddenLayers: 32, numAttentionHeads: 32, numKeyValueHeads: 32 },
  { name: 'microsoft/Phi-3-medium-4k-instruct', modelFileSize: '26.00Gi', architectures: ['Phi3ForCausalLM'], modelTokenLimit: 4096, hiddenSize: 5120, numHiddenLayers: 40, numAttentionHeads: 40, numKeyValueHeads: 10 },
  { name: 'microsoft/Phi-3-medium-128k-instruct', modelFileSize: '26.00Gi', architectures: ['Phi3ForCausalLM'], modelTokenLimit: 131072, hiddenSize: 5120, numHiddenLayers: 40, numAttentionHeads: 40, numKeyValueHeads: 10 },
  { name: 'microsoft/Phi-3.5-mini-instruct', modelFileSize: '7.12Gi', architectures: ['Phi3ForCausalLM'], modelTokenLimit: 131072, hiddenSize: 3072, numHiddenLayers: 32, numAttentionHeads: 32, numKeyValueHeads: 32 },
  { name: 'Qwen/Qwen2.5-Coder-7B-Instruct', modelFileSize: '14.19Gi', architectures: ['Qwen2ForCausalLM'], modelTokenLimit: 32768, hiddenSize: 3584, numHiddenLayers: 28, numAttentionHeads: 28, numKeyValueHeads: 4 },
  { name: 'Qwen/Qwen2.5-Coder-32B-Instruct', modelFileSize: '61.03Gi', architectures: ['Qwen2ForCausalLM'], modelTokenLimit: 32768, hiddenSize: 5120, numHiddenLayers: 64, numAttentionHeads: 40, numKeyValueHeads: 8 },
  { name: 'openai/gpt-oss-20b', modelFileSize: '25.63Gi', architectures: ['GptOssForCausalLM'], modelTokenLimit: 131072, hiddenSize: 2880, numHiddenLayers: 24, numAttentionHeads: 64, numKeyValueHeads: 8, headDim: 64, quantMethod: 'mxfp4' },
  { name: 'openai/gpt-oss-120b', modelFileSize: '121.54Gi', architectures: ['GptOssForCausalLM'], modelTokenLimit: 131072, hiddenSize: 2880, numHiddenLayers: 36, numAttentionHeads: 64, numKeyValueHeads: 8, headDim: 64, quantMethod: 'mxfp4' },
  { name: 'meta-llama/Llama-3.1-8B-Instruct', modelFileSize: '14.96Gi', architectures: ['LlamaForCausalLM'], modelTokenLimit: 131072, hiddenSize: 4096, numHiddenLayers: 32, numAttentionHeads: 32, numKeyValueHeads: 8 },
  { name: 'meta-llama/Llama-3.3-70B-Instruct', modelFileSize: '131.42Gi', architectures: ['LlamaForCausalLM'], modelTokenLimit: 131072, hiddenSize: 8192, numHiddenLayers: 80, numAttentionHeads: 64, numKeyValueHeads: 8 },
  { name: 'mistralai/Mistral-7B-v0.3', modelFileSize: '13.50Gi', architectures: ['MistralForCausalLM'], modelTokenLimit: 32768, hiddenSize: 4096, numHiddenLayers: 32, numAttentionHeads: 32, numKeyValueHeads: 8, loadFormat: 'mistral', configFormat: 'mistral', tokenizerMode: 'mistral' },
  { name: 'mistralai/Mistral-7B-Instruct-v0.3', modelFileSize: '13.50Gi', architectures: ['MistralForCausalLM'], modelTokenLimit: 32768, hiddenSize: 4096, numHiddenLayers: 32, numAttentionHeads: 32, numKeyValueHeads: 8, loadFormat: 'mistral', configFormat: 'mistral', tokenizerMode: 'mistral' },
  { name: 'mistralai/Ministral-3-3B-Instruct-2512', modelFileSize: '4.35Gi', architectures: ['Mistral3ForConditionalGeneration'], modelTokenLimit: 262144, hiddenSize: 3072, numHiddenLayers: 26, numAttentionHeads: 32, numKeyValueHeads: 8, headDim: 128, quantMethod: 'fp8', loadFormat: 'mistral', configFormat: 'mistral', tokenizerMode: 'mistral' },
  { name: 'mistralai/Ministral-3-8B-Instruct-2512', modelFileSize: '9.70Gi', architectures: ['Mistral3ForConditionalGeneration'], modelTokenLimit: 262144, hiddenSize: 4096, numHiddenLayers: 34, numAttentionHeads: 32, numKeyValueHeads: 8, quantMethod: 'fp8', loadFormat: 'mistral', configFormat: 'mistral', tokenizerMode: 'mistral' },
  { name: 'mistralai/Ministral-3-14B-Instruct-2512', modelFileSize: '14.65Gi', architectures: ['Mistral3ForConditionalGeneration'], modelTokenLimit: 262144, hiddenSize: 5120, numHiddenLayers: 40, numAttentionHeads: 32, numKeyValueHeads: 8, headDim: 128, quantMethod: 'fp8', loadFormat: 'mistral', configFormat: 'mistral', tokenizerMode: 'mistral' },
  { name: 'google/gemma-3-4b-it', modelFileSize: '8.01Gi', architectures: ['Gemma3ForConditionalGeneration'], modelTokenLimit: 131072, hiddenSize: 2560, numHiddenLayers: 34, numAttentionHeads: 8, numKeyValueHeads: 4, headDim: 256 },
  { name: 'google/gemma-3-27b-it', modelFileSize: '51.10Gi', architectures: ['Gemma3ForConditionalGeneration'], modelTokenLimit: 131072, hiddenSize: 5376, numHiddenLayers: 62, numAttentionHeads: 32, numKeyValueHeads: 16, headDim: 128 },
  { name: 'deepseek-ai/DeepSeek-R1-0528', modelFileSize: '641.30Gi', architectures: ['DeepseekV3ForCausalLM'], modelTokenLimit: 163840, hiddenSize: 7168, numHiddenLayers: 61, numAttentionHeads: 128, numKeyValueHeads: 128, kvLoraRank: 512, qkRopeHeadDim: 64, quantMethod: 'fp8' },
  { name: 'deepseek-ai/DeepSeek-V3-0324', modelFileSize: '641.30Gi', architectures: ['DeepseekV3ForCausalLM'], modelTokenLimit: 163840, hiddenSize: 7168, numHiddenLayers: 61, numAttentionHeads: 128, numKeyValueHeads: 128, kvLoraRank: 512, qkRopeHeadDim: 64, quantMethod: 'fp8' },
  { name: 'mistralai/Mistral-Large-3-675B-Instruct-2512', modelFileSize: '634.70Gi', architectures: ['MistralLarge3ForCausalLM'], modelTokenLimit: 294912, hiddenSize: 7168, numHiddenLayers: 61, numAttentionHeads: 128, numKeyValueHeads: 128, headDim: 192, kvLoraRank: 512, qkRopeHeadDim: 64, quantMethod: 'float-quantized', loadFormat: 'mistral', configFormat: 'mistral', tokenizerMode: 'mistral' },
  { name: 'nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16', modelFileSize: '230.25Gi', architectures: ['NemotronHForCausalLM'], modelTokenLimit: 262144, hiddenSize: 4096, numHiddenLayers: 88, numAttentionHeads: 32, numKeyValueHeads: 2 },
  { name: 'nvidia/Nemotron-Cascade-2-30B-A3B', modelFileSize: '58.82Gi', architectures: ['NemotronHForCausalLM'], modelTokenLimit: 262144, hiddenSize: 2688, numHiddenLayers: 52, numAttentionHeads: 32, numKeyValueHeads: 2, headDim: 128 },
  { name: 'nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16', modelFileSize: '58.82Gi', architectures: ['NemotronHForCausalLM'], modelTokenLimit: 262144, hiddenSize: 2688, numHiddenLayers: 52, numAttentionHeads: 32, numKeyValueHeads: 2, headDim: 128 },
  { name: 'nvidia/NVIDIA-Nemotron-Nano-12B-v2-VL-BF16', modelFileSize: '24.55Gi', architectures: ['NemotronH_Nano_VL_V2'], modelTokenLimit: 131072, hiddenSize: 5120, numHiddenLayers: 62, numAttentionHeads: 40, numKeyValueHeads: 8 },
  { name: 'nvidia/NVIDIA-Nemotron-Nano-9B-v2', modelFileSize: '16.56Gi', architectures: ['NemotronHForCausalLM'], modelTokenLimit: 131072, hiddenSize: 4480, numHiddenLayers: 56, numAttentionHeads: 40, numKeyValueHeads: 8, headDim: 128 },
  { name: 'nvidia/NVIDIA-Nemotron-3-Nano-4B-BF16', modelFileSize: '7.40Gi', architectures: ['NemotronHForCausalLM'], modelTokenLimit: 262144, hiddenSize: 3136, numHiddenLayers: 42, numAttentionHeads: 40, numKeyValueHeads: 8, headDim: 128 },
  { name: 'Qwen/Qwen3-8B-AWQ', modelFileSize: '5.68Gi', architectures: ['Qwen3ForCausalLM'], modelTokenLimit: 40960, hiddenSize: 4096, numHiddenLayers: 36, numAttentionHeads: 32, numKeyValueHeads: 8, quantMethod: 'awq', quantBits: 4 },
  { name: 'google/gemma-4-31B-it', modelFileSize: '58.25Gi', architectures: ['Gemma4ForConditionalGeneration'], modelTokenLimit: 262144, hiddenSize: 5376, numHiddenLayers: 60, numAttentionHeads: 32, numKeyValueHeads: 16, headDim: 256 },
  { name: 'google/gemma-4-26B-A4B-it', modelFileSize: '48.07Gi', architectures: ['Gemma4ForConditionalGeneration'], modelTokenLimit: 262144, hiddenSize: 2816, numHiddenLayers: 30, numAttentionHeads: 16, numKeyValueHeads: 8, headDim: 256 },
  { name: 'google/gemma-4-E4B-it', modelFileSize: '14.89Gi', architectures: ['Gemma4ForConditionalGeneration'], modelTokenLimit: 131072, hiddenSize: 2560, numHiddenLayers: 42, numAttentionHeads: 8, numKeyValueHeads: 2, headDim: 256 },
  { name: 'google/gemma-4-E2B-it', modelFileSize: '9.54Gi', architectures: ['Gemma4ForConditionalGeneration'], modelTokenLimit: 131072, hiddenSize: 1536, numHiddenLayers: 35, numAttentionHeads: 8, numKeyValueHeads: 1, headDim: 256 },
  { name: 'mistralai/Mistral-Small-4-119B-2603', modelFileSize: '112.63Gi', architectures: ['Mistral3ForConditionalGeneration'], modelTokenLimit: 1048576, hiddenSize: 4096, numHiddenLayers: 36, numAttentionHeads: 32, numKeyValueHeads: 32, kvLoraRank: 256, qkRopeHeadDim: 64, quantMethod: 'fp8', loadFormat: 'mistral', configFormat: 'mistral', tokenizerMode: 'mistral' },
  { name: 'mistralai/Mistral-Small-4-119B-2603-NVFP4', modelFileSize: '65.95Gi', architectures: ['Mistral3ForConditionalGeneration'], modelTokenLimit: 1048576, hiddenSize: 4096, numHiddenLayers: 36, numAttentionHeads: 32, numKeyValueHeads: 32, kvLoraRank: 256, qkRopeHeadDim: 64, quantMethod: 'nvfp4-pack-quantized', loadFormat: 'mistral', configFormat: 'mistral', tokenizerMode: 'mistral' },
  { name: 'Qwen/Qwen3.5-2B', modelFileSize: '4.24Gi', architectures: ['Qwen3_5ForConditionalGeneration'], modelTokenLimit: 262144, hiddenSize: 2048, numHiddenLayers: 24, numAttentionHeads: 8, numKeyValueHeads: 2 },
  { name: 'Qwen/Qwen3.5-4B', modelFileSize: '8.68Gi', architectures: ['Qwen3_5ForConditionalGeneration'], modelTokenLimit: 262144, hiddenSize: 2560, numHiddenLayers: 32, numAttentionHeads: 16, numKeyValueHeads: 4, headDim: 256 },
  { name: 'Qwen/Qwen3.5-9B', modelFileSize: '17.98Gi', architectures: ['Qwen3_5ForConditionalGeneration'], modelTokenLimit: 262144, hiddenSize: 4096, numHiddenLayers: 32, numAttentionHeads: 16, numKeyValueHeads: 4 },
  { name: 'Qwen/Qwen3.5-122B-A10B-GPTQ-Int4', modelFileSize: '73.47Gi', architectures: ['Qwen3_5MoeForConditionalGeneration'], modelTokenLimit: 262144, hiddenSize: 3072, numHiddenLayers: 48, numAttentionHeads: 32, numKeyValueHeads: 2, headDim: 256, quantMethod: 'gptq', quantBits: 4 },
  { name: 'Qwen/Qwen3.5-122B-A10B', modelFileSize: '232.99Gi', architectures: ['Qwen3_5MoeForConditionalGeneration'], modelTokenLimit: 262144, hiddenSize: 3072, numHiddenLayers: 48, numAttentionHeads: 32, numKeyValueHeads: 2, headDim: 256 },
  { name: 'Qwen/Qwen3.6-35B-A3B-FP8', modelFileSize: '34.90Gi', architectures: ['Qwen3_5MoeForConditionalGeneration'], modelTokenLimit: 262144, hiddenSize: 2048, numHiddenLayers: 40, numAttentionHeads: 16, numKeyValueHeads: 2, headDim: 256, quantMethod: 'fp8' },
  { name: 'Qwen/Qwen3.6-35B-A3B', modelFileSize: '66.97Gi', architectures: ['Qwen3_5MoeForConditionalGeneration'], modelTokenLimit: 262144, hiddenSize: 2048, numHiddenLayers: 40, numAttentionHeads: 16, numKeyValueHeads: 2, headDim: 256 },
  { name: 'Qwen/Qwen3.6-27B', modelFileSize: '51.75Gi', architectures: ['Qwen3_5ForConditionalGeneration'], modelTokenLimit: 262144, hiddenSize: 5120, numHiddenLayers: 64, numAttentionHeads: 24, numKeyValueHeads: 4, headDim: 256 },
  { name: 'Qwen/Qwen3.5-397B-A17B-GPTQ-Int4', modelFileSize: '219.56Gi', architectures: ['Qwen3_5MoeForConditionalGeneration'], modelTokenLimit: 262144, hiddenSize: 4096, numHiddenLayers: 60, numAttentionHeads: 32, numKeyValueHeads: 2, headDim: 256, quantMethod: 'gptq', quantBits: 4 },
  { name: 'moonshotai/Kimi-K2.5', modelFileSize: '554.32Gi', architectures: ['KimiK25ForConditionalGeneration'], modelTokenLimit: 262144, hiddenSize: 7168, numHiddenLayers: 61, numAttentionHeads: 64, numKeyValueHeads: 64, kvLoraRank: 512, qkRopeHeadDim: 64, quantMethod: 'pack-quantized' },
  { name: 'moonshotai/Kimi-K2.6', modelFileSize: '554.32Gi', architectures: ['KimiK25ForConditionalGeneration'], modelTokenLimit: 262144, hiddenSize: 7168, numHiddenLayers: 61, numAttentionHeads: 64, numKeyValueHeads: 64, kvLoraRank: 512, qkRopeHeadDim: 64, quantMethod: 'pack-quantized' },
  { name: 'MiniMaxAI/MiniMax-M2.7', modelFileSize: '214.34Gi', architectures: ['MiniMaxM2ForCausalLM'], modelTokenLimit: 204800, hiddenSize: 3072, numHiddenLayers: 62, numAttentionHeads: 48, numKeyValueHeads: 8, headDim: 128, quantMethod: 'fp8' },
  { name: 'mistralai/Mistral-Medium-3.5-128B', modelFileSize: '124.43Gi', architectures: ['Mistral3ForConditionalGeneration'], modelTokenLimit: 262144, hiddenSize: 12288, numHiddenLayers: 88, numAttentionHeads: 96, numKeyValueHeads: 8, quantMethod: 'fp8', loadFormat: 'mistral', configFormat: 'mistral', tokenizerMode: 'mistral' },
  { name: 'deepseek-ai/DeepSeek-V4-Flash-0731', modelFileSize: '155.43Gi', architectures: ['DeepseekV4ForCausalLM'], modelTokenLimit: 1048576, hiddenSize: 4096, numHiddenLayers: 43, numAttentionHeads: 64, numKeyValueHeads: 1, headDim: 512, qkRopeHeadDim: 64, quantMethod: 'fp8' },
  { name: 'deepseek-ai/DeepSeek-V4-Pro', modelFileSize: '805.34Gi', architectures: ['DeepseekV4ForCausalLM'], modelTokenLimit: 1048576, hiddenSize: 7168, numHiddenLayers: 61, numAttentionHeads: 128, numKeyValueHeads: 1, headDim: 512, qkRopeHeadDim: 64, quantMethod: 'fp8' },
  { name: 'google/gemma-4-12B-it', modelFileSize: '22.28Gi', architectures: ['Gemma4UnifiedForConditionalGeneration'], modelTokenLimit: 262144, hiddenSize: 3840, numHiddenLayers: 48, numAttentionHeads: 16, numKeyValueHeads: 8, headDim: 256 },
  { name: 'zai-org/GLM-5.2-FP8', modelFileSize: '703.75Gi', architectures: ['GlmMoeDsaForCausalLM'], modelTokenLimit: 1048576, hiddenSize: 6144, numHiddenLayers: 78, numAttentionHeads: 64, numKeyValueHeads: 64, headDim: 192, kvLoraRank: 512, qkRopeHeadDim: 64, quantMethod: 'fp8' },
  { name: 'moonshotai/Kimi-K2.7-Code', modelFileSize: '554.32Gi', architectures: ['KimiK25ForConditionalGeneration'], modelTokenLimit: 262144, hiddenSize: 7168, numHiddenLayers: 61, numAttentionHeads: 64, numKeyValueHeads: 64, kvLoraRank: 512, qkRopeHeadDim: 64, quantMethod: 'pack-quantized' },
  { name: 'nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-NVFP4', modelFileSize: '328.13Gi', architectures: ['NemotronHForCausalLM'], modelTokenLimit: 262144, hiddenSize: 8192, numHiddenLayers: 108, numAttentionHeads: 64, numKeyValueHeads: 2, quantMethod: 'MIXED_PRECISION' },
  { name: 'deepseek-ai/DeepSeek-V3.2', modelFileSize: '642.14Gi', architectures: ['DeepseekV32ForCausalLM'], modelTokenLimit: 163840, hiddenSize: 7168, numHiddenLayers: 61, numAttentionHeads: 128, numKeyValueHeads: 128, kvLoraRank: 512, qkRopeHeadDim: 64, quantMethod: 'fp8' },
  { name: 'ibm-granite/granite-4.1-8b', modelFileSize: '16.38Gi', architectures: ['GraniteForCausalLM'], modelTokenLimit: 131072, hiddenSize: 4096, numHiddenLayers: 40, numAttentionHeads: 32, numKeyValueHeads: 8 },
  { name: 'Qwen/Qwen3.8-27B', modelFileSize: '51.75Gi', architectures: ['Qwen3_5ForConditionalGeneration'], modelTokenLimit: 262144, hiddenSize: 5120, numHiddenLayers: 64, numAttentionHeads: 24, numKeyValueHeads: 4, headDim: 256 },
];

const BY_ID: ReadonlyMap<string, CatalogEntry> = new Map(ENTRIES.map((e) => [e.name.toLowerCase(), e]));

/** The catalog entry of a Hugging Face id, in any case (v0.12 lowercases the name first). */
export function catalogEntry(id: string): CatalogEntry | undefined {
  return BY_ID.get(id.toLowerCase());
}

/** Every catalog id, in catalog order. */
export function catalogIds(): string[] {
  return ENTRIES.map((e) => e.name);
}

/**
 * v0.12's `LegacyBuiltinToCatalog`: a short preset name → the catalog id it now resolves to (lowercase,
 * as v0.12 writes them). v0.12 serves these under new served-model-names; kaito-ts keeps v0.8.0's.
 */
export const LEGACY_TO_CATALOG: Readonly<Record<string, string>> = Object.freeze({
  'phi-4': 'microsoft/phi-4',
  'phi-4-mini-instruct': 'microsoft/phi-4-mini-instruct',
  'llama-3.1-8b-instruct': 'meta-llama/llama-3.1-8b-instruct',
  'llama-3.3-70b-instruct': 'meta-llama/llama-3.3-70b-instruct',
  'deepseek-r1-distill-llama-8b': 'deepseek-ai/deepseek-r1-distill-llama-8b',
  'deepseek-r1-distill-qwen-14b': 'deepseek-ai/deepseek-r1-distill-qwen-14b',
  'deepseek-r1-0528': 'deepseek-ai/deepseek-r1-0528',
  'deepseek-v3-0324': 'deepseek-ai/deepseek-v3-0324',
  'phi-3-mini-4k-instruct': 'microsoft/phi-3-mini-4k-instruct',
  'phi-3-mini-128k-instruct': 'microsoft/phi-3-mini-128k-instruct',
  'phi-3-medium-4k-instruct': 'microsoft/phi-3-medium-4k-instruct',
  'phi-3-medium-128k-instruct': 'microsoft/phi-3-medium-128k-instruct',
  'phi-3.5-mini-instruct': 'microsoft/phi-3.5-mini-instruct',
  'qwen2.5-coder-7b-instruct': 'qwen/qwen2.5-coder-7b-instruct',
  'qwen2.5-coder-32b-instruct': 'qwen/qwen2.5-coder-32b-instruct',
  'gpt-oss-20b': 'openai/gpt-oss-20b',
  'gpt-oss-120b': 'openai/gpt-oss-120b',
  'gemma-3-4b-instruct': 'google/gemma-3-4b-it',
  'gemma-3-27b-instruct': 'google/gemma-3-27b-it',
  'mistral-7b': 'mistralai/mistral-7b-v0.3',
  'mistral-7b-instruct': 'mistralai/mistral-7b-instruct-v0.3',
  'ministral-3-3b-instruct': 'mistralai/ministral-3-3b-instruct-2512',
  'ministral-3-8b-instruct': 'mistralai/ministral-3-8b-instruct-2512',
  'ministral-3-14b-instruct': 'mistralai/ministral-3-14b-instruct-2512',
  'mistral-large-3-675b-instruct': 'mistralai/mistral-large-3-675b-instruct-2512',
});

/**
 * Short names v0.12 refuses. `phi-2` is marked deprecated in its metadata; the falcon presets are still
 * listed there but no longer registered or mapped, so v0.12's webhook answers with the unknown-name message.
 * kaito-ts still serves the falcon presets as v0.8.0 did.
 */
export const V012_REFUSED: Readonly<Record<string, 'deprecated' | 'unregistered'>> = Object.freeze({
  'phi-2': 'deprecated',
  'falcon-7b': 'unregistered',
  'falcon-7b-instruct': 'unregistered',
  'falcon-40b': 'unregistered',
  'falcon-40b-instruct': 'unregistered',
});

/** v0.12's test for a Hugging Face id: `a/b` with both parts non-empty (plugin.IsValidPreset). */
export function isHuggingFaceId(name: string): boolean {
  const slash = name.indexOf('/');
  return slash > 0 && slash < name.length - 1;
}
