// Wires the workspace controller (controller-runtime's SetupWithManager): one reflector per kind
// the reconciler reads, and the mappers that turn a change of any of them into workspace keys.
import type {
  EventsV1Event,
  KubernetesObject,
  V1EndpointSlice,
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
import { isDeepStrictEqual } from 'node:util';
import {
  DEFAULT_INFERENCE_CONFIG_TEMPLATE,
  LABEL_KARPENTER_WORKSPACE_NAME,
  LABEL_KARPENTER_WORKSPACE_NAMESPACE,
  LABEL_REVISION_WORKSPACE_NAME,
  LABEL_WORKSPACE_NAME,
  LABEL_WORKSPACE_NAMESPACE,
  RESOURCE_NVIDIA_GPU,
} from '../../api/labels.js';
import type { NodeClaim } from '../../builders/nodeclaim.js';
import type { NodePool } from '../../builders/nodepool.js';
import { nodePressures } from './node-pressure.js';
import {
  LABEL_SERVICE_NAME,
  leanEndpointSlice,
  leanNode,
  leanObject,
  leanPod,
  leanRevision,
  leanStatefulSet,
  leanWorkspace,
  servingPodsOf,
} from './cache-transforms.js';
import { defaultTuningTemplate, tuningMethod } from '../../api/tuning-config.js';
import { matchesSelector } from '../../runtime/label-selector.js';
import { keyOf, type CacheReader, type ObjectEvent } from '../../runtime/cache.js';
import type { KubeClient } from '../../runtime/client.js';
import { ControllerBuilder, resource } from '../../runtime/builder.js';
import type { Controller } from '../../runtime/controller.js';
import { isNotFound } from '../../runtime/errors.js';
import type { EventRecorder } from '../../runtime/events.js';
import { watchFailureLog, type Logger } from '../../runtime/log.js';
import { enqueueLabelled, enqueueOwner, generationOrLabelsChanged, type Mapper } from '../../runtime/mappers.js';
import type { DeepReadonly } from '../../runtime/readonly.js';
import type { Reflector } from '../../runtime/reflector.js';
import { objectKey, Resources } from '../../runtime/resources.js';
import { provisionerOf, type OperatorConfig, type WorkspaceCaches, type WorkspaceObject } from './context.js';
import { modelAccessSecretOf } from './model-secret.js';
import { FAILED_CREATE_FIELD_SELECTOR } from './pod-creation.js';
import { planErrorPolicy } from '../shared/actions.js';
import { nodeClassResource } from './karpenter-provision.js';
import { WorkspaceReconciler } from './reconciler.js';
import { podChangeMatters, podReadinessChanged } from './pod-problems.js';
import { HubModels } from './hub-models.js';
import { resolveHubEndpoint } from '../../runtime/hub-client.js';

export interface WorkspaceControllerOptions {
  client: KubeClient;
  recorder: EventRecorder;
  log: Logger;
  config: OperatorConfig;
  maxConcurrentReconciles?: number;
  /** Passes that may wait for the QPS budget without a worker (ReconcileContext.release). */
  maxReleasedPasses?: number;
  /** Watch workspaces (and their children) in this namespace only; all namespaces otherwise. */
  namespace?: string;
  /** Every workspace is enqueued again this often (--sync-period); never when absent. */
  syncPeriodMs?: number;
  now?: () => Date;
  /** Hugging Face endpoint for model ids outside KAITO's catalog (default: HF_ENDPOINT, else huggingface.co). */
  hubEndpoint?: string;
}

export interface WorkspaceController {
  controller: Controller;
  caches: WorkspaceCaches;
  reflectors: Reflector<KubernetesObject>[];
  /** The reflectors readiness waits for (not the optional NodeClaim watch, which may never sync). */
  required: Reflector<KubernetesObject>[];
  reconciler: WorkspaceReconciler;
}

export function setupWorkspaceController(o: WorkspaceControllerOptions): WorkspaceController {
  const karpenter = provisionerOf(o.config) === 'karpenter';
  const watchFailure = watchFailureLog(o.log);
  const built = new ControllerBuilder({
    client: o.client,
    namespace: o.namespace,
    transform: leanObject,
    onWatchError: (type, err) => watchFailure(type.plural, err.message),
  })
    .for('workspaces', resource<WorkspaceObject>(Resources.workspaces), { transform: leanWorkspace })
    // Indexed by workspace label: a pass lists its surge StatefulSets and weights claims by it, not the whole namespace.
    .owns('statefulSets', resource<V1StatefulSet>(Resources.statefulSets), { lane: 'fast', transform: leanStatefulSet, indexLabel: LABEL_WORKSPACE_NAME })
    // Any Deployment named like a workspace matters: owned ones migrate, foreign ones are reported.
    .watches('deployments', resource<V1Deployment>(Resources.deployments), { map: (c) => sameNameWorkspace(c.workspaces) })
    .owns('services', resource<V1Service>(Resources.services))
    .owns('controllerRevisions', resource<V1ControllerRevision>(Resources.controllerRevisions), {
      transform: leanRevision,
      indexLabel: LABEL_REVISION_WORKSPACE_NAME,
    })
    // Only pods of workspaces: a cluster's other pods are none of our business (and memory).
    // Children's progress (a pod turned Ready, a rollout observed) is what status reports: the fast lane.
    .watches('pods', resource<V1Pod>(Resources.pods), {
      labelSelector: LABEL_WORKSPACE_NAME,
      transform: leanPod,
      indexLabel: LABEL_WORKSPACE_NAME,
      lane: 'fast',
      when: podChangeMatters,
      // A pod that turned Ready (or stopped) also hurries its workspace's deferred writes (runtime.md).
      urgentWhen: podReadinessChanged,
      map: () => labelledWorkspace,
    })
    // The weights claims carry the template's workspace label: a claim stranded on a vanished node is noticed.
    .watches('persistentVolumeClaims', resource<V1PersistentVolumeClaim>(Resources.persistentVolumeClaims), {
      labelSelector: LABEL_WORKSPACE_NAME,
      indexLabel: LABEL_WORKSPACE_NAME,
      map: () => labelledWorkspace,
    })
    .watches('persistentVolumes', resource<V1PersistentVolume>(Resources.persistentVolumes), {
      when: volumeGoing,
      map: (c) => claimantWorkspace(c.persistentVolumeClaims),
    })
    .watches('nodes', resource<V1Node>(Resources.nodes), { transform: leanNode, when: nodeChangeMatters, map: (c) => workspacesSelectingNode(c.workspaces) })
    // A StorageClass only matters to workspaces still deciding their volume: every one, cheaply.
    .watches('storageClasses', resource<V1StorageClass>(Resources.storageClasses), { map: (c) => workspacesDecidingVolume(c.workspaces, c.statefulSets) })
    .watches('configMaps', resource<V1ConfigMap>(Resources.configMaps), { map: (c) => configMapToWorkspaces(c.workspaces) })
    // Every Job, like StatefulSets: a Job named like a tuning workspace but not ours must be seen to be left alone.
    .owns('jobs', resource<V1Job>(Resources.jobs), { lane: 'fast' })
    // Metadata only: no Secret value is ever held (model-secret.ts), yet a late Secret is seen at once.
    .watches('secrets', resource(Resources.secrets), { metadataOnly: true, map: (c) => secretToWorkspaces(c.workspaces) })
    // What the main Service really routes to (update-plan.ts: a surge cut-over waits for it). Lean: the
    // Service name and each endpoint's pod and conditions; a slice of another Service maps to no workspace.
    .watches('endpointSlices', resource<V1EndpointSlice>(Resources.endpointSlices), {
      transform: leanEndpointSlice,
      indexLabel: LABEL_SERVICE_NAME,
      when: servingChanged,
      map: (c) => servedWorkspace(c.workspaces),
    })
    // Only the StatefulSet controller's FailedCreate Events: why pods are missing (pod-creation.ts).
    .watches('failedCreateEvents', resource<EventsV1Event>(Resources.events), {
      fieldSelector: FAILED_CREATE_FIELD_SELECTOR,
      map: (c) => failedCreateWorkspace(c.statefulSets),
    })
    // Node auto-provisioning only. Optional: the operator starts without the NodeClaim CRD and picks it up later.
    .gated(!o.config.featureGates.disableNodeAutoProvisioning, (b) =>
      b.watches('nodeClaims', resource<NodeClaim>(Resources.nodeClaims), {
        labelSelector: LABEL_WORKSPACE_NAME,
        required: false,
        when: claimChanged,
        map: () => claimToWorkspace,
      }),
    )
    // Karpenter mode: the NodePools and the claims Karpenter makes for them carry our workspace labels.
    .gated(karpenter, (b) =>
      b
        .watches('nodePools', resource<NodePool>(Resources.nodePools), {
          labelSelector: LABEL_KARPENTER_WORKSPACE_NAME,
          required: false,
          map: () => poolToWorkspace,
        })
        .watches('poolClaims', resource<NodeClaim>(Resources.nodeClaims), {
          labelSelector: LABEL_KARPENTER_WORKSPACE_NAME,
          required: false,
          when: claimChanged,
          map: () => poolToWorkspace,
        })
        // Rare events: every workspace still waiting for nodes may be waiting for this class.
        .watches('nodeClasses', resource<KubernetesObject>(nodeClassResource(o.config.nodeClasses)), {
          required: false,
          map: (c) => workspacesWithoutWorkload(c.workspaces, c.statefulSets),
        }),
    )
    .build({
      name: 'workspace',
      reconcile: (key, ctx) => reconciler.reconcile(key, ctx),
      errorPolicy: planErrorPolicy,
      maxConcurrentReconciles: o.maxConcurrentReconciles,
      ...(o.maxReleasedPasses !== undefined ? { maxReleasedPasses: o.maxReleasedPasses } : {}),
      log: o.log,
      ...(o.syncPeriodMs ? { resync: { periodMs: o.syncPeriodMs, keys: () => caches.workspaces.keys() } } : {}),
    });
  const { controller, caches, reflectors, required } = built;
  // What the provisioner writes: NodeClaims, or NodePools in Karpenter mode.
  const provisioningSource = karpenter ? built.sources.nodePools : built.sources.nodeClaims;
  const nodeClasses = built.sources.nodeClasses;
  // Every cache of provisioned nodes a deletion reads.
  const nodeSources = [built.sources.nodeClaims, built.sources.nodePools, built.sources.poolClaims].filter((r) => r !== undefined);
  // Hub metadata arrives in the background: the workspaces that asked are enqueued then.
  const hubModels = new HubModels({ endpoint: o.hubEndpoint ?? resolveHubEndpoint(undefined), notify: (keys) => keys.forEach((k) => controller.enqueue(k)) });
  const reconciler = new WorkspaceReconciler({
    hubModels,
    client: o.client,
    caches,
    recorder: o.recorder,
    log: o.log,
    config: o.config,
    now: o.now ?? (() => new Date()),
    provisioningCrdInstalled: () => (provisioningSource ? crdServed(provisioningSource) : undefined),
    provisioningSettled: () => nodeSources.every((r) => crdServed(r) !== undefined),
    ...(o.namespace ? { namespace: o.namespace } : {}),
  });
  // A CRD installed after start (or a node cache listing after the workers started): every waiting workspace goes on, without a restart.
  for (const source of [...nodeSources, nodeClasses]) if (source) void source.synced.then(() => caches.workspaces.keys().forEach((k) => controller.enqueue(k)));
  return { controller, caches, reflectors, required, reconciler };
}

/**
 * A StorageClass matters only to preset workspaces that have no StatefulSet yet: a live one keeps its
 * weights volume (claim templates are immutable) and a template never uses the NVMe class. Mapping
 * every workspace made each class change cost a pass, and a refused request, per failing workspace.
 */
export function workspacesDecidingVolume(
  workspaces: Pick<CacheReader<WorkspaceObject>, 'list'>,
  statefulSets: Pick<CacheReader<V1StatefulSet>, 'get'>,
): Mapper<V1StorageClass> {
  return workspacesWithoutWorkload(workspaces, statefulSets, (ws) => !!ws.inference?.preset);
}

/** A Deployment (any object) named like a workspace: that workspace. */
export const sameNameWorkspace =
  (workspaces: Pick<CacheReader<KubernetesObject>, 'getByKey'>): Mapper =>
  (e) => {
    const key = keyOf(e.obj);
    return workspaces.getByKey(key) ? [key] : [];
  };

/** A volume starts going away (its node is gone): the workspace whose claim it holds. */
export function volumeGoing(e: ObjectEvent<KubernetesObject>): boolean {
  return e.type === 'delete' || (e.type === 'update' && !e.old.metadata?.deletionTimestamp && !!e.obj.metadata?.deletionTimestamp);
}

export function claimantWorkspace(claims: CacheReader<V1PersistentVolumeClaim>): Mapper<V1PersistentVolume> {
  return (e) => {
    const ref = e.obj.spec?.claimRef;
    const claim = ref?.name ? claims.get(ref.namespace, ref.name) : undefined;
    const name = claim?.metadata?.labels?.[LABEL_WORKSPACE_NAME];
    return name ? [objectKey(ref?.namespace, name)] : [];
  };
}

/** Pods and weights claims name their workspace in the kaito.sh/workspace label (same namespace). */
export const labelledWorkspace: Mapper = (e) => {
  const name = e.obj.metadata?.labels?.[LABEL_WORKSPACE_NAME];
  return name ? [objectKey(e.obj.metadata?.namespace, name)] : [];
};

export function workspacesSelectingNode(workspaces: CacheReader<WorkspaceObject>): Mapper<V1Node> {
  return (e) => {
    const labels = [e.obj.metadata?.labels, e.type === 'update' ? e.old.metadata?.labels : undefined];
    return workspaces
      .list()
      .filter((ws) => labels.some((l) => l && matchesSelector({ matchLabels: ws.resource?.labelSelector?.matchLabels ?? {} }, l)))
      .map(keyOf);
  };
}

/** Node heartbeats change status every few seconds; only labels, spec, Ready and pressure flips and GPU capacity (the device plugin) matter. */
export function nodeChangeMatters(e: ObjectEvent<V1Node>): boolean {
  if (e.type !== 'update') return true;
  const ready = (n: DeepReadonly<V1Node>) => n.status?.conditions?.find((c) => c.type === 'Ready')?.status;
  const gpus = (n: DeepReadonly<V1Node>) => n.status?.capacity?.[RESOURCE_NVIDIA_GPU];
  return (
    generationOrLabelsChanged(e) ||
    ready(e.old) !== ready(e.obj) ||
    nodePressures(e.old).join() !== nodePressures(e.obj).join() ||
    gpus(e.old) !== gpus(e.obj) ||
    !!e.old.spec?.unschedulable !== !!e.obj.spec?.unschedulable
  );
}

/** A claim names its workspace in labels (claims are cluster-scoped: no owner reference). */
export const claimToWorkspace = enqueueLabelled(LABEL_WORKSPACE_NAME, LABEL_WORKSPACE_NAMESPACE);

/** Served once synced; known absent when the list said 404; unknown before either. */
function crdServed(r: Pick<Reflector<KubernetesObject>, 'hasSynced' | 'lastError'>): boolean | undefined {
  return r.hasSynced ? true : r.lastError && isNotFound(r.lastError) ? false : undefined;
}

/** A NodePool or a claim Karpenter made names its workspace in our template labels (cluster-scoped: no owner reference). */
export const poolToWorkspace = enqueueLabelled(LABEL_KARPENTER_WORKSPACE_NAME, LABEL_KARPENTER_WORKSPACE_NAMESPACE);

/** Workspaces (of a kind) that have no StatefulSet yet: the ones a cluster-wide change can still steer. */
export function workspacesWithoutWorkload<T extends KubernetesObject = KubernetesObject>(
  workspaces: Pick<CacheReader<WorkspaceObject>, 'list'>,
  statefulSets: Pick<CacheReader<V1StatefulSet>, 'get'>,
  which: (ws: DeepReadonly<WorkspaceObject>) => boolean = (ws) => !ws.tuning,
): Mapper<T> {
  return () =>
    workspaces
      .list()
      .filter((ws) => which(ws) && !statefulSets.get(ws.metadata.namespace, ws.metadata.name ?? ''))
      .map(keyOf);
}

/** KAITO's predicate: an update that only moves status.lastPodEventTime is noise. */
export function claimChanged(e: ObjectEvent<NodeClaim>): boolean {
  if (e.type !== 'update') return true;
  const strip = (c: DeepReadonly<NodeClaim>) => ({
    ...c,
    metadata: { ...c.metadata, resourceVersion: undefined },
    status: { ...c.status, lastPodEventTime: undefined },
  });
  return !isDeepStrictEqual(strip(e.old), strip(e.obj));
}

/** The workspaces reading this ConfigMap: their inference config (or the default template), or their tuning config. */
export function configMapToWorkspaces(workspaces: CacheReader<WorkspaceObject>): Mapper {
  return (e) => {
    const ns = e.obj.metadata?.namespace;
    const name = e.obj.metadata?.name;
    return workspaces
      .list({ namespace: ns })
      .filter((ws) => (ws.tuning ? tuningConfigName(ws) : ws.inference?.config || DEFAULT_INFERENCE_CONFIG_TEMPLATE) === name)
      .map(keyOf);
  };
}

/** The workspaces whose model-access Secret this is. */
export function secretToWorkspaces(workspaces: CacheReader<WorkspaceObject>): Mapper {
  return (e) =>
    workspaces
      .list({ namespace: e.obj.metadata?.namespace })
      .filter((ws) => modelAccessSecretOf(ws) === e.obj.metadata?.name)
      .map(keyOf);
}

/** A FailedCreate Event regarding a StatefulSet: the workspace controlling that StatefulSet. */
export function failedCreateWorkspace(statefulSets: CacheReader<V1StatefulSet>): Mapper<EventsV1Event> {
  const owner = enqueueOwner('Workspace', 'kaito.sh');
  return (e) => {
    const sts = e.obj.regarding?.name ? statefulSets.get(e.obj.regarding.namespace, e.obj.regarding.name) : undefined;
    return sts ? owner({ type: 'add', obj: sts }) : [];
  };
}

/** The ConfigMap a tuning workspace reads: its own, or the method's template. */
function tuningConfigName(ws: DeepReadonly<WorkspaceObject>): string | undefined {
  const method = tuningMethod(ws.tuning?.method);
  return ws.tuning?.config || (method ? defaultTuningTemplate(method) : undefined);
}

/**
 * A slice's serving pods moved: a new or deleted slice only when it lists one (a Service's first, empty
 * slice wakes nobody), an update only when the list changed (the endpoints controller rewrites slices often).
 */
export function servingChanged(e: ObjectEvent<V1EndpointSlice>): boolean {
  if (e.type !== 'update') return servingPodsOf([e.obj]).length > 0;
  return servingPodsOf([e.old]).join() !== servingPodsOf([e.obj]).join();
}

/** A slice of the main Service of a workspace (the Service is named like the workspace): that workspace. */
export function servedWorkspace(workspaces: Pick<CacheReader<WorkspaceObject>, 'getByKey'>): Mapper<V1EndpointSlice> {
  return (e) => {
    const service = e.obj.metadata?.labels?.[LABEL_SERVICE_NAME];
    const key = service ? objectKey(e.obj.metadata?.namespace, service) : '';
    return key && workspaces.getByKey(key) ? [key] : [];
  };
}
