// Builds the builders' ClusterFacts for one workspace from the informer caches (no API calls).
import type { V1StatefulSet } from '@kubernetes/client-node';
import type { ClusterFacts, WeightsVolumeKind } from '../../builders/facts.js';
import { MODEL_WEIGHTS_VOLUME } from '../../builders/volumes.js';
import type { OperatorConfig, WorkspaceCaches, WorkspaceObject } from './context.js';
import { ownedRevisions } from './revisions.js';

/** The weights volume shape of a StatefulSet that already exists (claim templates are immutable). */
export function volumeKindOf(sts: V1StatefulSet | undefined): WeightsVolumeKind | undefined {
  if (!sts) return undefined;
  return sts.spec?.volumeClaimTemplates?.some((t) => t.metadata?.name === MODEL_WEIGHTS_VOLUME) ? 'nvme' : 'emptyDir';
}

/** The caches the facts come from (`kaito-ts diff` fills them from one list each). */
export type FactCaches = Pick<WorkspaceCaches, 'storageClasses' | 'nodes' | 'configMaps' | 'controllerRevisions'>;

export function gatherFacts(ws: WorkspaceObject, deps: { caches: FactCaches; config: OperatorConfig }, existing: V1StatefulSet | undefined): ClusterFacts {
  const { caches, config } = deps;
  const ns = ws.metadata.namespace ?? 'default';
  const override = volumeKindOf(existing);
  return {
    storageClassNames: caches.storageClasses.keys(),
    nodes: caches.nodes.list(),
    configMaps: [...caches.configMaps.list({ namespace: ns }), ...(config.releaseNamespace !== ns ? caches.configMaps.list({ namespace: config.releaseNamespace }) : [])],
    featureGates: config.featureGates,
    cloudProvider: config.cloudProvider,
    presetRegistry: config.presetRegistry,
    releaseNamespace: config.releaseNamespace,
    ...(ws.status?.targetNodeCount ? { targetNodeCount: ws.status.targetNodeCount } : {}),
    ...(override ? { volumeKindOverride: override } : {}),
    // Revision numbers count only our own revisions: a look-alike must not make ours 12 instead of 1.
    controllerRevisions: ownedRevisions(ws, caches),
  };
}
