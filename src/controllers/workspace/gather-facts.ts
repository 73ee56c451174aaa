// The builders' ClusterFacts for one workspace, from the pass's snapshot (no API calls).
import type { V1StatefulSet } from '@kubernetes/client-node';
import type { ClusterFacts, WeightsVolumeKind } from '../../builders/facts.js';
import { MODEL_WEIGHTS_VOLUME } from '../../builders/volumes.js';
import { karpenterNodeAffinity } from '../../builders/nodepool.js';
import { nodeClaimNodeAffinity } from '../../builders/nodeclaim.js';
import type { NodeProvisioner } from '../../api/node-provisioner.js';
import type { Workspace } from '../../api/types.js';
import { LABEL_KARPENTER_NODEPOOL, LABEL_KARPENTER_WORKSPACE_NAME, LABEL_WORKSPACE_NAME } from '../../api/labels.js';
import { legacyPresetsOf, provisionerOf } from './context.js';
import { keptGeneration, liveServedModelNames } from '../../builders/generation.js';
import { ownedRevisions } from './revisions.js';
import type { WorkspaceSnapshot } from './snapshot.js';
import type { DeepReadonly } from '../../runtime/readonly.js';

/** The weights volume shape of a StatefulSet that already exists (claim templates are immutable). */
export function volumeKindOf(sts: DeepReadonly<V1StatefulSet> | undefined): WeightsVolumeKind | undefined {
  if (!sts) return undefined;
  return sts.spec?.volumeClaimTemplates?.some((t) => t.metadata?.name === MODEL_WEIGHTS_VOLUME) ? 'nvme' : 'emptyDir';
}

/** Labels that say a node was made for a workspace: Karpenter's pools (template labels) and gpu-provisioner's claims. */
const WORKSPACE_NODE_KEYS = [LABEL_KARPENTER_WORKSPACE_NAME, LABEL_WORKSPACE_NAME];

/**
 * The provisioner's per-workspace node labels the pods are pinned to (KAITO v0.11+, #2161): Karpenter's
 * pool labels for every workspace; gpu-provisioner's claim labels for the workspaces rendered as KAITO
 * v0.12 (catalog and Hugging Face ids) only. None with bring-your-own nodes. `kaito-ts render` applies the same.
 */
export function podNodePinning(ws: Workspace, provisioner: NodeProvisioner): Pick<ClusterFacts, 'podNodePinning'> {
  if (provisioner === 'karpenter') return { podNodePinning: { own: karpenterNodeAffinity(ws), unclaimedWithout: WORKSPACE_NODE_KEYS } };
  // Nodes no provisioner made are those the claim count takes as covering the workspace (provisioning-plan.ts): they admit its pods too.
  if (provisioner === 'azure-gpu-provisioner')
    return { podNodePinning: { own: nodeClaimNodeAffinity(ws), unclaimedWithout: [LABEL_KARPENTER_NODEPOOL], v012Only: true } };
  return {};
}

/** Inference keeps the live StatefulSet's weights volume; tuning Jobs have none to keep. */
export function factsOf(snap: WorkspaceSnapshot): ClusterFacts {
  const { ws, config } = snap;
  const override = ws.tuning ? undefined : volumeKindOf(snap.statefulSet);
  const { legacyNames, skuTable } = keptGeneration(ws, snap.statefulSet, legacyPresetsOf(config));
  const served = ws.tuning ? [] : liveServedModelNames(snap.statefulSet);
  return {
    // Read-only on both sides: the snapshot's lists serve as they are.
    storageClassNames: snap.storageClassNames,
    nodes: snap.nodes,
    configMaps: snap.configMaps,
    featureGates: config.featureGates,
    cloudProvider: config.cloudProvider,
    presetRegistry: config.presetRegistry,
    releaseNamespace: config.releaseNamespace,
    ...(ws.status?.targetNodeCount ? { targetNodeCount: ws.status.targetNodeCount } : {}),
    ...(override ? { volumeKindOverride: override } : {}),
    // Revision numbers count only our own revisions: a look-alike must not make ours 12 instead of 1.
    controllerRevisions: ownedRevisions(ws, snap.revisions),
    ...podNodePinning(ws, provisionerOf(config)),
    ...(snap.hubModels ? { hubModels: snap.hubModels } : {}),
    legacyNames,
    skuTable,
    ...(served.length ? { liveServedModelNames: served } : {}),
  };
}
