// What KAITO v0.12.0's preset generator (presets/workspace/generator) derives from a model's Hugging
// Face metadata, as a pure function: the weight size on disk, the disk to reserve, the KV-cache bytes
// per token, the context limit, the architectures, and the vLLM flags it adds by model name or
// architecture. The same function sizes a catalog entry (no request) and a model read from the hub.
// Facts (names, numbers, tables) come from v0.12.0; the code is ours.
import type { CatalogEntry } from './model-catalog.js';
import { isVllmArchitecture } from './vllm-architectures.js';

/** A config.json value as JSON decoding gives it. */
export type ModelConfig = Readonly<Record<string, unknown>>;

/** What a hub lookup keeps of one repository (src/controllers/workspace/hub-metadata.ts reads it). */
export interface HubModelFacts {
  /** Total bytes of the weight files v0.12 counts (safetensors, else .bin; consolidated*.safetensors for Mistral repos). */
  weightBytes: number;
  /** How many weight files make that total (for `render --explain`; absent in older results). */
  weightFiles?: number;
  /** The repository ships Mistral's own format (consolidated*.safetensors). */
  mistralFormat: boolean;
  /** config.json (params.json for Mistral repos without one), with text_config/llm_config merged in, reduced to the keys read here. */
  config: ModelConfig;
}

/** What a pass knows of a model's hub metadata (the operator's cache, or `render`'s one read). */
export type HubModelState =
  { state: 'ready'; facts: HubModelFacts } | { state: 'resolving'; endpoint: string } | { state: 'failed'; reason: string; message: string; retryInMs: number };

export interface GeneratedModel {
  /** The Hugging Face id in lowercase, as v0.12 passes it to `--model`. */
  id: string;
  /** The last part of the id, lowercase: v0.12's model name and served-model-name. */
  name: string;
  source: 'catalog' | 'huggingface';
  /** `27.31Gi`: the catalog's text, or the hub files' total in GiB with two decimals. */
  modelFileSize: string;
  /** Size + 80Gi for the system files, whole GiB (`107Gi`). */
  diskStorageRequirement: string;
  bytesPerToken: number;
  /** MHA, GQA, MQA, MLA or Unknown. */
  attnType: string;
  modelTokenLimit: number;
  architectures: string[];
  quantMethod?: string;
  /** The vLLM flags of the model, in a fixed order (KAITO keeps them in a map: any order). */
  runParams: [flag: string, value: string][];
  /** Startup window: 15 minutes + 18 s per GiB of weights, within [30 min, 180 min]. */
  readinessTimeoutSeconds: number;
}

export type GenerateResult = { ok: true; model: GeneratedModel } | { ok: false; message: string };

const SYSTEM_FILE_DISK_GIB = 80;
const DEFAULT_MODEL_TOKEN_LIMIT = 2048;
const GIB = 2 ** 30;

/** config.json keys tried in order for each value (v0.12's configKeyMap / optionalKeyMap). */
const KEYS = {
  modelTokenLimit: ['max_position_embeddings', 'n_ctx', 'seq_length', 'max_seq_len', 'max_sequence_length', 'model_max_length'],
  hiddenSize: ['hidden_size', 'n_embd', 'd_model', 'dim'],
  numHiddenLayers: ['num_hidden_layers', 'n_layer', 'n_layers'],
  numAttentionHeads: ['num_attention_heads', 'n_head', 'n_heads'],
  numKeyValueHeads: ['num_key_value_heads', 'n_head_kv', 'n_kv_heads'],
  headDim: ['head_dim', 'attention_head_dim'],
  kvLoraRank: ['kv_lora_rank'],
  qkRopeHeadDim: ['qk_rope_head_dim'],
} as const;

/** Every top-level config key the generator reads: all a hub lookup needs to keep. */
export const CONFIG_KEYS: readonly string[] = [...Object.values(KEYS).flat(), 'architectures', 'quantization_config', 'multi_query'];

// The name and architecture tables of v0.12.0's generator.go (vLLM's parser registries as of 0.25).
const REASONING_BY_PREFIX: Record<string, string> = {
  'deepseek-r1': 'deepseek_r1',
  'deepseek-v3': 'deepseek_v3',
  'deepseek-v4': 'deepseek_v4',
  'ernie-4.5': 'ernie45',
  'gemma-4': 'gemma4',
  'glm-4.5': 'glm45',
  'granite-3.2': 'granite',
  holo2: 'holo2',
  'hunyuan-a13b': 'hunyuan_a13b',
  'kimi-k2': 'kimi_k2',
  laguna: 'poolside_v1',
  'minimax-m2': 'minimax_m2_append_think',
  'minimax-m3': 'minimax_m3',
  mimo: 'mimo',
  mistral: 'mistral',
  'olmo-3': 'olmo3',
  qwen3: 'qwen3',
  'qwq-32b': 'deepseek_r1',
  step3: 'step3',
};
const REASONING_BY_ARCH: Record<string, string> = {
  DeepseekV3ForCausalLM: 'deepseek_v3',
  Ernie4_5_VLMoeForConditionalGeneration: 'ernie45',
  Ernie4_5_MoeForCausalLM: 'ernie45',
  Gemma4ForConditionalGeneration: 'gemma4',
  Gemma4UnifiedForConditionalGeneration: 'gemma4',
  Glm4MoeForCausalLM: 'glm45',
  GlmMoeDsaForCausalLM: 'glm45',
  HunYuanMoEV1ForCausalLM: 'hunyuan_a13b',
  GraniteForCausalLM: 'granite',
  KimiK2ForCausalLM: 'kimi_k2',
  KimiK25ForConditionalGeneration: 'kimi_k2',
  MiniMaxM2ForCausalLM: 'minimax_m2_append_think',
  MiniMaxM3SparseForCausalLM: 'minimax_m3',
  MiniMaxM3SparseForConditionalGeneration: 'minimax_m3',
  MiMoForCausalLM: 'mimo',
  HYV3ForCausalLM: 'hy_v3',
  LagunaForCausalLM: 'poolside_v1',
  Mistral3ForConditionalGeneration: 'mistral',
  MistralForCausalLM: 'mistral',
  NemotronForCausalLM: 'nemotron_v3',
  NemotronHForCausalLM: 'nemotron_v3',
  NemotronH_Nano_VL_V2: 'nemotron_v3',
  OlmoForCausalLM: 'olmo3',
  Qwen3ForCausalLM: 'qwen3',
  Qwen3MoeForCausalLM: 'qwen3',
  Qwen3_5ForConditionalGeneration: 'qwen3',
  Qwen3_5MoeForConditionalGeneration: 'qwen3',
  GptOssForCausalLM: 'openai_gptoss',
  Step3TextForCausalLM: 'step3',
  Step3VLForConditionalGeneration: 'step3',
};
/** Models that must not get a reasoning parser (vLLM fails on some). */
const NON_REASONING = new Set([
  'mistral-7b-v0.3',
  'mistral-7b-instruct-v0.3',
  'ministral-3-3b-instruct-2512',
  'ministral-3-8b-instruct-2512',
  'ministral-3-14b-instruct-2512',
  'mistral-large-3-675b-instruct-2512',
]);
const TOOL_CALL_BY_PREFIX: Record<string, string> = {
  'hermes-2': 'hermes',
  'hermes-3': 'hermes',
  mistral: 'mistral',
  'meta-llama-3': 'llama3_json',
  'meta-llama-4': 'llama4_pythonic',
  'granite-3': 'granite',
  'granite-4': 'granite4',
  internlm: 'internlm',
  'ai21-jamba': 'jamba',
  'llama-xlama': 'xlam',
  xlam: 'xlam',
  'qwq-32b': 'hermes',
  'qwen2.5': 'hermes',
  laguna: 'poolside_v1',
  'minimax-m2': 'minimax_m2',
  'minimax-m3': 'minimax_m3',
  mimo: 'mimo',
  lfm2: 'lfm2',
  apertus: 'apertus',
  'deepseek-r1': 'deepseek_v3',
  'deepseek-v3': 'deepseek_v3',
  'deepseek-v3.1': 'deepseek_v31',
  'deepseek-v3.2': 'deepseek_v32',
  'deepseek-v4': 'deepseek_v4',
  kimi_k2: 'kimi_k2',
  'hunyuan-a13b': 'hunyuan_a13b',
  longcat: 'longcat',
  'glm-4': 'glm45',
  'glm-4.7': 'glm47',
  qwen3: 'hermes',
  'qwen3-coder': 'qwen3_xml',
  'qwen3.5': 'qwen3_coder',
  'qwen3.6': 'qwen3_coder',
  'qwen3.8': 'qwen3_coder',
  'olmo-3': 'olmo3',
  gigachat3: 'gigachat3',
  'ernie-4.5': 'ernie45',
  'phi4-mini': 'phi4_mini_json',
  step3p5: 'step3p5',
  step3: 'step3',
  'seed-oss': 'seed_oss',
  'gemma-3': 'functiongemma',
  'gemma-4': 'gemma4',
};
const TOOL_CALL_BY_ARCH: Record<string, string> = {
  MistralForCausalLM: 'mistral',
  MistralLarge3ForCausalLM: 'mistral',
  LlamaForCausalLM: 'llama3_json',
  Llama4ForConditionalGeneration: 'llama4_pythonic',
  GraniteForCausalLM: 'granite',
  GraniteMoeForCausalLM: 'granite',
  GraniteMoeHybridForCausalLM: 'granite4',
  GPTBigCodeForCausalLM: 'granite-20b-fc',
  InternLM2ForCausalLM: 'internlm',
  JambaForCausalLM: 'jamba',
  Qwen2ForCausalLM: 'hermes',
  Qwen3ForCausalLM: 'hermes',
  Qwen3MoeForCausalLM: 'qwen3_xml',
  Qwen3_5ForConditionalGeneration: 'qwen3_coder',
  Qwen3_5MoeForConditionalGeneration: 'qwen3_coder',
  MiniMaxM2ForCausalLM: 'minimax_m2',
  MiniMaxM3SparseForCausalLM: 'minimax_m3',
  MiniMaxM3SparseForConditionalGeneration: 'minimax_m3',
  MiMoForCausalLM: 'mimo',
  HYV3ForCausalLM: 'hy_v3',
  LagunaForCausalLM: 'poolside_v1',
  Lfm2ForCausalLM: 'lfm2',
  Lfm2MoeForCausalLM: 'lfm2',
  ApertusForCausalLM: 'apertus',
  DeepseekV3ForCausalLM: 'deepseek_v3',
  DeepseekV32ForCausalLM: 'deepseek_v32',
  GptOssForCausalLM: 'openai',
  HunYuanMoEV1ForCausalLM: 'hunyuan_a13b',
  LongcatFlashForCausalLM: 'longcat',
  Glm4MoeForCausalLM: 'glm45',
  Glm47MoeForCausalLM: 'glm47',
  GlmMoeDsaForCausalLM: 'glm47',
  Gemma3ForCausalLM: 'functiongemma',
  Gemma4ForConditionalGeneration: 'gemma4',
  Gemma4UnifiedForConditionalGeneration: 'gemma4',
  Olmo3ForCausalLM: 'olmo3',
  SeedOssForCausalLM: 'seed_oss',
  Ernie4_5_VLMoeForConditionalGeneration: 'ernie45',
  Ernie4_5_MoeForCausalLM: 'ernie45',
  Step3TextForCausalLM: 'step3',
  Step3p5TextForCausalLM: 'step3p5',
  NemotronHForCausalLM: 'qwen3_coder',
  NemotronH_Nano_VL_V2: 'qwen3_coder',
  Phi4MiniForCausalLM: 'phi4_mini_json',
  KimiK2ForCausalLM: 'kimi_k2',
  KimiK25ForConditionalGeneration: 'kimi_k2',
  GigaChat3ForCausalLM: 'gigachat3',
};
/** Chat templates shipped in the base image under /workspace/chat_templates/. */
const CHAT_TEMPLATE_BY_PREFIX: Record<string, string> = {
  'deepseek-r1': 'tool-chat-deepseekr1.jinja',
  'deepseek-v3': 'tool-chat-deepseekv3.jinja',
  'gemma-4': 'tool-chat-gemma4.jinja',
  'llama-3': 'tool-chat-llama3.1-json.jinja',
  'phi-4-mini': 'tool-chat-phi4-mini.jinja',
  'qwen2.5': 'tool-chat-hermes.jinja',
};
/** Flags set by model-name prefix: [flag, value, prefixes]. */
const FLAGS_BY_PREFIX: readonly [string, string, readonly string[]][] = [
  ['kv-cache-dtype', 'fp8', ['deepseek-v4', 'glm-5.2-fp8']],
  ['gdn-prefill-backend', 'triton', ['qwen3.5', 'qwen3.6', 'qwen3.8']],
  ['enable-expert-parallel', '', ['minimax-m2']],
  ['kernel-config.enable_flashinfer_autotune', 'False', ['deepseek-v3.2']],
];
const TOKENIZER_MODE_BY_PREFIX: Record<string, string> = { 'deepseek-r1': 'deepseek_v32', 'deepseek-v3': 'deepseek_v32', 'deepseek-v4': 'deepseek_v4' };
const CHAT_TEMPLATE_DIR = '/workspace/chat_templates/';

/** The value of the first prefix `name` starts with (the tables' prefixes never overlap, except as below). */
function byPrefix(table: Record<string, string>, name: string): string | undefined {
  const prefix = Object.keys(table).find((p) => name.startsWith(p));
  return prefix === undefined ? undefined : table[prefix];
}

function byArch(table: Record<string, string>, architectures: readonly string[]): string | undefined {
  for (const arch of architectures) if (Object.hasOwn(table, arch)) return table[arch];
  return undefined;
}

/** The first of `keys` holding a number or a decimal string: Go's getInt skips the others. */
function intKeyOf(config: ModelConfig, keys: readonly string[]): string | undefined {
  return keys.find((key) => {
    if (!Object.hasOwn(config, key)) return false;
    const v = config[key];
    return typeof v === 'number' || (typeof v === 'string' && /^[+-]?\d+$/.test(v));
  });
}

/** Go's getInt: that key's number (truncated) or decimal string; else the default. */
function intOf(config: ModelConfig, keys: readonly string[], fallback: number): number {
  const key = intKeyOf(config, keys);
  if (key === undefined) return fallback;
  const v = config[key];
  return typeof v === 'number' ? Math.trunc(v) : Number(v);
}

function objectOf(v: unknown): ModelConfig | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as ModelConfig) : undefined;
}

/** bytes / GiB with two decimals, rounded half to even as Go's `%.2f` does (exact, no float error). */
export function formatGiB(bytes: number): string {
  const n = BigInt(Math.max(0, Math.trunc(bytes))) * 100n;
  const d = BigInt(GIB);
  let q = n / d;
  const r2 = (n % d) * 2n;
  if (r2 > d || (r2 === d && q % 2n === 1n)) q += 1n;
  return `${q / 100n}.${String(q % 100n).padStart(2, '0')}Gi`;
}

/** The KV cache per token (fp16) and the attention kind (calculateKVCacheTokenSize). */
function kvCacheTokenSize(config: ModelConfig): { bytesPerToken: number; attnType: string } {
  const hidden = intOf(config, KEYS.hiddenSize, 0);
  const layers = intOf(config, KEYS.numHiddenLayers, 0);
  const heads = intOf(config, KEYS.numAttentionHeads, 0);
  let kvHeads = intOf(config, KEYS.numKeyValueHeads, 0);
  let headDim = intOf(config, KEYS.headDim, 0);
  if (headDim === 0 && heads > 0) headDim = Math.trunc(hidden / heads);
  const kvLoraRank = intOf(config, KEYS.kvLoraRank, -1);
  const qkRope = intOf(config, KEYS.qkRopeHeadDim, 0);
  if (kvHeads === 0 && heads > 0) kvHeads = config['multi_query'] === true ? 1 : heads;
  let attnType = 'Unknown';
  let perLayer = 0;
  if (kvLoraRank !== -1) {
    attnType = 'MLA';
    perLayer = kvLoraRank + qkRope;
  } else if (heads > 0 && kvHeads > 0 && headDim > 0) {
    perLayer = 2 * kvHeads * headDim;
    attnType = heads === kvHeads ? 'MHA' : kvHeads === 1 ? 'MQA' : 'GQA';
  }
  return { bytesPerToken: perLayer * layers * 2, attnType };
}

/**
 * The config.json values the sizing read, by the key each was found under (the first present of its
 * aliases), in the order the generator reads them: what `render --explain` shows for a hub model.
 */
export function sizingInputs(config: ModelConfig): [key: string, value: number][] {
  const out: [string, number][] = [];
  for (const keys of Object.values(KEYS)) {
    const key = intKeyOf(config, keys);
    if (key !== undefined) out.push([key, intOf(config, [key], 0)]);
  }
  return out;
}

/** The config map v0.12 builds from a catalog entry (loadFromCatalog), so both paths size alike. */
function configOfEntry(e: CatalogEntry): ModelConfig {
  return {
    hidden_size: e.hiddenSize,
    num_hidden_layers: e.numHiddenLayers,
    num_attention_heads: e.numAttentionHeads,
    num_key_value_heads: e.numKeyValueHeads,
    max_position_embeddings: e.modelTokenLimit,
    ...(e.headDim ? { head_dim: e.headDim } : {}),
    ...(e.kvLoraRank ? { kv_lora_rank: e.kvLoraRank } : {}),
    ...(e.qkRopeHeadDim ? { qk_rope_head_dim: e.qkRopeHeadDim } : {}),
    ...(e.quantMethod ? { quantization_config: { quant_method: e.quantMethod, bits: e.quantBits ?? 0 } } : {}),
    architectures: [...e.architectures],
  };
}

/** Startup window (readinessTimeoutForModelSize): seconds, fractional as Go's Duration maths leaves them. */
function readinessTimeoutSeconds(modelFileSize: string): number {
  const bytes = quantityBytes(modelFileSize);
  if (bytes === undefined) return 30 * 60;
  const seconds = 15 * 60 + Math.trunc((bytes / GIB) * 18e9) / 1e9;
  return Math.min(180 * 60, Math.max(30 * 60, seconds));
}

/** `12.5Gi`-style sizes as the catalog and the hub lookup write them (binary suffixes only); rounded up to a byte. */
function quantityBytes(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti)$/.exec(text);
  if (!m) return undefined;
  const scale = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 }[m[2] as 'Ki'];
  return Math.ceil(Number(m[1]) * scale);
}

interface Formats {
  loadFormat: string;
  configFormat: string;
  tokenizerMode: string;
}

/** ParseModelMetadata + FinalizeParams + GetInferenceParameters' defaults, for a model known by its config. */
function generate(id: string, source: GeneratedModel['source'], modelFileSize: string, config: ModelConfig, formats: Formats): GenerateResult {
  const lowerId = id.toLowerCase();
  const name = lowerId.slice(lowerId.lastIndexOf('/') + 1);
  const archList = Array.isArray(config['architectures']) ? config['architectures'] : [];
  let architectures = archList.filter((a): a is string => typeof a === 'string');
  if (architectures.length === 0) {
    if (name.startsWith('mistral-large-3')) architectures = ['MistralLarge3ForCausalLM'];
    else if (name.startsWith('ministral-3')) architectures = ['Mistral3ForConditionalGeneration'];
  }
  // No architecture: v0.12 assumes vLLM runs it.
  if (architectures.length > 0 && !architectures.some(isVllmArchitecture)) {
    return { ok: false, message: `unsupported model architecture for ${lowerId}: ${architectures.join(', ')}` };
  }
  const reasoning = NON_REASONING.has(name) ? undefined : (byPrefix(REASONING_BY_PREFIX, name) ?? byArch(REASONING_BY_ARCH, architectures));
  // Longer, more specific prefixes first: v0.12 sorts them in reverse order.
  const toolPrefix = Object.keys(TOOL_CALL_BY_PREFIX)
    .sort()
    .reverse()
    .find((p) => name.startsWith(p));
  const toolCall = toolPrefix !== undefined ? TOOL_CALL_BY_PREFIX[toolPrefix] : byArch(TOOL_CALL_BY_ARCH, architectures);
  const chatTemplate = byPrefix(CHAT_TEMPLATE_BY_PREFIX, name);
  const quant = objectOf(config['quantization_config']);
  const quantMethod = typeof quant?.['quant_method'] === 'string' ? quant['quant_method'] : undefined;

  const sizeGiB = modelFileSize.endsWith('Gi') ? Number.parseFloat(modelFileSize.slice(0, -2)) : NaN;
  const disk = `${Math.trunc((Number.isFinite(sizeGiB) ? sizeGiB : 0) + SYSTEM_FILE_DISK_GIB)}Gi`;
  const runParams: [string, string][] = [
    ['load_format', formats.loadFormat],
    ['config_format', formats.configFormat],
    ['tokenizer_mode', byPrefix(TOKENIZER_MODE_BY_PREFIX, name) ?? formats.tokenizerMode],
  ];
  for (const [flag, value, prefixes] of FLAGS_BY_PREFIX) if (prefixes.some((p) => name.startsWith(p))) runParams.push([flag, value]);
  runParams.push(['trust-remote-code', ''], ['dtype', quantMethod ? 'auto' : 'bfloat16']);
  if (toolCall) runParams.push(['tool-call-parser', toolCall], ['enable-auto-tool-choice', '']);
  if (chatTemplate) runParams.push(['chat-template', CHAT_TEMPLATE_DIR + chatTemplate]);
  if (reasoning) runParams.push(['reasoning-parser', reasoning]);
  return {
    ok: true,
    model: {
      id: lowerId,
      name,
      source,
      modelFileSize,
      diskStorageRequirement: disk,
      ...kvCacheTokenSize(config),
      modelTokenLimit: intOf(config, KEYS.modelTokenLimit, DEFAULT_MODEL_TOKEN_LIMIT),
      architectures,
      ...(quantMethod ? { quantMethod } : {}),
      runParams,
      readinessTimeoutSeconds: readinessTimeoutSeconds(modelFileSize),
    },
  };
}

/** A catalog entry, sized with no request (v0.12's loadFromCatalog path). */
export function modelFromCatalog(entry: CatalogEntry): GenerateResult {
  const load = entry.loadFormat;
  return generate(entry.name, 'catalog', entry.modelFileSize, configOfEntry(entry), {
    loadFormat: load || 'auto',
    configFormat: entry.configFormat || load || 'auto',
    tokenizerMode: entry.tokenizerMode || load || 'auto',
  });
}

/** A model read from the hub (v0.12's FetchModelMetadata path). */
export function modelFromHub(id: string, facts: HubModelFacts): GenerateResult {
  const format = facts.mistralFormat ? 'mistral' : 'auto';
  return generate(id, 'huggingface', formatGiB(facts.weightBytes), facts.config, { loadFormat: format, configFormat: format, tokenizerMode: format });
}

/** Architectures that need vLLM's hybrid KV cache manager, which LMCache's CPU offload cannot serve. */
const HYBRID_KV_CACHE = new Set([
  'NemotronHForCausalLM',
  'NemotronH_Nano_VL_V2',
  'NemotronHMTPModel',
  'NemotronHPuzzleForCausalLM',
  'Gemma4ForCausalLM',
  'Gemma4ForConditionalGeneration',
  'Gemma4UnifiedForConditionalGeneration',
  'Qwen3_5ForConditionalGeneration',
  'Qwen3_5MoeForConditionalGeneration',
  'DeepseekV4ForCausalLM',
  'DeepseekV32ForCausalLM',
]);
/** Architectures whose FP8 GEMMs need DeepGEMM (VLLM_USE_DEEP_GEMM=1 and a CUDA toolkit). */
const NEEDS_DEEP_GEMM = new Set(['DeepseekV4ForCausalLM', 'DeepseekV32ForCausalLM', 'GlmMoeDsaForCausalLM']);

/** v0.12 turns LMCache's KV-cache CPU offload off: hybrid KV cache models, and gpt-oss (an LMCache crash). */
export function kvOffloadDisabled(model: Pick<GeneratedModel, 'architectures'>): boolean {
  return model.architectures.some((a) => HYBRID_KV_CACHE.has(a) || a === 'GptOssForCausalLM');
}

export function needsDeepGemm(model: Pick<GeneratedModel, 'architectures'>): boolean {
  return model.architectures.some((a) => NEEDS_DEEP_GEMM.has(a));
}

/** Models v0.12 names as compiling FlashInfer kernels with nvcc at run time (by model name, not architecture). */
const NEEDS_FLASHINFER_JIT = new Set(['mistral-small-4-119b-2603']);

/** DeepGEMM or FlashInfer JIT: the model needs a CUDA toolkit in the pod (src/builders/cuda-toolkit.ts). */
export function needsCudaToolkit(model: Pick<GeneratedModel, 'architectures' | 'name'>): boolean {
  return needsDeepGemm(model) || NEEDS_FLASHINFER_JIT.has(model.name);
}

const SAFETENSORS = /.*\.safetensors/;
const BIN = /.*\.bin/;
const MISTRAL = /consolidated.*\.safetensors/;

/**
 * The weight files v0.12 counts (selectWeightFiles): Mistral's consolidated files when there are any,
 * else the safetensors, else the .bin files (its patterns are unanchored: `x.safetensors.index.json` counts).
 */
export function weightFilesOf(files: readonly { path: string; size: number }[]): { bytes: number; count: number; mistralFormat: boolean } {
  const mistral = files.filter((f) => MISTRAL.test(f.path));
  const safetensors = files.filter((f) => SAFETENSORS.test(f.path));
  const bins = files.filter((f) => !SAFETENSORS.test(f.path) && BIN.test(f.path));
  const chosen = mistral.length > 0 ? mistral : safetensors.length > 0 ? safetensors : bins;
  return { bytes: chosen.reduce((sum, f) => sum + f.size, 0), count: chosen.length, mistralFormat: mistral.length > 0 };
}

/**
 * config.json as v0.12 reads it: Python's non-standard literals (NaN, Infinity) become null
 * (sanitizeJSON), then text_config or llm_config fill in keys the top level lacks (mergeTextConfig).
 * Undefined when the text is not a JSON object. Only the keys the generator reads are kept.
 */
export function parseModelConfig(text: string): ModelConfig | undefined {
  const sanitized = text.replace(/((?:^|[,[:\s])\s*)(?:-?Infinity|NaN)/g, '$1null');
  let parsed: unknown;
  try {
    parsed = JSON.parse(sanitized);
  } catch {
    return undefined;
  }
  const top = objectOf(parsed);
  if (!top) return undefined;
  const nested = objectOf(top['text_config']) ?? objectOf(top['llm_config']);
  const merged: Record<string, unknown> = { ...(nested ?? {}), ...top };
  return Object.fromEntries(CONFIG_KEYS.filter((k) => Object.hasOwn(merged, k)).map((k) => [k, merged[k]]));
}
