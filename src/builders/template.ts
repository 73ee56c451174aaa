// Template inference (spec §5.13): the user's pod template, with the workspace label, the node affinity
// of the label selector (replacing the user's affinity) and the GPU tolerations appended. Like KAITO: no
// serviceName, default pod management. Unlike KAITO: the revision annotation, so a converged workspace
// is not re-applied (the pod template is unchanged: no restart on takeover).
import type { V1PodTemplateSpec, V1StatefulSet } from '@kubernetes/client-node';
import { ANNOTATION_REVISION } from '../api/labels.js';
import type { Workspace } from '../api/types.js';
import { pruneToGoType } from './gojson/prune.js';
import { ownedMeta, workspaceName, workspaceSelectorLabels } from './meta.js';
import { gpuTolerations, requiredNodeAffinity } from './scheduling.js';

export interface TemplateWorkload {
  statefulSet: V1StatefulSet;
  /** Template fields Kubernetes v1.34 (KAITO v0.8.0's libraries) does not know, dropped as Go drops them. */
  dropped: string[];
}

export function templateStatefulSet(ws: Workspace, replicas: number, revision: number): TemplateWorkload {
  const pruned = pruneToGoType<V1PodTemplateSpec>(structuredClone(ws.inference?.template ?? {}), 'PodTemplateSpec');
  const template = pruned.value;
  const selector = workspaceSelectorLabels(ws);
  const spec = template.spec ?? { containers: [] };
  const affinity = requiredNodeAffinity(ws);
  if (affinity) spec.affinity = affinity;
  else delete spec.affinity;
  spec.tolerations = [...(spec.tolerations ?? []), ...gpuTolerations()];
  const statefulSet: V1StatefulSet = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { ...ownedMeta(ws, workspaceName(ws)), annotations: { [ANNOTATION_REVISION]: String(revision) } },
    spec: {
      replicas,
      selector: { matchLabels: { ...selector } },
      template: { ...template, metadata: { ...template.metadata, labels: { ...template.metadata?.labels, ...selector } }, spec },
    },
  };
  return { statefulSet, dropped: pruned.dropped };
}

/** The message naming dropped template fields (status and the Warning event say the same). */
export function droppedFieldsMessage(dropped: readonly string[]): string {
  return `inference.template fields unknown to Kubernetes were dropped: ${dropped.join(', ')}`;
}
