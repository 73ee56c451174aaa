// One read of everything a pass decides from: each cache is read once, here, and the plan
// (plan.ts) sees only this value. The two facts caches cannot hold (whether a model Secret has its
// HF_TOKEN key, whether tuning's Secrets exist) are looked up here too, so planning stays pure.
import type {
  EventsV1Event,
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
} from '@kubernetes/client-node';
import { LABEL_KARPENTER_NODEPOOL, LABEL_PREPULL, LABEL_REVISION_WORKSPACE_NAME, LABEL_SURGE, LABEL_WORKSPACE_NAME } from '../../api/labels.js';
import { LABEL_SERVICE_NAME, servingPodsOf, withTemplateWriters } from './cache-transforms.js';
import { ownedBy } from './ownership.js';
import { inferencePresetOf } from '../../api/resolved-workspace.js';
import { keptGeneration } from '../../builders/generation.js';
import { headlessServiceName } from '../../builders/meta.js';
import { nodeClaimSelector, type NodeClaim } from '../../builders/nodeclaim.js';
import { nodePoolNameOf, type NodePool } from '../../builders/nodepool.js';
import { ObjectCache } from '../../runtime/cache.js';
import { mutableCopy, type DeepReadonly } from '../../runtime/readonly.js';
import {
  legacyPresetsOf,
  provisionerOf,
  type OperatorConfig,
  type WorkspaceCaches,
  WorkspaceDeps,
  WorkspaceKinds,
  WorkspaceObject,
  WorkspaceStores,
} from './context.js';
import type { ObservedNodeClass } from './karpenter-plan.js';
import type { ModelSecrets, SecretProblem } from './model-secret.js';
import type { HubModels, TokenRef } from './hub-models.js';
import type { HubModelState } from '../../catalog/model-generator.js';

/** Node auto-provisioning as this pass sees it. */
export type ProvisioningMode = 'off' | 'on' | 'crdMissing' | 'crdUnknown';

/**
 * Everything but `ws` is what the caches hold, typed deep-readonly: a write into it is a compile
 * error (and, the objects being frozen, a TypeError at run time).
 */
export interface WorkspaceSnapshot {
  /** The pass's own copy (cached objects are frozen). */
  ws: WorkspaceObject;
  config: OperatorConfig;
  now: Date;
  /** Our field manager: a shared ConfigMap is ours only when it wrote it. */
  fieldManager: string;
  provisioning: ProvisioningMode;
  /** False while a cache of provisioned nodes has not listed yet (context.ts `provisioningSettled`): its emptiness proves nothing. */
  provisioningSettled?: boolean;
  nodes: readonly DeepReadonly<V1Node>[];
  storageClassNames: readonly string[];
  /** ConfigMaps of the workspace's namespace and of the release namespace. */
  configMaps: readonly DeepReadonly<V1ConfigMap>[];
  statefulSet?: DeepReadonly<V1StatefulSet>;
  /** Our surge StatefulSets of the workspace (update-plan.ts), and a lookup by name for foreign ones. */
  surgeSets: readonly DeepReadonly<V1StatefulSet>[];
  statefulSetNamed: (name: string) => DeepReadonly<V1StatefulSet> | undefined;
  /** Our image pre-pull Jobs of the workspace. */
  prepullJobs: readonly DeepReadonly<V1Job>[];
  /** Pods the main Service's EndpointSlices list as serving; undefined when not observed (diff, render). */
  servingPods?: readonly string[];
  deployment?: DeepReadonly<V1Deployment>;
  mainService?: DeepReadonly<V1Service>;
  headlessService?: DeepReadonly<V1Service>;
  /** ControllerRevisions labelled for the workspace (ours and look-alikes). */
  revisions: readonly DeepReadonly<V1ControllerRevision>[];
  /** The ControllerRevision of a name in the workspace's namespace, whoever made it. */
  revisionNamed: (name: string) => DeepReadonly<V1ControllerRevision> | undefined;
  /** Pods labelled for the workspace. */
  pods: readonly DeepReadonly<V1Pod>[];
  /** NodeClaims labelled for the workspace (node auto-provisioning on; in Karpenter mode, gpu-provisioner's legacy ones). */
  claims: readonly DeepReadonly<NodeClaim>[];
  /** Karpenter mode: the workspace's NodePool (by name, whoever made it) and the NodeClaims Karpenter made for it. */
  nodePool?: DeepReadonly<NodePool>;
  poolClaims: readonly DeepReadonly<NodeClaim>[];
  /** Karpenter mode: the NodeClasses of the configured kind. */
  nodeClasses: readonly DeepReadonly<ObservedNodeClass>[];
  /** Weights claims labelled for the workspace, and the volumes they are bound to. */
  weightsClaims: readonly DeepReadonly<V1PersistentVolumeClaim>[];
  volumes: readonly DeepReadonly<V1PersistentVolume>[];
  /** FailedCreate Events of the namespace. */
  failedCreateEvents: readonly DeepReadonly<EventsV1Event>[];
  job?: DeepReadonly<V1Job>;
  /** The model access Secret's problem, if any (inference presets that download at runtime). */
  secretProblem?: SecretProblem;
  /** What the hub metadata cache knows of the workspace's Hugging Face id outside the catalog. */
  hubModels?: ReadonlyMap<string, HubModelState>;
  /** Tuning: named pull/push Secrets that do not exist (looked up only while no Job exists). */
  missingSecrets: readonly string[];
  /** Other workspaces of the namespace, read only for a workspace being deleted (is the shared ConfigMap copy still used?). */
  namespaceWorkspaces: readonly DeepReadonly<WorkspaceObject>[];
}

function provisioningMode(deps: Pick<WorkspaceDeps, 'config' | 'provisioningCrdInstalled'>): ProvisioningMode {
  if (deps.config.featureGates.disableNodeAutoProvisioning) return 'off';
  const installed = deps.provisioningCrdInstalled();
  return installed === true ? 'on' : installed === false ? 'crdMissing' : 'crdUnknown';
}

export interface SnapshotSources {
  caches: WorkspaceCaches;
  config: OperatorConfig;
  fieldManager: string;
  now: Date;
  provisioningCrdInstalled: () => boolean | undefined;
}

/** The cache-only part of a snapshot (what `kaito-ts diff` and `render` fill from listed objects too). */
export function readSnapshot(ws: DeepReadonly<WorkspaceObject>, s: SnapshotSources): WorkspaceSnapshot {
  const { caches, config } = s;
  const ns = ws.metadata.namespace ?? 'default';
  const name = ws.metadata.name ?? '';
  const byWorkspace = { namespace: ns, selector: { matchLabels: { [LABEL_WORKSPACE_NAME]: name } } };
  const weightsClaims = caches.persistentVolumeClaims.list(byWorkspace);
  const volumes = weightsClaims.map((c) => (c.spec?.volumeName ? caches.persistentVolumes.get(undefined, c.spec.volumeName) : undefined)).filter((v) => !!v);
  const provisioning = provisioningMode(s);
  const own = mutableCopy<WorkspaceObject>(ws);
  return {
    ws: own,
    config,
    now: s.now,
    fieldManager: s.fieldManager,
    provisioning,
    nodes: caches.nodes.list(),
    storageClassNames: caches.storageClasses.keys(),
    configMaps: [
      ...caches.configMaps.list({ namespace: ns }),
      ...(config.releaseNamespace !== ns ? caches.configMaps.list({ namespace: config.releaseNamespace }) : []),
    ],
    statefulSet: caches.statefulSets.get(ns, name),
    surgeSets: caches.statefulSets.list(byWorkspace).filter((x) => !!x.metadata?.labels?.[LABEL_SURGE] && ownedBy(x, own)),
    statefulSetNamed: (stsName) => caches.statefulSets.get(ns, stsName),
    prepullJobs: caches.jobs.list({ namespace: ns }).filter((j) => !!j.metadata?.labels?.[LABEL_PREPULL] && ownedBy(j, own)),
    ...(caches.endpointSlices
      ? { servingPods: servingPodsOf(caches.endpointSlices.list({ namespace: ns, selector: { matchLabels: { [LABEL_SERVICE_NAME]: name } } })) }
      : {}),
    deployment: caches.deployments.get(ns, name),
    mainService: caches.services.get(ns, name),
    headlessService: caches.services.get(ns, headlessServiceName(ws)),
    revisions: caches.controllerRevisions.list({ namespace: ns, selector: { matchLabels: { [LABEL_REVISION_WORKSPACE_NAME]: name } } }),
    // Planning is synchronous: no event lands between this read and the plan's lookups.
    revisionNamed: (crName) => caches.controllerRevisions.get(ns, crName),
    pods: caches.pods.list(byWorkspace),
    claims: provisioning === 'on' ? (caches.nodeClaims?.list({ selector: { matchLabels: nodeClaimSelector(ws) } }) ?? []) : [],
    ...karpenterPart(ws, s),
    weightsClaims,
    volumes,
    failedCreateEvents: caches.failedCreateEvents.list({ namespace: ns }),
    job: caches.jobs.get(ns, name),
    missingSecrets: [],
    // Only deletion asks; every other pass would copy the namespace's whole list for nothing.
    namespaceWorkspaces: ws.metadata.deletionTimestamp ? caches.workspaces.list({ namespace: ns }) : [],
  };
}

/** The NodePool, its claims and the NodeClasses: read only in Karpenter mode. */
function karpenterPart(ws: DeepReadonly<WorkspaceObject>, s: SnapshotSources): Pick<WorkspaceSnapshot, 'nodePool' | 'poolClaims' | 'nodeClasses'> {
  const { caches } = s;
  if (provisionerOf(s.config) !== 'karpenter') return { poolClaims: [], nodeClasses: [] };
  const pool = nodePoolNameOf(ws);
  const nodePool = caches.nodePools?.get(undefined, pool);
  return {
    ...(nodePool ? { nodePool } : {}),
    poolClaims: caches.poolClaims?.list({ selector: { matchLabels: { [LABEL_KARPENTER_NODEPOOL]: pool } } }) ?? [],
    nodeClasses: (caches.nodeClasses?.list() ?? []) as readonly DeepReadonly<ObservedNodeClass>[],
  };
}

/** The whole snapshot of one pass: the caches, then the Secret facts (a GET per Secret version at most). */
export async function takeSnapshot(cached: DeepReadonly<WorkspaceObject>, deps: WorkspaceDeps, secrets: ModelSecrets): Promise<WorkspaceSnapshot> {
  const snap = readSnapshot(cached, {
    caches: deps.caches,
    config: deps.config,
    fieldManager: deps.client.fieldManager,
    now: deps.now(),
    provisioningCrdInstalled: deps.provisioningCrdInstalled,
  });
  const { ws } = snap;
  if (ws.metadata.deletionTimestamp) return deps.provisioningSettled ? { ...snap, provisioningSettled: deps.provisioningSettled() } : snap;
  if (ws.tuning) return snap.job ? snap : { ...snap, missingSecrets: missingTuningSecrets(ws, deps.caches) };
  // Resolved as the plan resolves it: a live workload keeps its generation's legacy names.
  const preset = inferencePresetOf(ws, undefined, keptGeneration(ws, snap.statefulSet, legacyPresetsOf(deps.config)).legacyNames);
  const secretProblem = await secrets.problem(ws, preset);
  const hub = preset.kind === 'resolving' && deps.hubModels ? hubPart(ws, preset.name, deps.hubModels, deps.caches, secrets) : undefined;
  return { ...snap, ...(secretProblem ? { secretProblem } : {}), ...(hub ? { hubModels: hub } : {}) };
}

/**
 * The cache's answer for a Hugging Face id outside the catalog (never a wait: a miss starts a
 * background read). The token is named by the Secret's version; its value is read only by that read.
 * `kaito-ts diff` asks the same way.
 */
export function hubPart(
  ws: DeepReadonly<WorkspaceObject>,
  name: string,
  hub: HubModels,
  caches: Pick<WorkspaceCaches, 'secrets'>,
  secrets: Pick<ModelSecrets, 'token'>,
): ReadonlyMap<string, HubModelState> {
  const ns = ws.metadata.namespace ?? 'default';
  const secret = ws.inference?.preset?.presetOptions?.modelAccessSecret;
  const meta = secret ? caches.secrets.get(ns, secret) : undefined;
  const token =
    meta && secret
      ? { id: `${ns}/${secret}@${meta.metadata?.resourceVersion ?? ''}`, read: () => secrets.token(ns, secret) }
      : { id: '', read: async () => undefined };
  return hubLookup(ws, name, hub, token);
}

/** One workspace's lookup of `name`, as the snapshot's `hubModels` holds it (`render` brings its own token). */
export function hubLookup(ws: DeepReadonly<WorkspaceObject>, name: string, hub: HubModels, token: TokenRef): ReadonlyMap<string, HubModelState> {
  return new Map([[name.toLowerCase(), hub.lookup(`${ws.metadata.namespace ?? 'default'}/${ws.metadata.name ?? ''}`, name, token)]]);
}

/**
 * Tuning's pull and push Secrets that do not exist, checked only before a Job is made (KAITO checks
 * nothing and the pod hangs in ContainerCreating). The metadata-only Secret cache answers.
 */
function missingTuningSecrets(ws: WorkspaceObject, caches: Pick<WorkspaceCaches, 'secrets'>): string[] {
  const names = [
    ...(ws.tuning?.input?.image ? (ws.tuning.input.imagePullSecrets ?? []) : []),
    ...(ws.tuning?.output?.image && ws.tuning.output.imagePushSecret ? [ws.tuning.output.imagePushSecret] : []),
  ];
  return [...new Set(names)].filter((n) => !caches.secrets.get(ws.metadata.namespace, n));
}

const CACHE_OF_KIND: Record<string, keyof WorkspaceKinds> = {
  Workspace: 'workspaces',
  StatefulSet: 'statefulSets',
  Deployment: 'deployments',
  Service: 'services',
  ControllerRevision: 'controllerRevisions',
  Pod: 'pods',
  Node: 'nodes',
  StorageClass: 'storageClasses',
  ConfigMap: 'configMaps',
  PersistentVolumeClaim: 'persistentVolumeClaims',
  PersistentVolume: 'persistentVolumes',
  Job: 'jobs',
  Secret: 'secrets',
  Event: 'failedCreateEvents',
  NodeClaim: 'nodeClaims',
  NodePool: 'nodePools',
  EndpointSlice: 'endpointSlices',
};

/** Caches filled from a list of objects (by kind), for planning outside the operator (`diff`, `render`). */
export function cachesFromObjects(objects: readonly KubernetesObject[]): WorkspaceStores {
  const byField = new Map<keyof WorkspaceKinds, KubernetesObject[]>();
  for (const o of objects) {
    // Every Karpenter provider names its NodeClass kind so (AKSNodeClass, EC2NodeClass, KWOKNodeClass).
    const field = o.kind ? (CACHE_OF_KIND[o.kind] ?? (o.kind.endsWith('NodeClass') ? 'nodeClasses' : undefined)) : undefined;
    if (field) byField.set(field, [...(byField.get(field) ?? []), o]);
  }
  // Karpenter's claims are found by their NodePool label among the same listed NodeClaims.
  byField.set('poolClaims', byField.get('nodeClaims') ?? []);
  // One untyped cache per field: the kind each cache holds is the field's by CACHE_OF_KIND.
  return Object.fromEntries(
    [...new Set<keyof WorkspaceKinds>([...Object.values(CACHE_OF_KIND), 'poolClaims', 'nodeClasses'])].map((field) => [
      field,
      // StatefulSets keep who wrote their template: it decides how a new revision updates it.
      ObjectCache.from(byField.get(field) ?? [], field === 'statefulSets' ? { transform: withTemplateWriters } : {}),
    ]),
  ) as unknown as WorkspaceStores;
}
