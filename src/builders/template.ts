// Template inference (spec §5.13): the user's pod template, with the workspace label, the node affinity
// of the label selector (replacing the user's affinity) and the GPU tolerations appended. Like KAITO: no
// serviceName, no revision annotation, default pod management, nothing else added.
import type { V1StatefulSet } from '@kubernetes/client-node';
import type { Workspace } from '../api/types.js';
import { ownedMeta, workspaceName, workspaceSelectorLabels } from './meta.js';
import { gpuTolerations, requiredNodeAffinity } from './scheduling.js';

export function templateStatefulSet(ws: Workspace, replicas: number): V1StatefulSet {
  const template = structuredClone(ws.inference?.template ?? {});
  const selector = workspaceSelectorLabels(ws);
  const spec = template.spec ?? { containers: [] };
  const affinity = requiredNodeAffinity(ws);
  if (affinity) spec.affinity = affinity;
  else delete spec.affinity;
  spec.tolerations = [...(spec.tolerations ?? []), ...gpuTolerations()];
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: ownedMeta(ws, workspaceName(ws)),
    spec: {
      replicas,
      selector: { matchLabels: { ...selector } },
      template: { ...template, metadata: { ...template.metadata, labels: { ...template.metadata?.labels, ...selector } }, spec },
    },
  };
}
