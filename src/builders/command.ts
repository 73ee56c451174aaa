// The inference container's shell command (spec §5.4). Flags are rendered in a fixed order (KAITO
// iterates Go maps, so its order is random — W31): the flags KAITO inserts, in its table order, then the
// preset's own flags in catalog order.
import { kvOffloadDisabled } from '../catalog/model-generator.js';
import { GIB, tryParseQuantity } from '../catalog/quantity.js';
import type { GpuConfig, Preset, Runtime } from '../catalog/types.js';
import { GPU_MEMORY_UTILIZATION } from './max-model-len.js';
import { CONFIG_MOUNT_PATH, MODEL_WEIGHTS_PATH } from './volumes.js';
import { INFERENCE_CONFIG_KEY } from '../api/labels.js';

export type Flags = ReadonlyArray<readonly [flag: string, value: string]>;

/** KAITO's BuildCmdStr: ` --key` for a bare flag, ` --key=value` otherwise, appended to the base. */
export function renderFlags(base: string, flags: Flags): string {
  return flags.reduce((cmd, [k, v]) => (v === '' ? `${cmd} --${k}` : `${cmd} --${k}=${v}`), base);
}

/** Inserted flags first; a preset flag with the same name is dropped (KAITO's insertion overwrites it). */
function merge(inserted: Flags, presetParams: Record<string, string>): Flags {
  const seen = new Set(inserted.map(([k]) => k));
  return [...inserted, ...Object.entries(presetParams).filter(([k]) => !seen.has(k))];
}

export interface CommandContext {
  preset: Preset;
  runtime: Runtime;
  /** GPUs per node (tensor parallel size). */
  gpusPerNode: number;
  numNodes: number;
  /** `--max-model-len`; 0 omits the flag. */
  maxModelLen: number;
  adaptersEnabled: boolean;
  /** True when the pods run one vLLM server across several nodes (spec §5.1 item 3). */
  distributed: boolean;
  /** `--served-model-name` instead of the preset's: an InferenceSet member serves under the set's name (KAITO #2004). */
  servedModelName?: string;
  /** Names served besides it: those the live workload answered to before a generation move (src/builders/generation.ts). */
  alsoServedAs?: readonly string[];
  /** Models named by Hugging Face id (KAITO v0.12's flags): the node's GPUs, whether a user config is mounted, `kaito.sh/performance-mode`. */
  gpu?: Pick<GpuConfig, 'gpuModel' | 'gpuMemGiB'>;
  configMounted?: boolean;
  performanceMode?: string;
  /** `kaito.sh/use-local-weights`: the node directory vLLM loads instead of downloading. */
  localWeightsPath?: string;
}

export const KAITO_CONFIG_FILE = `${CONFIG_MOUNT_PATH}/${INFERENCE_CONFIG_KEY}`;

/**
 * `--served-model-name=a`, or with names carried over `--served-model-name a b`: vLLM reads several
 * only space-separated (argparse takes one value after `=`). The bare-flag form renders the words as they are.
 */
function servedModelNameFlag(served: string, also: readonly string[] | undefined): [string, string] {
  return also?.length ? [['served-model-name', served, ...also].join(' '), ''] : ['served-model-name', served];
}

/** The flags of the vLLM API server (leader pod only when distributed). */
export function vllmServerFlags(ctx: CommandContext): Flags {
  const { preset } = ctx;
  const inserted: [string, string][] = [];
  const served = ctx.servedModelName ?? preset.vllm.servedModelName;
  if (served) inserted.push(servedModelNameFlag(served, ctx.alsoServedAs));
  if (ctx.maxModelLen > 0) inserted.push(['max-model-len', String(ctx.maxModelLen)]);
  inserted.push(['gpu-memory-utilization', String(GPU_MEMORY_UTILIZATION)]);
  if (!preset.disableTensorParallelism) inserted.push(['tensor-parallel-size', String(ctx.gpusPerNode)]);
  if (ctx.distributed) {
    inserted.push(['pipeline-parallel-size', String(ctx.numNodes)], ['distributed-executor-backend', 'ray']);
  }
  if (!preset.vllm.disallowLoRA && ctx.adaptersEnabled) inserted.push(['enable-lora', '']);
  if (preset.downloadAtRuntime) {
    inserted.push(['model', preset.hfRepo]);
    if (preset.hfRevision) {
      // KAITO passes only --code-revision, which pins remote code but not the weights (W29);
      // --revision pins the weights to the catalog commit as well.
      inserted.push(['code-revision', preset.hfRevision], ['revision', preset.hfRevision]);
    }
    inserted.push(['download-dir', MODEL_WEIGHTS_PATH]);
  }
  inserted.push(['kaito-config-file', KAITO_CONFIG_FILE]);
  return merge(inserted, preset.vllm.modelRunParams);
}

/** v0.12 leaves more headroom on the 24 GiB A10. */
const GPU_MEMORY_UTILIZATION_BY_GPU: Record<string, string> = { 'NVIDIA A10': '0.82' };

/**
 * The vLLM flags KAITO v0.12.0 gives a model named by Hugging Face id (buildVLLMInferenceCommand and
 * configureParallelism): vLLM fits the context itself (`auto`), KV-cache events on, one flag against a
 * FlashInfer JIT, weights downloaded into the weights volume, and three-tier parallelism: data parallel
 * when the weights take under half of one GPU, tensor parallel within a node, pipeline across nodes.
 */
function v012ServerFlags(ctx: CommandContext, preset: Preset): Flags {
  const inserted: [string, string][] = [];
  const served = ctx.servedModelName ?? preset.vllm.servedModelName;
  if (served) inserted.push(servedModelNameFlag(served, ctx.alsoServedAs));
  inserted.push(
    ['max-model-len', 'auto'],
    ['gpu-memory-utilization', GPU_MEMORY_UTILIZATION_BY_GPU[ctx.gpu?.gpuModel ?? ''] ?? String(GPU_MEMORY_UTILIZATION)],
    ['kv-events-config', `'{"enable_kv_cache_events":true}'`],
    ['compilation-config.pass_config.fuse_allreduce_rms', 'False'],
  );
  if (ctx.adaptersEnabled) inserted.push(['enable-lora', '']);
  // Node-image weights: vLLM reads the directory with the RunAI streamer (threaded reads) and downloads nothing.
  if (ctx.localWeightsPath) inserted.push(['model', ctx.localWeightsPath], ['load-format', 'runai_streamer']);
  else inserted.push(['model', preset.hfRepo], ['download-dir', MODEL_WEIGHTS_PATH]);
  if (ctx.configMounted) inserted.push(['kaito-config-file', KAITO_CONFIG_FILE]);
  if (ctx.performanceMode && ctx.performanceMode !== 'balanced') inserted.push(['performance-mode', ctx.performanceMode]);
  const weights = tryParseQuantity(preset.totalSafeTensorFileSize);
  const gpus = ctx.gpusPerNode;
  const dataParallel = !ctx.distributed && gpus > 1 && weights !== undefined && ctx.gpu !== undefined && weights * gpus * 2 < ctx.gpu.gpuMemGiB * GIB;
  if ((preset.generated && kvOffloadDisabled(preset.generated)) || dataParallel || ctx.distributed)
    inserted.push(['kaito-kv-cache-cpu-memory-utilization', '0']);
  if (dataParallel) inserted.push(['data-parallel-size', String(gpus)], ['tensor-parallel-size', '1']);
  else inserted.push(['tensor-parallel-size', String(gpus)]);
  if (ctx.distributed) inserted.push(['pipeline-parallel-size', String(ctx.numNodes)], ['distributed-executor-backend', 'ray']);
  // A preset's own load_format (Mistral's) would contradict --load-format.
  const runParams = ctx.localWeightsPath
    ? Object.fromEntries(Object.entries(preset.vllm.modelRunParams).filter(([k]) => k !== 'load_format'))
    : preset.vllm.modelRunParams;
  return merge(inserted, runParams);
}

/** The transformers server's model flags: the preset's, then what KAITO inserts (an inserted name overwrites in place). */
export function transformersModelFlags(preset: Preset): Flags {
  const flags: Record<string, string> = { ...preset.transformers.modelRunParams };
  // KAITO v0.12 (models named by Hugging Face id) names the served model and lets the hub download run remote files.
  if (preset.generated) flags['served_model_name'] = preset.generated.name;
  if (preset.downloadAtRuntime) {
    flags['pretrained_model_name_or_path'] = preset.hfRepo;
    if (preset.hfRevision) flags['revision'] = preset.hfRevision;
    if (preset.generated) flags['allow_remote_files'] = '';
  }
  return Object.entries(flags);
}

export function transformersCommand(preset: Preset): string {
  const tf = preset.transformers;
  return `${renderFlags(tf.baseCommand, Object.entries(tf.accelerateParams))} ${renderFlags(tf.inferenceMainFile, transformersModelFlags(preset))}`;
}

/** The shell string run by `/bin/sh -c` in the inference container. */
export function inferenceCommand(ctx: CommandContext, multiNode: (server: string) => string): string {
  if (ctx.runtime === 'transformers') return transformersCommand(ctx.preset);
  const flags = ctx.preset.generated ? v012ServerFlags(ctx, ctx.preset) : vllmServerFlags(ctx);
  const server = renderFlags(ctx.preset.vllm.baseCommand, flags);
  return ctx.distributed ? multiNode(server) : server;
}
