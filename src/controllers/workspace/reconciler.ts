// The Workspace reconciler: sequences read (caches) → build (pure) → apply (SSA) → observe → status.
// Level-triggered and idempotent: it gets only a key and re-reads everything; a pass with nothing
// to change sends no request. It never waits for readiness: it returns and is woken by events
// (or by a timer for the readiness timeout).
import type { KubernetesObject, V1Pod, V1Service, V1StatefulSet } from '@kubernetes/client-node';
import { findCondition } from '../../api/conditions.js';
import { ANNOTATION_HASH, ANNOTATION_REVISION, ConditionType, LABEL_WORKSPACE_NAME, RESOURCE_NVIDIA_GPU, WORKSPACE_FINALIZER } from '../../api/labels.js';
import { errorsOf, formatIssues, validateWorkspace } from '../../api/validation.js';
import { buildWorkspace, type BuildResult, type WorkspaceObjects } from '../../builders/workspace.js';
import { matchingNodes, readyMatchingNodes } from '../../builders/facts.js';
import { droppedFieldsMessage } from '../../builders/template.js';
import { getPreset } from '../../catalog/presets.js';
import { controllerOf, type ObjectCache } from '../../runtime/cache.js';
import { MERGE_PATCH } from '../../runtime/client.js';
import type { Result } from '../../runtime/controller.js';
import { needsApply } from '../../runtime/drift.js';
import { isAlreadyExists, isConflict, isNotFound } from '../../runtime/errors.js';
import { Resources } from '../../runtime/resources.js';
import { writeStatusIfChanged } from '../../runtime/status.js';
import type { WorkspaceDeps, WorkspaceObject } from './context.js';
import { finalizeWorkspace, MANAGED_BY, MANAGED_BY_LABEL } from './deletion.js';
import { gatherFacts, volumeKindOf } from './facts.js';
import { planMigration, type MigrationPlan } from './migration.js';
import { statefulSetReadiness, withDroppedFields, withReadinessTimeout, type Readiness } from './readiness.js';
import { createClaims, labelClaimNodes, planFor } from './provisioning.js';
import { NODECLAIMS_CREATED_ANNOTATION, type ProvisioningPlan } from './provisioning-plan.js';
import { pruneRevisions } from './revisions.js';
import { selectiveUpdate } from './selective-update.js';
import { releaseStrandedClaims } from './stranded-claims.js';
import { computeStatus, type StatusInput } from './status.js';
import { reconcileTuning, type TuningSteps } from './tuning.js';

/** kaito-ts condition reasons beyond KAITO's (documented in docs/controller.md). */
export const Reason = {
  InvalidSpec: 'InvalidSpec',
  SecretNotFound: 'ModelAccessSecretNotFound',
  NotOwned: 'ObjectNotOwned',
  WorkloadMigration: 'WorkloadMigration',
  NodeClaimCrdMissing: 'NodeClaimCRDNotInstalled',
  WaitingForNodes: 'WaitingForNodes',
  TemplateFieldsDropped: 'TemplateFieldsDropped',
} as const;

/** Secrets are not watched: a workspace waiting for one looks again this often (bounded, never a hot loop). */
export const SECRET_RECHECK_MS = 30_000;

/**
 * A reconcile-level failure reported in status (and as a Warning event). Most wait for the next
 * watch event; `recheckAfterMs` is for inputs that are not watched.
 */
class Reported extends Error {
  constructor(readonly reason: string, message: string, readonly recheckAfterMs?: number) {
    super(message);
  }
}

export class WorkspaceReconciler {
  constructor(private readonly deps: WorkspaceDeps) {}

  /** The steps of this reconciler that the tuning path (tuning.ts) shares. */
  private readonly tuningSteps: TuningSteps = {
    ensureMetadata: (ws, annotations) => this.ensureMetadata(ws, annotations),
    syncRevision: (ws, controllerRevision, revisionHash) => this.syncRevision(ws, { objects: { controllerRevision }, revisionHash } as Extract<BuildResult, { ok: true }>),
    createConfigMapIfMissing: (cm) => this.createIfMissing({ ...cm, metadata: { ...cm.metadata, labels: { ...cm.metadata?.labels, [MANAGED_BY_LABEL]: MANAGED_BY } } }),
    provision: (ws, target) => this.provision(ws, target),
    nodeFacts: (ws, target, plan) => this.nodeFacts(ws, target, plan),
  };

  reconcile = async (key: string): Promise<Result> => {
    const ws = this.deps.caches.workspaces.getByKey(key);
    if (!ws) return {};
    if (ws.metadata.deletionTimestamp) return finalizeWorkspace(ws, this.deps);
    if (ws.tuning) return reconcileTuning(ws, this.deps, this.tuningSteps);
    try {
      return await this.reconcileLive(ws);
    } catch (err) {
      if (!(err instanceof Reported)) throw err;
      // The pass may have written the workspace already: continue from what the cache holds now.
      const current = await this.ensureMetadata(this.deps.caches.workspaces.getByKey(key) ?? ws);
      await this.report(current, { ...this.nodeFacts(current, current.status?.targetNodeCount || 1), failure: { reason: err.reason, message: err.message } });
      return err.recheckAfterMs ? { requeueAfterMs: err.recheckAfterMs } : {};
    }
  };

  private async reconcileLive(cached: WorkspaceObject): Promise<Result> {
    let ws = cached;
    const { caches } = this.deps;
    const ns = ws.metadata.namespace ?? 'default';
    const name = ws.metadata.name ?? '';
    const sts = caches.statefulSets.get(ns, name);
    if (sts && !ownedBy(sts, ws)) throw new Reported(Reason.NotOwned, `StatefulSet ${ns}/${name} exists and is not controlled by this workspace; kaito-ts leaves it untouched`);

    const facts = gatherFacts(ws, this.deps, sts);
    this.validate(ws, facts.nodes);
    const built = buildWorkspace(ws, facts);
    if (!built.ok) {
      const p = built.problems[0]!;
      throw new Reported(p.reason, built.problems.map((x) => `${x.field}: ${x.message}`).join('; '));
    }
    await this.checkSecret(ws);

    // One write for the finalizer and the revision annotations (only our keys: KAITO rewrites the
    // whole annotation map, W23).
    ws = await this.ensureMetadata(ws, { [ANNOTATION_HASH]: built.revisionHash, [ANNOTATION_REVISION]: String(built.revision) });
    await this.syncRevision(ws, built);
    const copy = built.objects.configMap;
    if (copy) await this.createIfMissing({ ...copy, metadata: { ...copy.metadata, labels: { ...copy.metadata?.labels, [MANAGED_BY_LABEL]: MANAGED_BY } } });

    const pods = caches.pods.list({ namespace: ns, selector: { matchLabels: { [LABEL_WORKSPACE_NAME]: name } } });
    const pod0 = pods.find((p) => p.metadata?.name === `${name}-0`);
    const plan = planMigration(ws.metadata.uid ?? '', caches.deployments.get(ns, name), !!sts, pod0, legacyPodsHoldGpus(pods));

    await this.ensureService(ws, built.objects.headlessService);
    // The main Service keeps pointing at the legacy pods until pod 0 serves (no-downtime migration).
    if (plan.kind !== 'waitForPod0' || !caches.services.get(ns, name)) await this.ensureService(ws, built.objects.mainService);

    const provisioning = await this.provision(ws, built.targetNodeCount);
    if (provisioning) ws = provisioning.ws;
    if (!sts && provisioning && !provisioning.plan.nodesUsable) {
      // KAITO's order: the workload waits for its nodes (a new StatefulSet would only sit Pending).
      const waiting = provisioning.plan.nodeIssue ?? provisioning.plan.claims;
      await this.report(ws, { ...this.nodeFacts(ws, built.targetNodeCount, provisioning.plan), targetNodeCount: built.targetNodeCount, inference: { ready: false, reason: Reason.WaitingForNodes, message: `waiting for nodes: ${waiting.message}` }, decisions: built.decisions });
      return provisioning.plan.recheckAfterMs ? { requeueAfterMs: provisioning.plan.recheckAfterMs } : {};
    }

    const current = await this.ensureStatefulSet(ws, built, sts, facts.storageClassNames);
    if (!current) return {}; // deleted to change its shape: the delete event brings us back to create it
    if (volumeKindOf(current) === 'nvme') await releaseStrandedClaims(ws, this.deps, name, pods);
    await this.migrate(ws, plan);

    const readiness = this.inferenceReadiness(ws, current, pods, plan);
    const nodeFacts = this.nodeFacts(ws, built.targetNodeCount, provisioning?.plan);
    await this.report(ws, { ...nodeFacts, targetNodeCount: built.targetNodeCount, inference: withDroppedFields(readiness.readiness, built.droppedFields), decisions: built.decisions });
    const recheck = [readiness.recheckAfterMs, provisioning?.plan.recheckAfterMs].filter((x): x is number => x !== undefined);
    return recheck.length ? { requeueAfterMs: Math.min(...recheck) } : {};
  }

  // --- steps -------------------------------------------------------------------------------

  /** Our finalizer and annotation keys, in one conditional merge patch, only when something is missing. */
  private async ensureMetadata(ws: WorkspaceObject, annotations: Record<string, string> = {}): Promise<WorkspaceObject> {
    const finalizers = ws.metadata.finalizers ?? [];
    const current = ws.metadata.annotations ?? {};
    const needFinalizer = !finalizers.includes(WORKSPACE_FINALIZER);
    const needAnnotations = Object.entries(annotations).some(([k, v]) => current[k] !== v);
    if (!needFinalizer && !needAnnotations) return ws;
    // resourceVersion makes the merge patch conditional: a concurrent edit yields 409 and a retry.
    const metadata: Record<string, unknown> = { resourceVersion: ws.metadata.resourceVersion };
    if (needFinalizer) metadata.finalizers = [...finalizers, WORKSPACE_FINALIZER];
    if (needAnnotations) metadata.annotations = annotations;
    return this.written(this.deps.caches.workspaces, await this.deps.client.patch<WorkspaceObject>(Resources.workspaces, ref(ws), { metadata }, MERGE_PATCH));
  }

  /**
   * Write-through: what the server returned goes into the cache at once, so the rest of this pass and
   * the next one see it; the watch event with the same resourceVersion then changes nothing.
   */
  private written<T extends KubernetesObject>(cache: ObjectCache<T>, obj: T): T {
    cache.upsert(obj);
    return obj;
  }

  /** Rules the CRD cannot express (catalogs, gates, nodes); there is no webhook, so they are checked here. */
  private validate(ws: WorkspaceObject, nodes: ReturnType<typeof gatherFacts>['nodes']): void {
    const { config } = this.deps;
    const issues = errorsOf(
      validateWorkspace(ws, {
        gates: config.featureGates,
        cloud: config.cloudProvider,
        operation: 'create',
        ...(config.featureGates.disableNodeAutoProvisioning ? { nodes: matchingNodes(ws, nodes) } : {}),
      }),
    );
    if (issues.length) throw new Reported(Reason.InvalidSpec, formatIssues(issues));
  }

  /** Secrets are never cached (nothing secret in memory): one GET, only for presets that need a token. */
  private async checkSecret(ws: WorkspaceObject): Promise<void> {
    const secret = ws.inference?.preset?.presetOptions?.modelAccessSecret;
    const preset = getPreset(ws.inference?.preset?.name ?? '');
    if (!secret || !preset?.downloadAtRuntime) return;
    try {
      await this.deps.client.get(Resources.secrets, ws.metadata.namespace, secret);
    } catch (err) {
      if (isNotFound(err)) throw new Reported(Reason.SecretNotFound, `Secret ${ws.metadata.namespace}/${secret} named in inference.preset.presetOptions.modelAccessSecret does not exist`, SECRET_RECHECK_MS);
      throw err;
    }
  }

  private async syncRevision(ws: WorkspaceObject, built: Extract<BuildResult, { ok: true }>): Promise<void> {
    const { caches, client } = this.deps;
    const cr = built.objects.controllerRevision;
    const existing = caches.controllerRevisions.get(cr.metadata?.namespace, cr.metadata?.name ?? '');
    if (existing && existing.metadata?.annotations?.[ANNOTATION_HASH] !== built.revisionHash) {
      throw new Reported('RevisionConflict', `revision name conflicts, the hash values are different (${cr.metadata?.name})`);
    }
    if (!existing) this.written(this.deps.caches.controllerRevisions, await client.apply(Resources.controllerRevisions, cr));
    await pruneRevisions(ws, this.deps);
  }

  private async createIfMissing(obj: KubernetesObject): Promise<void> {
    if (this.deps.caches.configMaps.get(obj.metadata?.namespace, obj.metadata?.name ?? '')) return;
    try {
      this.written(this.deps.caches.configMaps, await this.deps.client.create(Resources.configMaps, obj));
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }

  /** Created when missing, repaired when a field we own drifted; a Service we do not control is never touched. */
  private async ensureService(ws: WorkspaceObject, desired: V1Service): Promise<void> {
    const live = this.deps.caches.services.get(desired.metadata?.namespace, desired.metadata?.name ?? '');
    if (live && !ownedBy(live, ws)) throw new Reported(Reason.NotOwned, `Service ${live.metadata?.namespace}/${live.metadata?.name} exists and is not controlled by this workspace; kaito-ts leaves it untouched`);
    if (needsApply(desired, live)) this.written(this.deps.caches.services, await this.deps.client.apply(Resources.services, desired));
  }

  /** The StatefulSet as it now is, or undefined when it was deleted to change its immutable weights-volume shape. */
  private async ensureStatefulSet(ws: WorkspaceObject, built: Extract<BuildResult, { ok: true }>, live: V1StatefulSet | undefined, storageClassNames: string[]): Promise<V1StatefulSet | undefined> {
    const desired = built.objects.statefulSet;
    const { client, recorder } = this.deps;
    if (!live) return this.applyStatefulSet(ws, built, desired);
    if (live.metadata?.annotations?.[ANNOTATION_REVISION] === String(built.revision)) return live;
    // A new revision: re-decide the weights volume as if creating. Claim templates are immutable,
    // so a different shape means recreating the StatefulSet, announced as a restart.
    const fresh = buildWorkspace(ws, { ...gatherFacts(ws, this.deps, undefined), storageClassNames });
    const freshKind = fresh.ok ? volumeKindOf(fresh.objects.statefulSet) : undefined;
    const liveKind = volumeKindOf(live);
    if (freshKind && freshKind !== liveKind) {
      await recorder.event(ws, 'Warning', 'WeightsVolumeChange', `Recreating StatefulSet ${live.metadata?.name}: model weights volume changes from ${liveKind} to ${freshKind} (volume claim templates are immutable); inference restarts`);
      await client.delete(Resources.statefulSets, ref(live), { uid: live.metadata?.uid ?? '' }).catch(ignoreNotFound);
      return undefined;
    }
    return this.applyStatefulSet(ws, built, selectiveUpdate(desired, live));
  }

  /** Template fields Kubernetes does not know are announced when the StatefulSet is written (idle passes stay silent). */
  private async applyStatefulSet(ws: WorkspaceObject, built: Extract<BuildResult, { ok: true }>, sts: V1StatefulSet): Promise<V1StatefulSet> {
    if (built.droppedFields) await this.deps.recorder.event(ws, 'Warning', Reason.TemplateFieldsDropped, droppedFieldsMessage(built.droppedFields));
    return this.written(this.deps.caches.statefulSets, await this.deps.client.apply(Resources.statefulSets, sts));
  }

  private async migrate(ws: WorkspaceObject, plan: MigrationPlan): Promise<void> {
    const { client, recorder } = this.deps;
    if (plan.kind === 'deleteDeployment' || plan.kind === 'deleteDeploymentFirst') {
      if (plan.kind === 'deleteDeploymentFirst') {
        // Say it before doing it: the workspace is about to stop serving.
        await this.report(ws, { failure: undefined, inference: { ready: false, reason: Reason.WorkloadMigration, message: plan.message } });
        await recorder.event(ws, 'Warning', Reason.WorkloadMigration, plan.message);
      } else {
        await recorder.event(ws, 'Normal', Reason.WorkloadMigration, plan.message);
      }
      await client.delete(Resources.deployments, { namespace: ws.metadata.namespace, name: ws.metadata.name ?? '' }, { uid: plan.uid }).catch(ignoreGone);
    }
  }

  private inferenceReadiness(ws: WorkspaceObject, sts: V1StatefulSet | undefined, pods: V1Pod[], plan: MigrationPlan): { readiness: Readiness; recheckAfterMs?: number } {
    if (plan.kind === 'waitForPod0') return { readiness: { ready: false, reason: Reason.WorkloadMigration, message: plan.message } };
    if (plan.kind === 'foreign') return { readiness: { ready: false, reason: Reason.NotOwned, message: plan.message } };
    const base = statefulSetReadiness(sts, pods, this.deps.caches.nodes.list());
    const current = findCondition(ws.status?.conditions, ConditionType.InferenceReady);
    const since = current?.status === 'False' ? new Date(current.lastTransitionTime) : this.deps.now();
    const timeout = getPreset(ws.inference?.preset?.name ?? '')?.readinessTimeoutSeconds ?? TEMPLATE_READINESS_TIMEOUT_SECONDS;
    return withReadinessTimeout(base, since, timeout, this.deps.now());
  }

  /**
   * Node auto-provisioning: creates the claims the plan asks for and labels their nodes. Undefined
   * when off, or while the claim cache is not synced (never count claims from an empty cache).
   */
  private async provision(ws: WorkspaceObject, target: number): Promise<{ ws: WorkspaceObject; plan: ProvisioningPlan } | undefined> {
    if (this.deps.config.featureGates.disableNodeAutoProvisioning || this.deps.nodeClaimCrdInstalled() !== true) return undefined;
    const plan = planFor(ws, this.deps, target);
    const current = await createClaims(ws, this.deps, plan, (total) => this.ensureMetadata(ws, { [NODECLAIMS_CREATED_ANNOTATION]: String(total) }));
    await labelClaimNodes(this.deps, plan.nodesToLabel);
    return { ws: current, plan };
  }

  private nodeFacts(ws: WorkspaceObject, target: number, plan?: ProvisioningPlan): Pick<StatusInput, 'nodes' | 'nodeClaims'> {
    const nodes = this.deps.caches.nodes.list();
    const matching = matchingNodes(ws, nodes);
    const ready = readyMatchingNodes(ws, nodes);
    const out: Pick<StatusInput, 'nodes' | 'nodeClaims'> = {
      nodes: { target, ready: ready.length, selected: matching.length, workerNodes: matching.map((n) => n.metadata?.name ?? '').sort(), ...(plan?.nodeIssue ? { issue: plan.nodeIssue } : {}) },
      ...(plan ? { nodeClaims: plan.claims } : {}),
    };
    if (!plan && !this.deps.config.featureGates.disableNodeAutoProvisioning && this.deps.nodeClaimCrdInstalled() === false) {
      out.nodeClaims = {
        ready: false,
        reason: Reason.NodeClaimCrdMissing,
        message: 'node auto-provisioning is enabled but the karpenter.sh/v1 NodeClaim CRD is not installed; install it, or run with --feature-gates=disableNodeAutoProvisioning=true to use existing nodes',
      };
    }
    return out;
  }

  /** Computes the status from this pass's facts and writes it only when it changed. */
  private async report(ws: WorkspaceObject, input: Partial<StatusInput>): Promise<void> {
    const { status, changed } = computeStatus(ws, { targetNodeCount: ws.status?.targetNodeCount ?? 0, ...input }, this.deps.now());
    if (!changed) return;
    const fresh = this.deps.caches.workspaces.get(ws.metadata.namespace, ws.metadata.name ?? '') ?? ws;
    if (input.failure) await this.deps.recorder.event(ws, 'Warning', input.failure.reason, input.failure.message);
    try {
      await writeStatusIfChanged(this.deps.client, Resources.workspaces, fresh, status as Record<string, unknown>, {
        mode: 'merge',
        onWritten: (obj) => this.written(this.deps.caches.workspaces, obj as WorkspaceObject),
      });
    } catch (err) {
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
    ws.status = status; // later steps of this pass see what was written
  }
}

/** KAITO's fixed readiness timeout for template workspaces. */
export const TEMPLATE_READINESS_TIMEOUT_SECONDS = 600;

export function ownedBy(obj: KubernetesObject, ws: WorkspaceObject): boolean {
  const owner = controllerOf(obj);
  return owner?.kind === 'Workspace' && owner.uid === ws.metadata.uid;
}

/** Pods of the legacy Deployment (owned by a ReplicaSet) that are bound to a node and request GPUs. */
function legacyPodsHoldGpus(pods: readonly V1Pod[]): boolean {
  return pods.some(
    (p) =>
      controllerOf(p)?.kind === 'ReplicaSet' &&
      !!p.spec?.nodeName &&
      !p.metadata?.deletionTimestamp &&
      (p.spec.containers ?? []).some((c) => Number(c.resources?.limits?.[RESOURCE_NVIDIA_GPU] ?? 0) > 0),
  );
}

function ref(obj: KubernetesObject): { namespace?: string; name: string } {
  return { namespace: obj.metadata?.namespace, name: obj.metadata?.name ?? '' };
}

function ignoreNotFound(err: unknown): void {
  if (!isNotFound(err)) throw err;
}

/** A delete whose object is gone, or whose UID precondition no longer matches, has nothing left to do. */
function ignoreGone(err: unknown): void {
  if (!isNotFound(err) && !isConflict(err)) throw err;
}

export type { WorkspaceObjects };
