// What the builders know about the cluster: everything the operator observed (from its caches) or
// `kaito-ts render --state` read from a file. Plain data, so the builders stay pure; read-only, since
// the operator's facts are its cached (frozen) objects.
import type { V1ConfigMap, V1ControllerRevision, V1Node } from '@kubernetes/client-node';
import type { NodePinning } from './scheduling.js';
import { DEFAULT_FEATURE_GATES, type FeatureGates } from '../api/feature-gates.js';
import { DEFAULT_CLOUD_PROVIDER } from '../catalog/gpu-skus.js';
import { DEFAULT_PRESET_REGISTRY } from '../catalog/presets.js';
import type { HubModelState } from '../catalog/model-generator.js';
import type { CloudProvider } from '../catalog/types.js';
import type { KaitoGeneration } from '../api/legacy-presets.js';
import type { Workspace } from '../api/types.js';
import { resolveWorkspace, type ResolvedWorkspace } from '../api/resolved-workspace.js';
import { isReady as hasReadyCondition } from '../runtime/conditions.js';
import { LABEL_HOSTNAME } from '../api/labels.js';
import type { DeepReadonly } from '../runtime/readonly.js';
import { perFrozenList } from '../runtime/memo.js';
import { byMetadataName } from '../runtime/order.js';

export type WeightsVolumeKind = 'nvme' | 'emptyDir';

export interface ClusterFacts {
  /** Names of the StorageClasses that exist (cluster-scoped). */
  storageClassNames: readonly string[];
  /** Nodes of the cluster (the builders pick those matching the workspace's labelSelector). */
  nodes: readonly DeepReadonly<V1Node>[];
  /** ConfigMaps that may be the inference config: in the workspace namespace and the release namespace. */
  configMaps: readonly DeepReadonly<V1ConfigMap>[];
  /** Secret names in the workspace namespace, when known (undefined = not observed, nothing is checked). */
  secretNames?: readonly string[];
  featureGates: FeatureGates;
  cloudProvider: CloudProvider;
  /** Registry of the base image and weight artifacts (`PRESET_REGISTRY_NAME`). */
  presetRegistry: string;
  /** Namespace holding the default `inference-params-template`. */
  releaseNamespace: string;
  /** `status.targetNodeCount` when already set (set-once); otherwise the estimator decides. */
  targetNodeCount?: number;
  /**
   * Shape of the StatefulSet that already exists: its claim templates are immutable, so a later revision
   * must keep the same weights volume kind even if the StorageClass appeared or vanished meanwhile (W17).
   */
  volumeKindOverride?: WeightsVolumeKind;
  /** The workspace's existing ControllerRevisions, for the revision number. */
  controllerRevisions?: readonly DeepReadonly<V1ControllerRevision>[];
  /** Node labels the provisioner puts on this workspace's nodes, required of its inference pods (Karpenter mode). */
  podNodePinning?: NodePinning;
  /** Hub metadata of Hugging Face ids outside KAITO v0.12's catalog, by lowercase id (absent: not read yet). */
  hubModels?: ReadonlyMap<string, HubModelState>;
  /**
   * The KAITO releases whose legacy short names and SKU table this workspace meets: `--legacy-presets`,
   * or what its live workload keeps (src/builders/generation.ts). Absent: the default, v0.12.
   */
  legacyNames?: KaitoGeneration;
  skuTable?: KaitoGeneration;
  /** The live StatefulSet's served model names: after a generation move the model still answers to them. */
  liveServedModelNames?: readonly string[];
}

export const DEFAULT_RELEASE_NAMESPACE = 'kaito-workspace';

/** An empty cluster with KAITO's defaults; override any field. */
export function defaultFacts(overrides: Partial<ClusterFacts> = {}): ClusterFacts {
  return {
    storageClassNames: [],
    nodes: [],
    configMaps: [],
    featureGates: DEFAULT_FEATURE_GATES,
    cloudProvider: DEFAULT_CLOUD_PROVIDER,
    presetRegistry: DEFAULT_PRESET_REGISTRY,
    releaseNamespace: DEFAULT_RELEASE_NAMESPACE,
    ...overrides,
  };
}

function isReady(node: DeepReadonly<V1Node>): boolean {
  if (node.metadata?.deletionTimestamp) return false;
  return hasReadyCondition(node);
}

/** Node lists already matched, by the labels, per list (a cache shares one frozen list until a node changes). */
const matchedByLabels = perFrozenList((_nodes: readonly object[]) => new Map<string, readonly object[]>());

/**
 * Nodes whose labels include every `matchLabels` entry, sorted by name (KAITO: list order). Memoized: every
 * pass of every workspace reads the same node list, and at 1000 nodes the filter and sort were most of a pass.
 */
export function matchingNodes<N extends DeepReadonly<V1Node>>(ws: Workspace, nodes: readonly N[]): readonly N[] {
  const want = Object.entries(ws.resource?.labelSelector?.matchLabels ?? {});
  const key = JSON.stringify(want);
  const byLabels = matchedByLabels(nodes);
  const hit = byLabels.get(key);
  if (hit) return hit as readonly N[];
  const out = Object.freeze(nodes.filter((n) => want.every(([k, v]) => n.metadata?.labels?.[k] === v)).sort(byMetadataName));
  byLabels.set(key, out);
  return out;
}

const readyOf = perFrozenList((nodes: readonly DeepReadonly<V1Node>[]) => Object.freeze(nodes.filter(isReady)));

/** Matching nodes that are Ready and not being deleted. */
export function readyMatchingNodes<N extends DeepReadonly<V1Node>>(ws: Workspace, nodes: readonly N[]): readonly N[] {
  return readyOf(matchingNodes(ws, nodes)) as readonly N[];
}

const withReadiness = perFrozenList((nodes: readonly DeepReadonly<V1Node>[]) => Object.freeze(nodes.map((node) => ({ node, ready: isReady(node) }))));

/** Every name and `kubernetes.io/hostname` label a node of the list answers to (a local volume names its node by the label). */
export const knownNodeNames = perFrozenList((nodes: readonly DeepReadonly<V1Node>[]): ReadonlySet<string> => {
  const known = new Set<string>();
  for (const n of nodes) {
    known.add(n.metadata?.name ?? '');
    const hostname = n.metadata?.labels?.[LABEL_HOSTNAME];
    if (hostname !== undefined) known.add(hostname);
  }
  return known;
});

/** The nodes' names, sorted (what status.workerNodes lists). */
export const sortedNames = perFrozenList((nodes: readonly DeepReadonly<V1Node>[]) => Object.freeze(nodes.map((n) => n.metadata?.name ?? '').sort()));

/** The workspace resolved from these facts: the one value validation and the builders of a pass share. */
export function resolveFromFacts(ws: Workspace, facts: ClusterFacts): ResolvedWorkspace {
  const gates = facts.featureGates;
  // Only bring-your-own nodes give GPU facts; auto-provisioned ones come from the SKU catalog.
  const nodes = gates.disableNodeAutoProvisioning ? withReadiness(matchingNodes(ws, facts.nodes)) : undefined;
  return resolveWorkspace(ws, {
    gates,
    cloud: facts.cloudProvider,
    ...(nodes ? { nodes } : {}),
    ...(facts.hubModels ? { hubModels: facts.hubModels } : {}),
    ...(facts.legacyNames ? { legacyNames: facts.legacyNames } : {}),
    ...(facts.skuTable ? { skuTable: facts.skuTable } : {}),
  });
}

export function findConfigMap(facts: Pick<ClusterFacts, 'configMaps'>, namespace: string, name: string): DeepReadonly<V1ConfigMap> | undefined {
  return facts.configMaps.find((cm) => cm.metadata?.name === name && (cm.metadata?.namespace ?? 'default') === namespace);
}

/** Kinds `factsFromObjects` understands (what `kaito-ts render --state` accepts). */
export const STATE_KINDS = ['StorageClass', 'Node', 'ConfigMap', 'Secret', 'ControllerRevision'] as const;

interface KubeObject {
  kind?: string;
  metadata?: { name?: string; namespace?: string };
}

/**
 * Facts from a list of cluster objects (a `--state` file, or a test). Secrets only contribute their name
 * in `namespace`; when the list holds no Secret at all, secrets are "not observed" (nothing is checked).
 * Throws on a kind it does not know, naming it.
 */
export function factsFromObjects(objects: readonly unknown[], namespace: string, base: ClusterFacts): ClusterFacts {
  const storageClassNames = [...base.storageClassNames];
  const nodes = [...base.nodes];
  const configMaps = [...base.configMaps];
  let secretNames = base.secretNames && [...base.secretNames];
  let controllerRevisions = base.controllerRevisions;
  for (const obj of objects as readonly KubeObject[]) {
    const name = obj.metadata?.name ?? '';
    switch (obj.kind) {
      case 'StorageClass':
        storageClassNames.push(name);
        break;
      case 'Node':
        nodes.push(obj);
        break;
      case 'ConfigMap':
        configMaps.push({ ...(obj as V1ConfigMap), metadata: { ...obj.metadata, namespace: obj.metadata?.namespace ?? 'default' } });
        break;
      case 'Secret':
        secretNames ??= [];
        if ((obj.metadata?.namespace ?? 'default') === namespace) secretNames.push(name);
        break;
      case 'ControllerRevision':
        controllerRevisions = [...(controllerRevisions ?? []), obj as V1ControllerRevision];
        break;
      default:
        throw new Error(`unsupported kind ${JSON.stringify(obj.kind ?? null)} (object ${JSON.stringify(name)}); expected one of ${STATE_KINDS.join(', ')}`);
    }
  }
  return { ...base, storageClassNames, nodes, configMaps, ...(secretNames ? { secretNames } : {}), ...(controllerRevisions ? { controllerRevisions } : {}) };
}
