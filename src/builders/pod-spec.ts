// The pod of a preset inference workspace (spec §5.3, §5.8, §5.9): one inference container on the base
// image, the weights downloader (OCI presets) and adapter pullers as init containers, and the volumes.
import type { V1Container, V1EnvVar, V1PodSpec, V1Volume } from '@kubernetes/client-node';
import { HF_TOKEN_KEY, RESOURCE_NVIDIA_GPU } from '../api/labels.js';
import type { Workspace } from '../api/types.js';
import { baseImage, modelWeightsImage } from '../catalog/presets.js';
import { needsCudaToolkit, needsDeepGemm } from '../catalog/model-generator.js';
import { cudaHomeEnv, cudaToolkitMount, cudaToolkitProvisioner, cudaToolkitVolume } from './cuda-toolkit.js';
import type { CloudProvider, GpuConfig, Preset } from '../catalog/types.js';
import {
  ADAPTER_MOUNT_PATH,
  ADAPTER_VOLUME,
  adapterImagePullSecrets,
  adapterPullerContainers,
  adapterStrengthEnv,
  adapterVolumes,
  type UsableAdapter,
} from './adapters.js';
import { inferenceCommand, type CommandContext } from './command.js';
import {
  distributedLivenessProbe,
  distributedReadinessProbe,
  KV_EVENTS_PORT,
  KV_EVENTS_PORT_NAME,
  multiNodeCommand,
  podIndexEnv,
  VLLM_PORT,
} from './distributed.js';
import type { WeightsVolumeKind } from './facts.js';
import { leaderAddress, workspaceName } from './meta.js';
import { livenessProbe, livenessProbeV012, readinessProbe, startupFailureThreshold, startupProbe } from './probes.js';
import { gpuTolerations, requiredNodeAffinity } from './scheduling.js';
import {
  baseVolumeMounts,
  CONFIG_VOLUME,
  configVolume,
  DSHM_VOLUME,
  dshmVolume,
  MODEL_WEIGHTS_PATH,
  MODEL_WEIGHTS_VOLUME,
  modelWeightsEmptyDir,
  modelWeightsMount,
} from './volumes.js';

export const ORAS_IMAGE = 'mcr.microsoft.com/oss/v2/oras-project/oras:v1.2.3';
export const WEIGHTS_DOWNLOADER = 'model-weights-downloader';

export interface PresetPodInput {
  ws: Workspace;
  preset: Preset;
  gpu: GpuConfig;
  command: CommandContext;
  adapters: readonly UsableAdapter[];
  configMapName: string;
  weightsVolume: WeightsVolumeKind;
  /** `kaito.sh/use-local-weights`: the node directory mounted read-only in place of the weights volume. */
  localWeightsPath?: string;
  registry: string;
  cloud: CloudProvider;
}

/** The hostPath volume of `kaito.sh/use-local-weights` (KAITO's name). */
const LOCAL_WEIGHTS_VOLUME = 'model-weights-hostpath';

/** Marker the downloader writes once the artifact is complete; it names the artifact it holds. */
export const WEIGHTS_MARKER = `${MODEL_WEIGHTS_PATH}/.kaito-ts-weights`;

/**
 * Pulls the OCI weights artifact into the weights volume (presets that do not download at runtime).
 * KAITO pulls on every pod start, which throws away what an NVMe claim kept: here the pull is
 * skipped when the marker says the volume already holds this exact artifact, so a restarted pod on
 * NVMe starts without downloading. The marker is written only after a complete pull.
 */
export function weightsDownloader(preset: Preset, registry: string): V1Container {
  const ref = modelWeightsImage(preset, registry);
  const script = [
    'set -e',
    `if [ "$(cat ${WEIGHTS_MARKER} 2>/dev/null)" = "${ref}" ]; then echo "model weights ${ref} already on the volume"; exit 0; fi`,
    `rm -f ${WEIGHTS_MARKER}`,
    `oras pull ${ref} -o ${MODEL_WEIGHTS_PATH}`,
    `echo "${ref}" > ${WEIGHTS_MARKER}`,
  ].join('\n');
  return {
    name: WEIGHTS_DOWNLOADER,
    image: ORAS_IMAGE,
    command: ['/bin/sh', '-c', script],
    volumeMounts: [{ ...modelWeightsMount }],
  };
}

function mainEnv(input: PresetPodInput): V1EnvVar[] {
  const env: V1EnvVar[] = [];
  const secret = input.ws.inference?.preset?.presetOptions?.modelAccessSecret;
  const generated = input.preset.generated;
  // KAITO v0.12: no FlashInfer sampler and no DeepGEMM (both JIT-compile with nvcc, absent from the image) unless the model needs DeepGEMM.
  // Both are vLLM's switches: the transformers server gets neither.
  if (generated && input.command.runtime === 'vllm')
    env.push({ name: 'VLLM_USE_FLASHINFER_SAMPLER', value: '0' }, { name: 'VLLM_USE_DEEP_GEMM', value: needsDeepGemm(generated) ? '1' : '0' });
  if (generated && needsCudaToolkit(generated)) env.push(cudaHomeEnv());
  // v0.12 points its startup benchmark's tokenizer at the node's weights; kept for the same environment.
  if (input.localWeightsPath) env.push({ name: 'KAITO_PROCESSOR', value: input.localWeightsPath });
  if (input.preset.downloadAtRuntime && secret) {
    // v0.12 marks the key optional: a public model starts without it.
    const optional = generated ? { optional: true } : {};
    env.push({ name: HF_TOKEN_KEY, valueFrom: { secretKeyRef: { name: secret, key: HF_TOKEN_KEY, ...optional } } });
  }
  env.push(...adapterStrengthEnv(input.adapters));
  if (input.command.distributed) env.push(podIndexEnv());
  return env;
}

export function presetPodSpec(input: PresetPodInput): V1PodSpec {
  const { ws, preset, adapters, command } = input;
  const name = workspaceName(ws);
  const leader = leaderAddress(ws);
  const gpus = String(input.gpu.gpuCount);
  const generated = preset.generated !== undefined;
  // KAITO v0.12 mounts a config only when the workspace names one.
  const volumeMounts = baseVolumeMounts().filter((m) => input.configMapName !== '' || m.name !== CONFIG_VOLUME);
  if (adapters.length > 0) volumeMounts.push({ name: ADAPTER_VOLUME, mountPath: ADAPTER_MOUNT_PATH });
  const local = input.localWeightsPath;
  // Node-image weights take the weights mount's place (KAITO's order), read-only at the node's own path.
  if (local)
    volumeMounts.splice(
      volumeMounts.findIndex((m) => m.name === MODEL_WEIGHTS_VOLUME),
      1,
      { name: LOCAL_WEIGHTS_VOLUME, mountPath: local, readOnly: true },
    );
  const cudaToolkit = preset.generated !== undefined && needsCudaToolkit(preset.generated);
  // KAITO's order: the toolkit's mount sits before the shared-memory one.
  const dshmAt = volumeMounts.findIndex((m) => m.name === DSHM_VOLUME);
  if (cudaToolkit) volumeMounts.splice(dshmAt < 0 ? volumeMounts.length : dshmAt, 0, cudaToolkitMount());
  const env = mainEnv(input);

  const container: V1Container = {
    name,
    image: baseImage(input.registry, preset),
    command: ['/bin/sh', '-c', inferenceCommand(command, (server) => multiNodeCommand(preset, command.numNodes, leader, server))],
    resources: { requests: { [RESOURCE_NVIDIA_GPU]: gpus }, limits: { [RESOURCE_NVIDIA_GPU]: gpus } },
    // KAITO v0.12 names the port; only vLLM publishes KV-cache events.
    ports: generated
      ? [{ name: 'http', containerPort: VLLM_PORT }, ...(command.runtime === 'vllm' ? [{ name: KV_EVENTS_PORT_NAME, containerPort: KV_EVENTS_PORT }] : [])]
      : [{ containerPort: VLLM_PORT }],
    startupProbe: command.distributed
      ? distributedReadinessProbe(leader, startupFailureThreshold(preset.readinessTimeoutSeconds))
      : startupProbe(preset.readinessTimeoutSeconds),
    livenessProbe: command.distributed ? distributedLivenessProbe(leader) : generated ? livenessProbeV012() : livenessProbe(),
    readinessProbe: command.distributed ? distributedReadinessProbe(leader) : readinessProbe(),
    volumeMounts,
    ...(env.length > 0 ? { env } : {}),
  };

  const initContainers = [
    ...(cudaToolkit ? [cudaToolkitProvisioner(container.image ?? '')] : []),
    ...(preset.downloadAtRuntime ? [] : [weightsDownloader(preset, input.registry)]),
    ...adapterPullerContainers(adapters),
  ];
  const volumes: V1Volume[] = [
    ...(input.configMapName ? [configVolume(input.configMapName)] : []),
    ...(local ? [{ name: LOCAL_WEIGHTS_VOLUME, hostPath: { path: local, type: 'Directory' } }] : []),
    ...(cudaToolkit ? [cudaToolkitVolume()] : []),
    dshmVolume(),
    ...adapterVolumes(adapters),
  ];
  if (!local && input.weightsVolume === 'emptyDir') volumes.push(modelWeightsEmptyDir(preset.diskStorageRequirement));
  const affinity = requiredNodeAffinity(ws);
  const pullSecrets = adapterImagePullSecrets(adapters);

  return {
    ...(affinity ? { affinity } : {}),
    // KAITO v0.12 (catalog and Hugging Face ids) also tolerates Azure spot nodes; legacy names keep v0.8.0's two.
    tolerations: gpuTolerations({ azureSpot: generated && input.cloud === 'azure' }),
    ...(initContainers.length > 0 ? { initContainers } : {}),
    containers: [container],
    ...(pullSecrets.length > 0 ? { imagePullSecrets: pullSecrets } : {}),
    volumes,
  };
}
