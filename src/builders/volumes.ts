// Volumes of the inference pod (spec §5.7) and the model weights decision (spec §6).
// NVMe rule (kaito-ts): a local NVMe claim when the GPU facts say the node has NVMe — a catalog SKU with
// the NVMe flag, or a bring-your-own node whose instance-type label is such a SKU (KAITO: never for BYO) —
// AND StorageClass `kaito-local-nvme-disk` exists. Otherwise an emptyDir, sized to the preset's disk
// requirement (KAITO sets no sizeLimit, so a runaway download can fill the node's disk).
import type { V1PersistentVolumeClaim, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import { LABEL_WORKSPACE_NAME, LOCAL_NVME_STORAGE_CLASS } from '../api/labels.js';
import type { Decision, Workspace } from '../api/types.js';
import type { GpuConfig } from '../catalog/types.js';
import type { ClusterFacts, WeightsVolumeKind } from './facts.js';
import { isBringYourOwnNodes } from './gpu.js';
import { workspaceName } from './meta.js';

export const MODEL_WEIGHTS_VOLUME = 'model-weights-volume';
export const MODEL_WEIGHTS_PATH = '/workspace/weights';
export const CONFIG_VOLUME = 'config-volume';
export const CONFIG_MOUNT_PATH = '/mnt/config';
export const DSHM_VOLUME = 'dshm';
export const DSHM_MOUNT_PATH = '/dev/shm';

export interface WeightsVolumeChoice {
  kind: WeightsVolumeKind;
  /** What a new StatefulSet would use (differs from `kind` only when an existing shape is kept). */
  fresh: WeightsVolumeKind;
  decision: Decision;
}

/** `localWeights`: the node directory of `kaito.sh/use-local-weights`; the pod then needs no weights volume (no claim template). */
export function chooseWeightsVolume(gpu: GpuConfig, diskSize: string, facts: ClusterFacts, localWeights?: string): WeightsVolumeChoice {
  const choose = (kind: WeightsVolumeKind, reason: string, fresh = kind): WeightsVolumeChoice => ({
    kind,
    fresh,
    decision: { topic: 'modelWeightsVolume', choice: kind, reason },
  });
  if (facts.volumeKindOverride) {
    // Say why the shape was chosen, and whether a fresh decision would still choose it.
    const fresh = chooseWeightsVolume(gpu, diskSize, { ...facts, volumeKindOverride: undefined }, localWeights);
    const kept = facts.volumeKindOverride;
    return choose(
      kept,
      fresh.kind === kept
        ? fresh.decision.reason
        : `kept from the existing StatefulSet (volume claim templates are immutable); a new StatefulSet would use ${fresh.kind}: ${fresh.decision.reason}`,
      fresh.kind,
    );
  }
  if (localWeights) return choose('emptyDir', `weights read from the node at ${localWeights} (kaito.sh/use-local-weights): no weights volume, no claim`);
  const where = isBringYourOwnNodes(facts) ? `node instance type ${gpu.sku}` : `instance type ${gpu.sku}`;
  if (!gpu.nvmeDiskEnabled) {
    const why =
      isBringYourOwnNodes(facts) && gpu.sku === 'unknown'
        ? 'the bring-your-own node has no instance-type label naming an NVMe SKU of the catalog'
        : `${where} has no local NVMe disk`;
    return choose('emptyDir', `${why}: emptyDir limited to ${diskSize}`);
  }
  if (!facts.storageClassNames.includes(LOCAL_NVME_STORAGE_CLASS)) {
    return choose('emptyDir', `${where} has local NVMe but StorageClass ${LOCAL_NVME_STORAGE_CLASS} does not exist: emptyDir limited to ${diskSize}`);
  }
  return choose(
    'nvme',
    `${where} has local NVMe and StorageClass ${LOCAL_NVME_STORAGE_CLASS} exists: a ${diskSize} claim per replica, kept across pod restarts`,
  );
}

/** The NVMe claim template (one PVC per replica, deleted with the StatefulSet). */
export function modelWeightsClaimTemplate(ws: Workspace, size: string): V1PersistentVolumeClaim {
  return {
    metadata: { name: MODEL_WEIGHTS_VOLUME, labels: { [LABEL_WORKSPACE_NAME]: workspaceName(ws) } },
    spec: {
      accessModes: ['ReadWriteOnce'],
      storageClassName: LOCAL_NVME_STORAGE_CLASS,
      resources: { requests: { storage: size } },
    },
  };
}

export function modelWeightsEmptyDir(size: string): V1Volume {
  return { name: MODEL_WEIGHTS_VOLUME, emptyDir: { sizeLimit: size } };
}

export function configVolume(configMapName: string): V1Volume {
  return { name: CONFIG_VOLUME, configMap: { name: configMapName } };
}

/** Shared memory for NCCL/PyTorch; no size limit, as in KAITO. */
export function dshmVolume(): V1Volume {
  return { name: DSHM_VOLUME, emptyDir: { medium: 'Memory' } };
}

export const modelWeightsMount: V1VolumeMount = { name: MODEL_WEIGHTS_VOLUME, mountPath: MODEL_WEIGHTS_PATH };

/** Main-container mounts in KAITO's order: config, weights, shm. */
export function baseVolumeMounts(): V1VolumeMount[] {
  return [{ name: CONFIG_VOLUME, mountPath: CONFIG_MOUNT_PATH }, { ...modelWeightsMount }, { name: DSHM_VOLUME, mountPath: DSHM_MOUNT_PATH }];
}
