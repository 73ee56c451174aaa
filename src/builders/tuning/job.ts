// The tuning Job (reference §2.3), named after the workspace. Its pod: the weights downloader and the
// data init container, the trainer (named after the workspace) on the base image, and for image output
// the pusher. kaito-ts differences (docs/controller.md): the trainer command comes from the tuning
// recipe (#1943); with image output the trainer runs as the last init container and the pusher as the
// only container, so a push starts only after training succeeded and a failed push fails the pod (W5:
// no sentinel wait, no pause container, no shared process namespace); backoffLimit 0.
import type { V1Container, V1EnvVar, V1Job, V1PodSpec, V1Volume } from '@kubernetes/client-node';
import { ANNOTATION_REVISION, LABEL_WORKSPACE_NAME, RESOURCE_NVIDIA_GPU } from '../../api/labels.js';
import type { Workspace } from '../../api/types.js';
import { baseImage, modelWeightsImage } from '../../catalog/presets.js';
import type { Preset } from '../../catalog/types.js';
import { renderFlags } from '../command.js';
import { ownedMeta, workspaceName } from '../meta.js';
import { ORAS_IMAGE, WEIGHTS_DOWNLOADER } from '../pod-spec.js';
import { gpuTolerations, requiredNodeAffinity } from '../scheduling.js';
import {
  CONFIG_MOUNT_PATH,
  CONFIG_VOLUME,
  configVolume,
  DSHM_MOUNT_PATH,
  DSHM_VOLUME,
  dshmVolume,
  MODEL_WEIGHTS_PATH,
  MODEL_WEIGHTS_VOLUME,
  modelWeightsMount,
} from '../volumes.js';
import { inputParts, pushParts, RESULTS_VOLUME, resultsVolume } from './data.js';

/** The tuning recipe's base command (the metrics server runs beside the trainer). */
export const TUNING_BASE_COMMAND = 'cd /workspace/tfs/ && python3 metrics_server.py & accelerate launch';
export const TUNING_MAIN_FILE = '/workspace/tfs/fine_tuning.py';
export const TUNING_PORT = 5000;
const PHI3_TARGET_MODULES = 'k_proj,q_proj,v_proj,o_proj,gate_proj,down_proj,up_proj';

export interface TuningJobInput {
  ws: Workspace;
  preset: Preset;
  gpuCount: number;
  revision: number;
  /** ConfigMap mounted at /mnt/config. */
  configMapName: string;
  outputDir: string;
  registry: string;
}

/** `accelerate launch --num_processes=<GPUs> --num_machines=1 --machine_rank=0 --gpu_ids=all /workspace/tfs/fine_tuning.py`, behind the recipe's base. */
export function tuningCommand(gpuCount: number): string {
  const accelerate: [string, string][] = [
    ['num_processes', String(gpuCount)],
    ['num_machines', '1'],
    ['machine_rank', '0'],
    ['gpu_ids', 'all'],
  ];
  return `${renderFlags(TUNING_BASE_COMMAND, accelerate)} ${TUNING_MAIN_FILE}`;
}

function trainerEnv(preset: Preset): V1EnvVar[] {
  const env: V1EnvVar[] = [];
  if (preset.name.toLowerCase().startsWith('phi-3')) env.push({ name: 'DEFAULT_TARGET_MODULES', value: PHI3_TARGET_MODULES });
  env.push({ name: 'PYTORCH_CUDA_ALLOC_CONF', value: 'expandable_segments:True' });
  return env;
}

export function tuningPodSpec(input: TuningJobInput): V1PodSpec {
  const { ws, preset } = input;
  const tuning = ws.tuning!;
  const gpus = String(input.gpuCount);
  const data = inputParts(tuning.input ?? {});
  const push = pushParts(tuning.output ?? {}, input.outputDir, preset.name);
  const trainer: V1Container = {
    name: workspaceName(ws),
    image: baseImage(input.registry),
    command: ['/bin/sh', '-c', tuningCommand(input.gpuCount)],
    env: trainerEnv(preset),
    ports: [{ containerPort: TUNING_PORT }],
    resources: { requests: { [RESOURCE_NVIDIA_GPU]: gpus }, limits: { [RESOURCE_NVIDIA_GPU]: gpus } },
    volumeMounts: [
      { name: DSHM_VOLUME, mountPath: DSHM_MOUNT_PATH },
      { ...modelWeightsMount },
      { name: CONFIG_VOLUME, mountPath: CONFIG_MOUNT_PATH },
      { name: RESULTS_VOLUME, mountPath: input.outputDir },
      ...data.mounts,
    ],
  };
  const downloader: V1Container = {
    name: WEIGHTS_DOWNLOADER,
    image: ORAS_IMAGE,
    command: ['oras', 'pull', modelWeightsImage(preset, input.registry), '-o', MODEL_WEIGHTS_PATH],
    volumeMounts: [{ ...modelWeightsMount }],
  };
  const volumes: V1Volume[] = [
    dshmVolume(),
    { name: MODEL_WEIGHTS_VOLUME, emptyDir: {} },
    configVolume(input.configMapName),
    resultsVolume(tuning.output ?? {}),
    ...data.volumes,
    ...(push ? [push.volume] : []),
  ];
  const initContainers = [...(preset.downloadAtRuntime ? [] : [downloader]), ...data.initContainers, ...(push ? [trainer] : [])];
  const affinity = requiredNodeAffinity(ws);
  return {
    restartPolicy: 'Never',
    tolerations: gpuTolerations(),
    ...(affinity ? { affinity } : {}),
    ...(push ? { imagePullSecrets: [{ name: push.pullSecret }] } : {}),
    ...(initContainers.length > 0 ? { initContainers } : {}),
    containers: push ? [push.pusher] : [trainer],
    volumes,
  };
}

export function tuningJob(input: TuningJobInput): V1Job {
  const { ws } = input;
  const labels = { [LABEL_WORKSPACE_NAME]: workspaceName(ws) };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { ...ownedMeta(ws, workspaceName(ws)), labels, annotations: { [ANNOTATION_REVISION]: String(input.revision) } },
    spec: {
      // One attempt: a retry restarts training from scratch and holds the GPU again (W1).
      backoffLimit: 0,
      template: { metadata: { labels: { ...labels } }, spec: tuningPodSpec(input) },
    },
  };
}
