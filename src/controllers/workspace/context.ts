// Everything the workspace reconciler depends on, injected (no module-level clients or loggers).
import type {
  EventsV1Event,
  V1EndpointSlice,
  KubernetesObject,
  V1ConfigMap,
  V1ControllerRevision,
  V1Deployment,
  V1Job,
  V1Node,
  V1PersistentVolume,
  V1PersistentVolumeClaim,
  V1Pod,
  V1Service,
  V1StatefulSet,
  V1StorageClass,
} from '@kubernetes/client-node';
import type { NodeClaim } from '../../builders/nodeclaim.js';
import type { NodePool } from '../../builders/nodepool.js';
import type { FeatureGates } from '../../api/feature-gates.js';
import { DEFAULT_LEGACY_PRESETS, type KaitoGeneration } from '../../api/legacy-presets.js';
import type { NodeProvisioner } from '../../api/node-provisioner.js';
import type { NodeClassConfig } from '../../api/node-class-config.js';
import type { Workspace } from '../../api/types.js';
import type { UpdateStrategy } from '../../api/update-strategy.js';
import type { CloudProvider } from '../../catalog/types.js';
import type { ClusterFacts } from '../../builders/facts.js';
import type { CacheReader, ObjectCache } from '../../runtime/cache.js';
import type { KubeClient } from '../../runtime/client.js';
import type { EventRecorder } from '../../runtime/events.js';
import type { Logger } from '../../runtime/log.js';
import type { HubModels } from './hub-models.js';

export interface OperatorConfig {
  featureGates: FeatureGates;
  /** Absent: from the gate (byo when disableNodeAutoProvisioning, else NodeClaims), see provisionerOf. */
  nodeProvisioner?: NodeProvisioner;
  /** Karpenter mode: the NodeClass kind and the classes a workspace may name. */
  nodeClasses?: NodeClassConfig;
  cloudProvider: CloudProvider;
  presetRegistry: string;
  /** Namespace of the default `inference-params-template` ConfigMap. */
  releaseNamespace: string;
  /** Node auto-provisioning: how long a NodeClaim may stay not Ready before the condition says so. */
  nodeProvisioningTimeoutMs: number;
  /** How a serving pod is replaced when its template changes, unless the workspace's annotation says (absent: SurgeIfCapacity). */
  defaultUpdateStrategy?: UpdateStrategy;
  /** `--legacy-presets`: the KAITO release new workloads of legacy short names are rendered as (absent: v0.12). */
  legacyPresets?: KaitoGeneration;
}

export type WorkspaceObject = Workspace & KubernetesObject;

/** The kinds the workspace controller caches, by cache name. */
export interface WorkspaceKinds {
  workspaces: WorkspaceObject;
  statefulSets: V1StatefulSet;
  deployments: V1Deployment;
  services: V1Service;
  controllerRevisions: V1ControllerRevision;
  pods: V1Pod;
  nodes: V1Node;
  storageClasses: V1StorageClass;
  configMaps: V1ConfigMap;
  /** Only the weights claims of workspaces (label kaito.sh/workspace). */
  persistentVolumeClaims: V1PersistentVolumeClaim;
  /** To tell whether a weights claim's local volume still has a node. */
  persistentVolumes: V1PersistentVolume;
  /** Jobs (every one: a foreign Job named like a tuning workspace is reported, never touched). */
  jobs: V1Job;
  /** Secrets by metadata only (PartialObjectMetadata, no annotations): never a value. */
  secrets: KubernetesObject;
  /** Only FailedCreate Events regarding StatefulSets. */
  failedCreateEvents: EventsV1Event;
  /** Only with node auto-provisioning on: claims labelled for a workspace (gpu-provisioner's, and legacy ones in Karpenter mode). */
  nodeClaims?: NodeClaim;
  /** Karpenter mode: the NodePools labelled for a workspace, the claims Karpenter made for them, the NodeClasses. */
  nodePools?: NodePool;
  poolClaims?: NodeClaim;
  nodeClasses?: KubernetesObject;
  /** EndpointSlices reduced to their Service and serving pods (cache-transforms.ts): what a Service really selects. */
  endpointSlices?: V1EndpointSlice;
}

/** The caches as the snapshot, the mappers and the reconciler read them: every object deep-readonly. */
export type WorkspaceCaches = { readonly [K in keyof WorkspaceKinds]: CacheReader<NonNullable<WorkspaceKinds[K]>> };

/** The same caches, writable: held by the reflectors (their source) and the executor's write-through only. */
export type WorkspaceStores = { readonly [K in keyof WorkspaceKinds]: ObjectCache<NonNullable<WorkspaceKinds[K]>> };

export interface WorkspaceDeps {
  client: KubeClient;
  /** Writable only so the reconciler can hand them to the executor; everything else reads them as `WorkspaceCaches`. */
  caches: WorkspaceStores;
  recorder: EventRecorder;
  log: Logger;
  config: OperatorConfig;
  now: () => Date;
  /** Node auto-provisioning only: is the CRD it writes (NodeClaim, or NodePool in Karpenter mode) served? undefined = not known yet. */
  provisioningCrdInstalled: () => boolean | undefined;
  /**
   * Node auto-provisioning only: has every cache of provisioned nodes (NodeClaims, and NodePools and
   * their claims in Karpenter mode) listed once, or found its CRD absent? Until then an empty cache
   * proves nothing, and a deleted workspace keeps its finalizer. Absent: settled.
   */
  provisioningSettled?: () => boolean;
  /** The operator's --namespace: the only namespace whose workspaces' nodes it may judge orphaned. */
  namespace?: string;
  /** Hugging Face metadata of model ids outside KAITO's catalog; absent: such ids stay `resolving`. */
  hubModels?: HubModels;
}

/** The configuration the operator runs with, from facts (gates and catalogs) outside a running operator: `render`, benchmarks, tests. */
export function operatorConfigOf(
  facts: Pick<ClusterFacts, 'featureGates' | 'cloudProvider' | 'presetRegistry' | 'releaseNamespace' | 'legacyNames'>,
  nodeProvisioningTimeoutMs: number,
): OperatorConfig {
  const { featureGates, cloudProvider, presetRegistry, releaseNamespace, legacyNames } = facts;
  return { featureGates, cloudProvider, presetRegistry, releaseNamespace, nodeProvisioningTimeoutMs, ...(legacyNames ? { legacyPresets: legacyNames } : {}) };
}

/** The setting, with its default. */
export function legacyPresetsOf(config: Pick<OperatorConfig, 'legacyPresets'>): KaitoGeneration {
  return config.legacyPresets ?? DEFAULT_LEGACY_PRESETS;
}

/** Who makes nodes: the flag's value, or the gate's when the flag was not given. */
export function provisionerOf(config: Pick<OperatorConfig, 'nodeProvisioner' | 'featureGates'>): NodeProvisioner {
  return config.nodeProvisioner ?? (config.featureGates.disableNodeAutoProvisioning ? 'byo' : 'azure-gpu-provisioner');
}
