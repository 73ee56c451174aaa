// Wires the workspace controller (controller-runtime's SetupWithManager): one reflector per kind
// the reconciler reads, and the mappers that turn a change of any of them into workspace keys.
import type { EventsV1Event, KubernetesObject, V1Job, V1Node, V1PersistentVolume, V1Pod } from '@kubernetes/client-node';
import { isDeepStrictEqual } from 'node:util';
import { DEFAULT_INFERENCE_CONFIG_TEMPLATE, LABEL_REVISION_WORKSPACE_NAME, LABEL_WORKSPACE_NAME, LABEL_WORKSPACE_NAMESPACE, RESOURCE_NVIDIA_GPU } from '../../api/labels.js';
import type { NodeClaim } from '../../builders/nodeclaim.js';
import { nodePressures } from './node-pressure.js';
import { leanNode, leanObject, leanPod, leanRevision } from './cache-transforms.js';
import { defaultTuningTemplate, tuningMethod } from '../../api/tuning-config.js';
import { matchesSelector } from '../../runtime/label-selector.js';
import { keyOf, type ObjectCache, type ObjectEvent } from '../../runtime/cache.js';
import type { KubeClient } from '../../runtime/client.js';
import { Controller } from '../../runtime/controller.js';
import { isNotFound } from '../../runtime/errors.js';
import type { EventRecorder } from '../../runtime/events.js';
import type { Logger } from '../../runtime/log.js';
import { enqueueOwner, enqueueSelf, generationOrLabelsChanged, when, type Mapper } from '../../runtime/mappers.js';
import { Reflector, type ReflectorOptions } from '../../runtime/reflector.js';
import { objectKey, Resources, type ResourceType } from '../../runtime/resources.js';
import type { OperatorConfig, WorkspaceCaches, WorkspaceObject } from './context.js';
import { modelAccessSecretOf } from './model-secret.js';
import { FAILED_CREATE_FIELD_SELECTOR } from './pod-creation.js';
import { workspaceErrorPolicy } from './failures.js';
import { WorkspaceReconciler } from './reconciler.js';

export interface WorkspaceControllerOptions {
  client: KubeClient;
  recorder: EventRecorder;
  log: Logger;
  config: OperatorConfig;
  maxConcurrentReconciles?: number;
  /** Watch workspaces (and their children) in this namespace only; all namespaces otherwise. */
  namespace?: string;
  /** Every workspace is enqueued again this often (--sync-period); never when absent. */
  syncPeriodMs?: number;
  now?: () => Date;
}

export interface WorkspaceController {
  controller: Controller;
  caches: WorkspaceCaches;
  reflectors: Reflector<KubernetesObject>[];
  reconciler: WorkspaceReconciler;
}

export function setupWorkspaceController(o: WorkspaceControllerOptions): WorkspaceController {
  const reflectors: Reflector<KubernetesObject>[] = [];
  const reflect = <T extends KubernetesObject>(type: ResourceType, extra: Pick<ReflectorOptions<T>, 'labelSelector' | 'fieldSelector' | 'metadataOnly' | 'cacheOptions'> = {}): Reflector<T> => {
    const scope = type.namespaced && o.namespace ? { namespace: o.namespace } : {};
    const r = new Reflector<T>({ client: o.client, type, ...scope, ...extra, cacheOptions: { transform: leanObject, ...extra.cacheOptions }, onError: (err) => o.log.error({ resource: type.plural, error: err.message }, 'watch failed; retrying') });
    reflectors.push(r as unknown as Reflector<KubernetesObject>);
    return r;
  };
  const r = {
    workspaces: reflect<WorkspaceObject>(Resources.workspaces),
    statefulSets: reflect(Resources.statefulSets),
    deployments: reflect(Resources.deployments),
    services: reflect(Resources.services),
    controllerRevisions: reflect(Resources.controllerRevisions, { cacheOptions: { transform: leanRevision, indexLabel: LABEL_REVISION_WORKSPACE_NAME } }),
    // Only pods of workspaces: a cluster's other pods are none of our business (and memory).
    pods: reflect<V1Pod>(Resources.pods, { labelSelector: LABEL_WORKSPACE_NAME, cacheOptions: { transform: leanPod, indexLabel: LABEL_WORKSPACE_NAME } }),
    // The weights claims carry the template's workspace label: a claim stranded on a vanished node is noticed.
    persistentVolumeClaims: reflect(Resources.persistentVolumeClaims, { labelSelector: LABEL_WORKSPACE_NAME }),
    persistentVolumes: reflect(Resources.persistentVolumes),
    nodes: reflect<V1Node>(Resources.nodes, { cacheOptions: { transform: leanNode } }),
    storageClasses: reflect(Resources.storageClasses),
    configMaps: reflect(Resources.configMaps),
    // Every Job, like StatefulSets: a Job named like a tuning workspace but not ours must be seen to be left alone.
    jobs: reflect<V1Job>(Resources.jobs),
    // Metadata only: no Secret value is ever held (model-secret.ts), yet a late Secret is seen at once.
    secrets: reflect(Resources.secrets, { metadataOnly: true }),
    // Only the StatefulSet controller's FailedCreate Events: why pods are missing (pod-creation.ts).
    failedCreateEvents: reflect<EventsV1Event>(Resources.events, { fieldSelector: FAILED_CREATE_FIELD_SELECTOR }),
  };
  // Node auto-provisioning only. Optional: the operator starts without the NodeClaim CRD and picks it up later.
  const nodeClaims = o.config.featureGates.disableNodeAutoProvisioning ? undefined : reflect<NodeClaim>(Resources.nodeClaims, { labelSelector: LABEL_WORKSPACE_NAME });

  const caches = Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v.cache])) as unknown as WorkspaceCaches;
  if (nodeClaims) caches.nodeClaims = nodeClaims.cache;
  const reconciler = new WorkspaceReconciler({
    client: o.client,
    caches,
    recorder: o.recorder,
    log: o.log,
    config: o.config,
    now: o.now ?? (() => new Date()),
    nodeClaimCrdInstalled: () => (nodeClaims ? (nodeClaims.hasSynced ? true : nodeClaims.lastError && isNotFound(nodeClaims.lastError) ? false : undefined) : undefined),
  });
  const controller = new Controller({
    name: 'workspace',
    reconcile: (key, ctx) => reconciler.reconcile(key, ctx.retries),
    errorPolicy: workspaceErrorPolicy,
    maxConcurrentReconciles: o.maxConcurrentReconciles,
    log: o.log,
    ...(o.syncPeriodMs ? { resync: { periodMs: o.syncPeriodMs, keys: () => r.workspaces.cache.keys() } } : {}),
  });

  const all = caches.workspaces as unknown as ObjectCache<KubernetesObject>;
  controller
    .watch(r.workspaces, enqueueSelf)
    .watch(r.statefulSets, enqueueOwner('Workspace', 'kaito.sh'))
    .watch(r.services, enqueueOwner('Workspace', 'kaito.sh'))
    .watch(r.controllerRevisions, enqueueOwner('Workspace', 'kaito.sh'))
    .watch(r.jobs, enqueueOwner('Workspace', 'kaito.sh'))
    // Any Deployment named like a workspace matters: owned ones migrate, foreign ones are reported.
    .watch(r.deployments, sameNameWorkspace(all))
    .watch(r.pods, labelledWorkspace)
    .watch(r.persistentVolumeClaims, labelledWorkspace)
    .watch(r.persistentVolumes, when(volumeGoing, claimantWorkspace(caches)))
    .watch(r.nodes, when(nodeChangeMatters, workspacesSelectingNode(caches.workspaces)))
    // A StorageClass only matters to workspaces still deciding their volume: every one, cheaply.
    .watch(r.storageClasses, () => all.keys())
    .watch(r.configMaps, configMapToWorkspaces(caches.workspaces))
    .watch(r.secrets, secretToWorkspaces(caches.workspaces))
    .watch(r.failedCreateEvents, (e) => {
      const sts = e.obj.regarding?.name ? caches.statefulSets.get(e.obj.regarding.namespace, e.obj.regarding.name) : undefined;
      return sts ? enqueueOwner('Workspace', 'kaito.sh')({ type: 'add', obj: sts }) : [];
    });
  if (nodeClaims) {
    controller.watch(nodeClaims, when(claimChanged, claimToWorkspace), { required: false });
    // A CRD installed after start: every waiting workspace goes on, without a restart.
    void nodeClaims.synced.then(() => all.keys().forEach((k) => controller.enqueue(k)));
  }
  return { controller, caches, reflectors, reconciler };
}

const sameNameWorkspace = (workspaces: ObjectCache<KubernetesObject>): Mapper => (e) => {
  const key = keyOf(e.obj);
  return workspaces.getByKey(key) ? [key] : [];
};

/** A volume starts going away (its node is gone): the workspace whose claim it holds. */
function volumeGoing(e: ObjectEvent<KubernetesObject>): boolean {
  return e.type === 'delete' || (e.type === 'update' && !e.old.metadata?.deletionTimestamp && !!e.obj.metadata?.deletionTimestamp);
}

function claimantWorkspace(caches: WorkspaceCaches): Mapper<V1PersistentVolume> {
  return (e) => {
    const ref = e.obj.spec?.claimRef;
    const claim = ref?.name ? caches.persistentVolumeClaims.get(ref.namespace, ref.name) : undefined;
    const name = claim?.metadata?.labels?.[LABEL_WORKSPACE_NAME];
    return name ? [objectKey(ref?.namespace, name)] : [];
  };
}

/** Pods and weights claims name their workspace in the kaito.sh/workspace label (same namespace). */
const labelledWorkspace: Mapper = (e) => {
  const name = e.obj.metadata?.labels?.[LABEL_WORKSPACE_NAME];
  return name ? [objectKey(e.obj.metadata?.namespace, name)] : [];
};

function workspacesSelectingNode(workspaces: ObjectCache<WorkspaceObject>): Mapper<V1Node> {
  return (e) => {
    const labels = [e.obj.metadata?.labels, e.type === 'update' ? e.old.metadata?.labels : undefined];
    return workspaces
      .list()
      .filter((ws) => labels.some((l) => l && matchesSelector({ matchLabels: ws.resource?.labelSelector?.matchLabels ?? {} }, l)))
      .map(keyOf);
  };
}

/** Node heartbeats change status every few seconds; only labels, spec, Ready and pressure flips and GPU capacity (the device plugin) matter. */
function nodeChangeMatters(e: ObjectEvent<V1Node>): boolean {
  if (e.type !== 'update') return true;
  const ready = (n: V1Node) => n.status?.conditions?.find((c) => c.type === 'Ready')?.status;
  const gpus = (n: V1Node) => n.status?.capacity?.[RESOURCE_NVIDIA_GPU];
  return (
    generationOrLabelsChanged(e) ||
    ready(e.old) !== ready(e.obj) ||
    nodePressures(e.old).join() !== nodePressures(e.obj).join() ||
    gpus(e.old) !== gpus(e.obj) ||
    !!e.old.spec?.unschedulable !== !!e.obj.spec?.unschedulable
  );
}

/** A claim names its workspace in labels (claims are cluster-scoped: no owner reference). */
const claimToWorkspace: Mapper<NodeClaim> = (e) => {
  const keys = [e.obj, e.type === 'update' ? e.old : undefined].map((c) => {
    const name = c?.metadata.labels[LABEL_WORKSPACE_NAME];
    const ns = c?.metadata.labels[LABEL_WORKSPACE_NAMESPACE];
    return name && ns ? objectKey(ns, name) : undefined;
  });
  return [...new Set(keys.filter((k): k is string => !!k))];
};

/** KAITO's predicate: an update that only moves status.lastPodEventTime is noise. */
function claimChanged(e: ObjectEvent<NodeClaim>): boolean {
  if (e.type !== 'update') return true;
  const strip = (c: NodeClaim) => ({ ...c, metadata: { ...c.metadata, resourceVersion: undefined }, status: { ...c.status, lastPodEventTime: undefined } });
  return !isDeepStrictEqual(strip(e.old), strip(e.obj));
}

function configMapToWorkspaces(workspaces: ObjectCache<WorkspaceObject>): Mapper {
  return (e) => {
    const ns = e.obj.metadata?.namespace;
    const name = e.obj.metadata?.name;
    return workspaces
      .list({ namespace: ns })
      .filter((ws) => (ws.tuning ? tuningConfigName(ws) : ws.inference?.config || DEFAULT_INFERENCE_CONFIG_TEMPLATE) === name)
      .map(keyOf);
  };
}

function secretToWorkspaces(workspaces: ObjectCache<WorkspaceObject>): Mapper {
  return (e) => workspaces.list({ namespace: e.obj.metadata?.namespace }).filter((ws) => modelAccessSecretOf(ws) === e.obj.metadata?.name).map(keyOf);
}

/** The ConfigMap a tuning workspace reads: its own, or the method's template. */
function tuningConfigName(ws: WorkspaceObject): string | undefined {
  const method = tuningMethod(ws.tuning?.method);
  return ws.tuning?.config || (method ? defaultTuningTemplate(method) : undefined);
}
