// The CUDA toolkit KAITO v0.12 gives models whose kernels are compiled with nvcc at run time (DeepGEMM
// FP8 GEMMs, FlashInfer's MoE): the base image has no nvcc, so an init container installs the toolkit
// once per node on a hostPath and the server reads it there through CUDA_HOME. Facts from v0.12.0's
// pkg/workspace/inference/preset_inferences.go; which models need it: `needsCudaToolkit`.
import type { V1Container, V1EnvVar, V1Volume, V1VolumeMount } from '@kubernetes/client-node';

export const CUDA_TOOLKIT_VOLUME = 'cuda-toolkit-hostpath';
/** Where the toolkit lives on the node and in the pod (CUDA 12.9). */
export const CUDA_HOME = '/opt/kaito/cuda/129';

/** DirectoryOrCreate: the pod starts on a node that has no toolkit yet; the init container fills it. */
export const cudaToolkitVolume = (): V1Volume => ({ name: CUDA_TOOLKIT_VOLUME, hostPath: { path: CUDA_HOME, type: 'DirectoryOrCreate' } });

/** The server only reads the toolkit. */
export const cudaToolkitMount = (): V1VolumeMount => ({ name: CUDA_TOOLKIT_VOLUME, mountPath: CUDA_HOME, readOnly: true });

export const cudaHomeEnv = (): V1EnvVar => ({ name: 'CUDA_HOME', value: CUDA_HOME });

/**
 * Installs the toolkit when the node lacks it (the base image's script; a no-op when present), under a
 * lock so two pods on one node do not install at once. The path is a positional argument, never part
 * of the script text.
 */
export function cudaToolkitProvisioner(image: string): V1Container {
  return {
    name: 'cuda-toolkit-provisioner',
    image,
    command: ['/bin/sh', '-c', 'flock "$1" /workspace/cuda-provision.sh "$1"', 'sh', CUDA_HOME],
    volumeMounts: [{ name: CUDA_TOOLKIT_VOLUME, mountPath: CUDA_HOME }],
  };
}
