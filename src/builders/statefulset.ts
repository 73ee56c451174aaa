// The StatefulSet of a preset inference workspace (spec §5.2): one pod per node, all started at once,
// NVMe claims deleted with the StatefulSet but kept when scaling down.
import type { V1PersistentVolumeClaim, V1PodSpec, V1StatefulSet } from '@kubernetes/client-node';
import { ANNOTATION_REVISION } from '../api/labels.js';
import type { Workspace } from '../api/types.js';
import { headlessServiceName, ownedMeta, workspaceName, workspaceSelectorLabels } from './meta.js';

export interface PresetStatefulSetInput {
  ws: Workspace;
  revision: number;
  replicas: number;
  podSpec: V1PodSpec;
  /** The NVMe claim template, when the weights go to local NVMe. */
  weightsClaim?: V1PersistentVolumeClaim;
}

export function presetStatefulSet(input: PresetStatefulSetInput): V1StatefulSet {
  const { ws } = input;
  const labels = workspaceSelectorLabels(ws);
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { ...ownedMeta(ws, workspaceName(ws)), annotations: { [ANNOTATION_REVISION]: String(input.revision) } },
    spec: {
      replicas: input.replicas,
      podManagementPolicy: 'Parallel',
      persistentVolumeClaimRetentionPolicy: { whenScaled: 'Retain', whenDeleted: 'Delete' },
      selector: { matchLabels: { ...labels } },
      serviceName: headlessServiceName(ws),
      ...(input.weightsClaim ? { volumeClaimTemplates: [input.weightsClaim] } : {}),
      template: { metadata: { labels: { ...labels } }, spec: input.podSpec },
    },
  };
}
