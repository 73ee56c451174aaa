// The preset model catalog: the 29 presets KAITO registers (spec §8.2, §8.3), plus the deprecated phi-2 metadata.
// Rows hold only what differs between presets; runtime parameters come from a shared profile per row.
import type { GeneratedModel } from './model-generator.js';
import type { Preset } from './types.js';
import { compareText } from '../runtime/order.js';

export const DEFAULT_PRESET_REGISTRY = 'mcr.microsoft.com/aks/kaito';
export const PRESET_REGISTRY_ENV = 'PRESET_REGISTRY_NAME';

/** The runtime image every preset runs in: `<registry>/kaito-base:0.1.1` (0.1.1 bumps Ray to 2.52.1). */
export const BASE_IMAGE = Object.freeze({ name: 'base', tag: '0.1.1' });
/** KAITO v0.12.0's base image (vLLM 0.25.1): models named by Hugging Face id run in it. */
export const BASE_IMAGE_V012 = Object.freeze({ name: 'base', tag: '0.5.0' });

const DEFAULT_VLLM_BASE = 'python3 /workspace/vllm/inference_api.py';
const RAY_LEADER_BASE = '/workspace/vllm/multi-node-serving.sh leader';
const RAY_WORKER_BASE = '/workspace/vllm/multi-node-serving.sh worker';
const TRANSFORMERS_BASE = 'accelerate launch';
const TRANSFORMERS_MAIN = '/workspace/tfs/inference_api.py';
const ACCELERATE_PARAMS = 'num_processes=1 num_machines=1 machine_rank=0 gpu_ids=all';
const READINESS_DEFAULT_SECONDS = 30 * 60;

/** `"a=1 b"` → `{ a: '1', b: '' }` (a bare word is a bare flag); keeps the written order. */
function flags(spec: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const word of spec.split(' ').filter(Boolean)) {
    const eq = word.indexOf('=');
    if (eq < 0) out[word] = '';
    else out[word.slice(0, eq)] = word.slice(eq + 1);
  }
  return out;
}

interface RuntimeProfile {
  family: string;
  transformers: string;
  vllm: string;
  vllmBase?: string;
}

const TF_BF16 = 'torch_dtype=bfloat16 pipeline=text-generation';
const TF_AUTO_REMOTE = 'torch_dtype=auto pipeline=text-generation allow_remote_files';
const TF_PHI = 'torch_dtype=auto pipeline=text-generation trust_remote_code';
const TF_MISTRAL = `${TF_BF16} chat_template=/workspace/chat_templates/mistral-instruct.jinja`;
const VLLM_DEEPSEEK_DISTILL = 'dtype=float16 reasoning-parser=deepseek_r1';
const VLLM_TOOLS = 'enable-auto-tool-choice';

/** vLLM / transformers model-run params per group of presets (spec §8.3). */
const PROFILES = {
  'deepseek-distill': { family: 'deepseek', transformers: TF_BF16, vllm: VLLM_DEEPSEEK_DISTILL },
  'deepseek-r1': {
    family: 'deepseek',
    transformers: `${TF_BF16} allow_remote_files`,
    vllm: `reasoning-parser=deepseek_r1 chat-template=/workspace/chat_templates/tool-chat-deepseekr1.jinja tool-call-parser=deepseek_v3 ${VLLM_TOOLS}`,
  },
  'deepseek-v3': {
    family: 'deepseek',
    transformers: `${TF_BF16} allow_remote_files`,
    vllm: `chat-template=/workspace/chat_templates/tool-chat-deepseekv3.jinja tool-call-parser=deepseek_v3 ${VLLM_TOOLS}`,
  },
  falcon: {
    family: 'falcon',
    transformers: `${TF_BF16} chat_template=/workspace/chat_templates/falcon-instruct.jinja`,
    vllm: 'dtype=float16 chat-template=/workspace/chat_templates/falcon-instruct.jinja',
  },
  gemma3: { family: 'gemma3', transformers: TF_AUTO_REMOTE, vllm: 'dtype=bfloat16' },
  gpt: { family: 'gpt', transformers: TF_AUTO_REMOTE, vllm: '' },
  llama3: {
    family: 'llama3',
    transformers: `${TF_BF16} chat_template=/workspace/chat_templates/llama-3-instruct.jinja allow_remote_files`,
    vllm: `dtype=float16 chat-template=/workspace/chat_templates/tool-chat-llama3.1-json.jinja tool-call-parser=llama3_json ${VLLM_TOOLS}`,
    vllmBase: `VLLM_ATTENTION_BACKEND=TRITON_ATTN ${DEFAULT_VLLM_BASE}`,
  },
  mistral: { family: 'mistral', transformers: TF_MISTRAL, vllm: `dtype=float16 tool-call-parser=mistral ${VLLM_TOOLS}` },
  ministral: {
    family: 'mistral',
    transformers: TF_MISTRAL,
    vllm: `dtype=float16 tool-call-parser=mistral tokenizer_mode=mistral config_format=mistral load_format=mistral ${VLLM_TOOLS}`,
  },
  phi3: { family: 'phi3', transformers: TF_PHI, vllm: 'dtype=float16' },
  phi4: { family: 'phi4', transformers: TF_PHI, vllm: 'dtype=float16' },
  'phi4-mini': {
    family: 'phi4',
    transformers: TF_PHI,
    vllm: `dtype=float16 chat-template=/workspace/chat_templates/tool-chat-phi4-mini.jinja tool-call-parser=phi4_mini_json ${VLLM_TOOLS}`,
  },
  qwen: {
    family: 'qwen',
    transformers: TF_BF16,
    vllm: `dtype=float16 chat-template=/workspace/chat_templates/tool-chat-hermes.jinja tool-call-parser=hermes ${VLLM_TOOLS}`,
  },
} satisfies Record<string, RuntimeProfile>;

type ProfileName = keyof typeof PROFILES;
/** oci: OCI artifact pulled by an init container; hf: Hugging Face download at runtime; hf+auth: also needs HF_TOKEN. */
type Weights = 'oci' | 'hf' | 'hf+auth';
/**
 * Space-separated traits: `distributed` (multi-node vLLM), `tuning`, `noTP` (tensor parallelism disabled),
 * `noLoRA` (vLLM disallows LoRA), `gpus2` (GPUCountRequirement 2), `45m` / `60m` (readiness timeout).
 */
type Row = readonly [
  name: string,
  profile: ProfileName,
  hf: string,
  weights: Weights,
  tag: string,
  size: string,
  disk: string,
  bytesPerToken: number,
  tokenLimit: number,
  traits: string,
];

const ROWS: readonly Row[] = [
  [
    'deepseek-r1-distill-llama-8b',
    'deepseek-distill',
    'deepseek-ai/DeepSeek-R1-Distill-Llama-8B@6a6f4aa4197940add57724a7707d069478df56b1',
    'oci',
    '0.2.0',
    '14.96Gi',
    '90Gi',
    131072,
    131072,
    '',
  ],
  [
    'deepseek-r1-distill-qwen-14b',
    'deepseek-distill',
    'deepseek-ai/DeepSeek-R1-Distill-Qwen-14B@1df8507178afcc1bef68cd8c393f61a886323761',
    'oci',
    '0.2.0',
    '27.51Gi',
    '120Gi',
    196608,
    131072,
    '',
  ],
  [
    'deepseek-r1-0528',
    'deepseek-r1',
    'deepseek-ai/DeepSeek-R1-0528@4236a6af538feda4548eca9ab308586007567f52',
    'hf',
    '0.0.1',
    '641.3Gi',
    '800Gi',
    70272,
    163840,
    'distributed',
  ],
  [
    'deepseek-v3-0324',
    'deepseek-v3',
    'deepseek-ai/DeepSeek-V3-0324@e9b33add76883f293d6bf61f6bd89b497e80e335',
    'hf',
    '0.0.1',
    '641.3Gi',
    '800Gi',
    70272,
    163840,
    'distributed',
  ],
  ['falcon-7b', 'falcon', 'tiiuae/falcon-7b@898df1396f35e447d5fe44e0a3ccaaaa69f30d36', 'oci', '0.2.0', '13.44Gi', '90Gi', 8192, 2048, 'noTP noLoRA tuning'],
  [
    'falcon-7b-instruct',
    'falcon',
    'tiiuae/falcon-7b-instruct@cf4b3c42ce2fdfe24f753f0f0d179202fea59c99',
    'oci',
    '0.2.0',
    '13.44Gi',
    '90Gi',
    8192,
    2048,
    'noTP noLoRA',
  ],
  ['falcon-40b', 'falcon', 'tiiuae/falcon-40b@4a70170c215b36a3cce4b4253f6d0612bb7d4146', 'oci', '0.2.0', '77.9Gi', '280Gi', 8192, 2048, 'gpus2 tuning'],
  [
    'falcon-40b-instruct',
    'falcon',
    'tiiuae/falcon-40b-instruct@ecb78d97ac356d098e79f0db222c9ce7c5d9ee5f',
    'oci',
    '0.2.0',
    '77.9Gi',
    '280Gi',
    1966080,
    2048,
    'gpus2',
  ],
  ['gemma-3-4b-instruct', 'gemma3', 'google/gemma-3-4b-it@093f9f388b31de276ce2de164bdc2081324b9767', 'hf', '0.0.1', '8.6Gi', '60Gi', 348160, 131072, ''],
  ['gemma-3-27b-instruct', 'gemma3', 'google/gemma-3-27b-it@005ad3404e59d6023443cb575daa05336842228a', 'hf', '0.0.1', '54.8Gi', '200Gi', 666624, 131072, '45m'],
  ['gpt-oss-20b', 'gpt', 'openai/gpt-oss-20b@db6852caddef0cf0c1f729034ed700c84eab376e', 'oci', '0.0.2', '12.9Gi', '110Gi', 34560, 131072, ''],
  ['gpt-oss-120b', 'gpt', 'openai/gpt-oss-120b@b5c939de8f754692c1647ca79fbf85e8c1e70f8a', 'hf', '0.0.1', '60.77Gi', '250Gi', 51840, 131072, '45m'],
  [
    'llama-3.1-8b-instruct',
    'llama3',
    'meta-llama/Llama-3.1-8B-Instruct@0e9e39f249a16976918f6564b8830bc894c89659',
    'hf+auth',
    '0.2.0',
    '14.96Gi',
    '110Gi',
    131072,
    131072,
    'distributed',
  ],
  [
    'llama-3.3-70b-instruct',
    'llama3',
    'meta-llama/Llama-3.3-70B-Instruct@6f6073b423013f6a7d4d9f39144961bfbfbc386b',
    'hf+auth',
    '0.0.1',
    '131.42Gi',
    '220Gi',
    327680,
    131072,
    'distributed',
  ],
  ['mistral-7b', 'mistral', 'mistralai/Mistral-7B-v0.3@d8cadc02ac76bd617a919d50b092e59d2d110aff', 'oci', '0.2.0', '13.49Gi', '90Gi', 131072, 32768, 'tuning'],
  [
    'mistral-7b-instruct',
    'mistral',
    'mistralai/Mistral-7B-Instruct-v0.3@e0bc86c23ce5aae1db576c8cca6f06f1f73af2db',
    'oci',
    '0.2.0',
    '13.49Gi',
    '90Gi',
    131072,
    32768,
    '',
  ],
  [
    'ministral-3-3b-instruct',
    'ministral',
    'mistralai/Ministral-3-3B-Instruct-2512@83e15808ff6a115f18ff8e68123db3ab35035714',
    'hf',
    '0.0.1',
    '8.70Gi',
    '70Gi',
    106496,
    262144,
    '',
  ],
  [
    'ministral-3-8b-instruct',
    'ministral',
    'mistralai/Ministral-3-8B-Instruct-2512@df904c183734f8760042c708d3629a4ed68b103a',
    'hf',
    '0.0.1',
    '19.41Gi',
    '100Gi',
    139264,
    262144,
    '',
  ],
  [
    'ministral-3-14b-instruct',
    'ministral',
    'mistralai/Ministral-3-14B-Instruct-2512@6aa4534f7bb46d16753bd12a08b32810a06b7a14',
    'hf',
    '0.0.1',
    '29.29Gi',
    '100Gi',
    163840,
    262144,
    '',
  ],
  [
    'mistral-large-3-675b-instruct',
    'ministral',
    'mistralai/Mistral-Large-3-675B-Instruct-2512@7f13ed24ab52a2a1c35bb26a749ef9d891ee98dd',
    'hf',
    '0.0.1',
    '634.70Gi',
    '800Gi',
    70272,
    262144,
    'distributed 60m',
  ],
  [
    'phi-3-mini-4k-instruct',
    'phi3',
    'microsoft/Phi-3-mini-4k-instruct@0a67737cc96d2554230f90338b163bc6380a2a85',
    'oci',
    '0.2.0',
    '7.12Gi',
    '80Gi',
    393216,
    4096,
    'tuning',
  ],
  [
    'phi-3-mini-128k-instruct',
    'phi3',
    'microsoft/Phi-3-mini-128k-instruct@072cb7562cb8c4adf682a8e186aaafa49469eb5d',
    'oci',
    '0.2.0',
    '7.12Gi',
    '80Gi',
    393216,
    131072,
    'tuning',
  ],
  [
    'phi-3-medium-4k-instruct',
    'phi3',
    'microsoft/Phi-3-medium-4k-instruct@b64223aaea6fbf273c0c8cd0801d5e732dce8897',
    'oci',
    '0.2.0',
    '26Gi',
    '120Gi',
    204800,
    4096,
    'tuning',
  ],
  [
    'phi-3-medium-128k-instruct',
    'phi3',
    'microsoft/Phi-3-medium-128k-instruct@fa7d2aa4f5ea69b2e36b20d050cdae79c9bfbb3f',
    'oci',
    '0.2.0',
    '26Gi',
    '120Gi',
    204800,
    131072,
    'tuning',
  ],
  [
    'phi-3.5-mini-instruct',
    'phi3',
    'microsoft/Phi-3.5-mini-instruct@3145e03a9fd4cdd7cd953c34d9bbf7ad606122ca',
    'oci',
    '0.2.0',
    '7.12Gi',
    '70Gi',
    393216,
    131072,
    'tuning',
  ],
  ['phi-4', 'phi4', 'microsoft/phi-4@187ef0342fff0eb3333be9f00389385e95ef0b61', 'oci', '0.2.0', '27.31Gi', '150Gi', 204800, 16384, 'tuning'],
  [
    'phi-4-mini-instruct',
    'phi4-mini',
    'microsoft/Phi-4-mini-instruct@c0fb9e74abda11b496b7907a9c6c9009a7a0488f',
    'oci',
    '0.2.0',
    '7.15Gi',
    '70Gi',
    131072,
    131072,
    'tuning',
  ],
  [
    'qwen2.5-coder-7b-instruct',
    'qwen',
    'Qwen/Qwen2.5-Coder-7B-Instruct@c03e6d358207e414f1eca0bb1891e29f1db0e242',
    'oci',
    '0.2.0',
    '14.19Gi',
    '110Gi',
    57344,
    32768,
    'tuning',
  ],
  [
    'qwen2.5-coder-32b-instruct',
    'qwen',
    'Qwen/Qwen2.5-Coder-32B-Instruct@381fc969f78efac66bc87ff7ddeadb7e73c218a7',
    'oci',
    '0.2.0',
    '61.03Gi',
    '230Gi',
    262144,
    32768,
    'tuning',
  ],
];

function toPreset([name, profileName, hf, weights, tag, size, disk, bytesPerToken, tokenLimit, traitList]: Row): Preset {
  const profile: RuntimeProfile = PROFILES[profileName];
  const traits = new Set(traitList.split(' '));
  const [hfRepo = '', hfRevision = ''] = hf.split('@');
  const distributed = traits.has('distributed');
  return {
    name,
    family: profile.family,
    hfRepo,
    hfRevision,
    downloadAtRuntime: weights !== 'oci',
    downloadAuthRequired: weights === 'hf+auth',
    tag,
    gpuCountRequirement: traits.has('gpus2') ? 2 : 1,
    totalSafeTensorFileSize: size,
    diskStorageRequirement: disk,
    bytesPerToken,
    modelTokenLimit: tokenLimit,
    supportDistributedInference: distributed,
    disableTensorParallelism: traits.has('noTP'),
    supportTuning: traits.has('tuning'),
    readinessTimeoutSeconds: traits.has('60m') ? 3600 : traits.has('45m') ? 2700 : READINESS_DEFAULT_SECONDS,
    vllm: {
      baseCommand: profile.vllmBase ?? DEFAULT_VLLM_BASE,
      // KAITO serves deepseek-v3-0324 as `deepseek-r1-0528` (copy-paste bug, W30); kaito-ts uses the preset name.
      servedModelName: name,
      modelRunParams: flags(profile.vllm),
      ...(distributed ? { rayLeaderBaseCommand: RAY_LEADER_BASE, rayWorkerBaseCommand: RAY_WORKER_BASE } : {}),
      disallowLoRA: traits.has('noLoRA'),
    },
    transformers: {
      baseCommand: TRANSFORMERS_BASE,
      accelerateParams: flags(ACCELERATE_PARAMS),
      inferenceMainFile: TRANSFORMERS_MAIN,
      modelRunParams: flags(profile.transformers),
    },
  };
}

const PRESETS: ReadonlyMap<string, Preset> = new Map(ROWS.map((row) => [row[0], toPreset(row)]));

// KAITO v0.12.0's transformers table (TransformerInferenceParameters): the model-run params per model
// name, the lowercase last part of a Hugging Face id. The same params as the presets' profiles, but for
// Mistral, which v0.12 lets load remote files too.
const TF_V012_MISTRAL = `${TF_MISTRAL} allow_remote_files`;
const TF_V012_LLAMA = PROFILES.llama3.transformers;
const TF_V012_DEEPSEEK_LARGE = PROFILES['deepseek-r1'].transformers;
const TRANSFORMERS_V012: Readonly<Record<string, string>> = Object.freeze({
  'phi-4': TF_PHI,
  'phi-3-mini-4k-instruct': TF_PHI,
  'phi-3-mini-128k-instruct': TF_PHI,
  'phi-3-medium-4k-instruct': TF_PHI,
  'phi-3-medium-128k-instruct': TF_PHI,
  'phi-3.5-mini-instruct': TF_PHI,
  'mistral-7b-v0.3': TF_V012_MISTRAL,
  'mistral-7b-instruct-v0.3': TF_V012_MISTRAL,
  // The catalog's id ends in -2512, so only a hub id named exactly this reaches the row.
  'mistral-large-3-675b-instruct': TF_V012_MISTRAL,
  'gemma-3-4b-it': TF_AUTO_REMOTE,
  'gemma-3-27b-it': TF_AUTO_REMOTE,
  'qwen2.5-coder-7b-instruct': TF_BF16,
  'qwen2.5-coder-32b-instruct': TF_BF16,
  'llama-3.1-8b-instruct': TF_V012_LLAMA,
  'llama-3.3-70b-instruct': TF_V012_LLAMA,
  'gpt-oss-20b': TF_AUTO_REMOTE,
  'gpt-oss-120b': TF_AUTO_REMOTE,
  'deepseek-r1-distill-llama-8b': TF_BF16,
  'deepseek-r1-distill-qwen-14b': TF_BF16,
  'deepseek-r1-0528': TF_V012_DEEPSEEK_LARGE,
  'deepseek-v3-0324': TF_V012_DEEPSEEK_LARGE,
});

const NO_TRANSFORMERS: Preset['transformers'] = Object.freeze({ baseCommand: '', accelerateParams: {}, inferenceMainFile: '', modelRunParams: {} });

/**
 * The transformers parameters v0.12 gives a model named by Hugging Face id: a row of its table, looked
 * up by the model name (so any id whose last part matches, catalog or hub), else none (the runtime is refused).
 */
export function transformersParamsV012(modelName: string): Preset['transformers'] {
  const run = Object.hasOwn(TRANSFORMERS_V012, modelName) ? TRANSFORMERS_V012[modelName] : undefined;
  if (run === undefined) return structuredClone(NO_TRANSFORMERS);
  return { baseCommand: TRANSFORMERS_BASE, accelerateParams: flags(ACCELERATE_PARAMS), inferenceMainFile: TRANSFORMERS_MAIN, modelRunParams: flags(run) };
}

/** Model names v0.12's transformers table holds, in its order. */
export function transformersModelNamesV012(): string[] {
  return Object.keys(TRANSFORMERS_V012);
}

/**
 * A model named by Hugging Face id as a preset the builders take: weights downloaded at start-up (no
 * commit pin, as v0.12), distributed-capable, no tuning, and the transformers parameters of v0.12's
 * table when the model's name is in it (its former built-in presets).
 */
export function presetFromModel(model: GeneratedModel): Preset {
  return {
    name: model.name,
    family: model.source,
    hfRepo: model.id,
    hfRevision: '',
    downloadAtRuntime: true,
    downloadAuthRequired: false,
    tag: '',
    gpuCountRequirement: 1,
    totalSafeTensorFileSize: model.modelFileSize,
    diskStorageRequirement: model.diskStorageRequirement,
    bytesPerToken: model.bytesPerToken,
    modelTokenLimit: model.modelTokenLimit,
    supportDistributedInference: true,
    disableTensorParallelism: false,
    supportTuning: false,
    readinessTimeoutSeconds: model.readinessTimeoutSeconds,
    vllm: {
      baseCommand: DEFAULT_VLLM_BASE,
      servedModelName: model.name,
      modelRunParams: Object.fromEntries(model.runParams),
      rayLeaderBaseCommand: RAY_LEADER_BASE,
      rayWorkerBaseCommand: RAY_WORKER_BASE,
      disallowLoRA: false,
    },
    transformers: transformersParamsV012(model.name),
    generated: structuredClone(model),
  };
}

/** Metadata of presets KAITO still lists but no longer registers; the webhook rejects them as deprecated. */
export const DEPRECATED_PRESETS: Readonly<Record<string, { hfRepo: string; hfRevision: string; tag: string }>> = Object.freeze({
  'phi-2': { hfRepo: 'microsoft/phi-2', hfRevision: 'ef382358ec9e382308935a992d908de099b64c23', tag: '0.2.0' },
});

/** A fresh deep copy (callers add flags to the param maps; the catalog must never change). */
export function getPreset(name: string): Preset | undefined {
  const preset = PRESETS.get(name);
  return preset ? structuredClone(preset) : undefined;
}

/** Registered preset names in catalog order. */
export function presetNames(): string[] {
  return [...PRESETS.keys()];
}

export function isDeprecatedPreset(name: string): boolean {
  return Object.hasOwn(DEPRECATED_PRESETS, name);
}

/** Levenshtein distance (case-insensitive), for "did you mean" hints. */
export function editDistance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const current = [i];
    for (let j = 1; j <= y.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (x[i - 1] === y[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[y.length] ?? 0;
}

/**
 * The `n` registered names nearest to `name`, for unknown-preset errors: names that start with what was
 * typed come first (people drop `-instruct`), then by edit distance, ties by name.
 */
export function closestPresetNames(name: string, n = 3, candidates: readonly string[] = presetNames()): string[] {
  const typed = name.toLowerCase();
  return candidates
    .map((candidate) => ({
      candidate,
      prefix: typed !== '' && candidate.startsWith(typed) ? 0 : 1,
      distance: editDistance(name, candidate),
    }))
    .sort((p, q) => p.prefix - q.prefix || p.distance - q.distance || compareText(p.candidate, q.candidate))
    .slice(0, Math.max(0, n))
    .map((p) => p.candidate);
}

/** Registry for the base image and weight artifacts: `PRESET_REGISTRY_NAME`, else `mcr.microsoft.com/aks/kaito`. */
export function presetRegistry(env: NodeJS.ProcessEnv = process.env): string {
  return env[PRESET_REGISTRY_ENV]?.trim() || DEFAULT_PRESET_REGISTRY;
}

/** KAITO's image naming `%s/kaito-%s:%s`. */
function kaitoImage(registry: string, name: string, tag: string): string {
  return `${registry}/kaito-${name}:${tag}`;
}

/** `<registry>/kaito-base:0.1.1`; `<registry>/kaito-base:0.5.0` for a model named by Hugging Face id (KAITO v0.12). */
export function baseImage(registry: string, preset?: Pick<Preset, 'generated'>): string {
  const image = preset?.generated ? BASE_IMAGE_V012 : BASE_IMAGE;
  return kaitoImage(registry, image.name, image.tag);
}

/** OCI artifact with the weights of an image-based preset, e.g. `mcr.microsoft.com/aks/kaito/kaito-falcon-7b:0.2.0`. */
export function modelWeightsImage(preset: Pick<Preset, 'name' | 'tag'>, registry: string): string {
  return kaitoImage(registry, preset.name, preset.tag);
}
