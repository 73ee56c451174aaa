// Everything the workspace reconciler depends on, injected (no module-level clients or loggers).
import type { EventsV1Event, KubernetesObject, V1ConfigMap, V1ControllerRevision, V1Deployment, V1Job, V1Node, V1PersistentVolume, V1PersistentVolumeClaim, V1Pod, V1Service, V1StatefulSet, V1StorageClass } from '@kubernetes/client-node';
import type { NodeClaim } from '../../builders/nodeclaim.js';
import type { FeatureGates } from '../../api/feature-gates.js';
import type { Workspace } from '../../api/types.js';
import type { CloudProvider } from '../../catalog/types.js';
import type { ObjectCache } from '../../runtime/cache.js';
import type { KubeClient } from '../../runtime/client.js';
import type { EventRecorder } from '../../runtime/events.js';
import type { Logger } from '../../runtime/log.js';

export interface OperatorConfig {
  featureGates: FeatureGates;
  cloudProvider: CloudProvider;
  presetRegistry: string;
  /** Namespace of the default `inference-params-template` ConfigMap. */
  releaseNamespace: string;
  /** Node auto-provisioning: how long a NodeClaim may stay not Ready before the condition says so. */
  nodeProvisioningTimeoutMs: number;
}

export type WorkspaceObject = Workspace & KubernetesObject;

export interface WorkspaceCaches {
  workspaces: ObjectCache<WorkspaceObject>;
  statefulSets: ObjectCache<V1StatefulSet>;
  deployments: ObjectCache<V1Deployment>;
  services: ObjectCache<V1Service>;
  controllerRevisions: ObjectCache<V1ControllerRevision>;
  pods: ObjectCache<V1Pod>;
  nodes: ObjectCache<V1Node>;
  storageClasses: ObjectCache<V1StorageClass>;
  configMaps: ObjectCache<V1ConfigMap>;
  /** Only the weights claims of workspaces (label kaito.sh/workspace). */
  persistentVolumeClaims: ObjectCache<V1PersistentVolumeClaim>;
  /** To tell whether a weights claim's local volume still has a node. */
  persistentVolumes: ObjectCache<V1PersistentVolume>;
  /** Jobs (every one: a foreign Job named like a tuning workspace is reported, never touched). */
  jobs: ObjectCache<V1Job>;
  /** Secrets by metadata only (PartialObjectMetadata, no annotations): never a value. */
  secrets: ObjectCache<KubernetesObject>;
  /** Only FailedCreate Events regarding StatefulSets. */
  failedCreateEvents: ObjectCache<EventsV1Event>;
  /** Only with node auto-provisioning on. */
  nodeClaims?: ObjectCache<NodeClaim>;
}

export interface WorkspaceDeps {
  client: KubeClient;
  caches: WorkspaceCaches;
  recorder: EventRecorder;
  log: Logger;
  config: OperatorConfig;
  now: () => Date;
  /** Node auto-provisioning only: is the karpenter.sh NodeClaim CRD served? undefined = not known yet. */
  nodeClaimCrdInstalled: () => boolean | undefined;
}
