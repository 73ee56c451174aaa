// The Workspace reconciler: sequences read (caches) → build (pure) → apply (SSA) → observe → status.
// Level-triggered and idempotent: it gets only a key and re-reads everything; a pass with nothing
// to change sends no request. It never waits for readiness: it returns and is woken by events
// (or by a timer for the readiness timeout).
import type { KubernetesObject, V1ConfigMap, V1Pod, V1Service, V1StatefulSet } from '@kubernetes/client-node';
import { findCondition } from '../../api/workspace-conditions.js';
import { ANNOTATION_HASH, ANNOTATION_REVISION, ConditionType, DEFAULT_INFERENCE_CONFIG_TEMPLATE, LABEL_WORKSPACE_NAME, WORKSPACE_FINALIZER } from '../../api/labels.js';
import { foundPreset, type ResolvedWorkspace } from '../../api/resolved-workspace.js';
import { errorsOf, formatIssues, validateWorkspace } from '../../api/validation.js';
import { buildWorkspace, type BuildResult, type WorkspaceObjects } from '../../builders/workspace.js';
import { matchingNodes, readyMatchingNodes, resolveFromFacts } from '../../builders/facts.js';
import { replicasFor, replicaShortfall } from '../../builders/replicas.js';
import { droppedFieldsMessage } from '../../builders/template.js';
import { controllerOf, type ObjectCache } from '../../runtime/cache.js';
import { MERGE_PATCH } from '../../runtime/client.js';
import { TerminalError, type Result } from '../../runtime/controller.js';
import { needsApply } from '../../runtime/drift.js';
import { ignoreAlreadyExists, ignoreGone, KubeApiError, toKubeError } from '../../runtime/errors.js';
import { Resources } from '../../runtime/resources.js';
import { writeStatusIfChanged } from '../../runtime/status.js';
import type { WorkspaceDeps, WorkspaceObject } from './context.js';
import { finalizeWorkspace, MANAGED_BY, MANAGED_BY_LABEL } from './deletion.js';
import { CHILD_OBJECT_REJECTED, persistentConflict, reportable } from './failures.js';
import { ModelSecrets, SecretReason, servingWithSecretProblem } from './model-secret.js';
import { podCreationFailure } from './pod-creation.js';
import { gatherFacts, volumeKindOf } from './gather-facts.js';
import { legacyPodsHoldGpus, planMigration, type MigrationPlan } from './migration.js';
import { nodePressureWarning } from './node-pressure.js';
import { deleteExactly, notOwnedMessage, ownedBy, writtenBy } from './ownership.js';
import { ANNOUNCED_REASONS, statefulSetReadiness, withDroppedFields, withReadinessTimeout, withWarning, type Readiness } from './readiness.js';
import { createClaims, labelClaimNodes, planFor } from './provisioning.js';
import { NODECLAIMS_CREATED_ANNOTATION, type ProvisioningPlan } from './provisioning-plan.js';
import { pruneRevisions } from './revisions.js';
import { adoptableAsIs, selectiveUpdate } from './selective-update.js';
import { releaseStrandedClaims } from './stranded-claims.js';
import { computeStatus, type StatusInput } from './workspace-status.js';
import { reconcileTuning, writeTuningStatus, type TuningSteps } from './tuning.js';

/** kaito-ts condition reasons beyond KAITO's (documented in docs/controller.md). */
export const Reason = {
  InvalidSpec: 'InvalidSpec',
  SecretNotFound: SecretReason.NotFound,
  SecretKeyMissing: SecretReason.KeyMissing,
  NotOwned: 'ObjectNotOwned',
  WorkloadMigration: 'WorkloadMigration',
  NodeClaimCrdMissing: 'NodeClaimCRDNotInstalled',
  ChildObjectRejected: CHILD_OBJECT_REJECTED,
  WaitingForNodes: 'WaitingForNodes',
  TemplateFieldsDropped: 'TemplateFieldsDropped',
} as const;

/** The soonest a refused child object is sent again without a relevant event (docs/controller.md). */
export const REFUSAL_RETRY_MIN_MS = 300_000;

export class WorkspaceReconciler {
  private readonly secrets: ModelSecrets;

  constructor(private readonly deps: WorkspaceDeps) {
    this.secrets = new ModelSecrets(deps.client, deps.caches.secrets);
  }

  /** The steps of this reconciler that the tuning path (tuning.ts) shares. */
  private readonly tuningSteps: TuningSteps = {
    ensureMetadata: (ws, annotations) => this.ensureMetadata(ws, annotations),
    syncRevision: (ws, controllerRevision, revisionHash) => this.syncRevision(ws, { objects: { controllerRevision }, revisionHash } as Extract<BuildResult, { ok: true }>),
    createConfigMapIfMissing: (cm) => this.createConfigCopy(cm),
    provision: (ws, target, resolved) => this.provision(ws, target, resolved),
    nodeFacts: (ws, target, plan) => this.nodeFacts(ws, target, plan),
  };

  reconcile = async (key: string, failuresSoFar = 0): Promise<Result> => {
    const cached = this.deps.caches.workspaces.getByKey(key);
    if (!cached) return {};
    if (cached.metadata.deletionTimestamp) return finalizeWorkspace(cached, this.deps);
    const ws = structuredClone(cached); // the pass's own copy: cached objects are frozen
    try {
      return ws.tuning ? await reconcileTuning(ws, this.deps, this.tuningSteps) : await this.reconcileLive(ws);
    } catch (err) {
      const conflict = persistentConflict(err, failuresSoFar);
      const failure = reportable(err) ?? conflict;
      if (!failure) throw err;
      // The pass may have written the workspace already: continue from what the cache holds now. A
      // conflict would meet the same 409 on the conditional metadata write, so it is reported as is.
      const latest = structuredClone(this.deps.caches.workspaces.getByKey(key) ?? ws);
      const current = conflict ? latest : await this.ensureMetadata(latest);
      const { reason, message } = failure;
      if (current.tuning) await writeTuningStatus(current, this.deps, this.nodeFacts(current, 1), { kind: 'invalid', reason, message });
      else await this.report(current, { ...this.nodeFacts(current, current.status?.targetNodeCount || 1), failure: { reason, message } });
      if (conflict) throw err; // reported, and still a plain retry
      if (!failure.backoff) throw err; // a TerminalError: reported, not retried; the next event brings the key back
      // The queue's per-key backoff up to its cap, never sooner than REFUSAL_RETRY_MIN_MS: the server
      // answers the same until the spec changes (an event, seen at once) or the cluster's rules do.
      const e = toKubeError(err);
      throw new KubeApiError(e.kind, e.message, e.status, e.reason, Math.max(e.retryAfterMs ?? 0, REFUSAL_RETRY_MIN_MS), e.details);
    }
  };

  private async reconcileLive(cached: WorkspaceObject): Promise<Result> {
    let ws = cached;
    const { caches } = this.deps;
    const ns = ws.metadata.namespace ?? 'default';
    const name = ws.metadata.name ?? '';
    const sts = caches.statefulSets.get(ns, name);
    if (sts && !ownedBy(sts, ws)) throw new TerminalError(Reason.NotOwned, notOwnedMessage('StatefulSet', sts));

    const facts = gatherFacts(ws, this.deps, sts);
    // Resolved once (preset, runtime, GPU facts): validation and the builders read the same value.
    const resolved = resolveFromFacts(ws, facts);
    this.validate(ws, resolved);
    const built = buildWorkspace(ws, facts, resolved);
    if (!built.ok) {
      const p = built.problems[0]!;
      throw new TerminalError(p.reason, built.problems.map((x) => `${x.field}: ${x.message}`).join('; '));
    }
    // A Secret problem stops a workspace that has no workload yet; a serving one keeps serving and is warned (docs/controller.md).
    const secretProblem = await this.secrets.problem(ws, resolved.inferencePreset);
    if (secretProblem && !sts) throw new TerminalError(secretProblem.reason, secretProblem.message);

    // One write for the finalizer and the revision annotations (only our keys: KAITO rewrites the
    // whole annotation map, W23).
    ws = await this.ensureMetadata(ws, { [ANNOTATION_HASH]: built.revisionHash, [ANNOTATION_REVISION]: String(built.revision) });
    await this.syncRevision(ws, built);
    await this.ensureConfigCopy(ws, built.objects.configMap);

    const pods = caches.pods.list({ namespace: ns, selector: { matchLabels: { [LABEL_WORKSPACE_NAME]: name } } });
    const pod0 = pods.find((p) => p.metadata?.name === `${name}-0`);
    const plan = planMigration(ws.metadata.uid ?? '', caches.deployments.get(ns, name), !!sts, pod0, legacyPodsHoldGpus(pods));

    const ensureServices = async (): Promise<void> => {
      await this.ensureService(ws, built.objects.headlessService);
      // The main Service keeps pointing at the legacy pods until pod 0 serves (no-downtime migration).
      if (plan.kind !== 'waitForPod0' || !caches.services.get(ns, name)) await this.ensureService(ws, built.objects.mainService);
    };

    const provisioning = await this.provision(ws, built.targetNodeCount, resolved);
    if (provisioning) ws = provisioning.ws;
    if (!sts && provisioning && !provisioning.plan.nodesUsable) {
      // KAITO's order: the workload waits for its nodes (a new StatefulSet would only sit Pending).
      const waiting = provisioning.plan.nodeIssue ?? provisioning.plan.claims;
      await ensureServices();
      await this.report(ws, { ...this.nodeFacts(ws, built.targetNodeCount, provisioning.plan), targetNodeCount: built.targetNodeCount, inference: { ready: false, reason: Reason.WaitingForNodes, message: `waiting for nodes: ${waiting.message}` }, decisions: built.decisions });
      return provisioning.plan.recheckAfterMs ? { requeueAfterMs: provisioning.plan.recheckAfterMs } : {};
    }

    // The workload before its Services: on a burst of new workspaces every write waits on the client's
    // QPS budget, and the StatefulSet is what starts the model load (docs/controller.md, "One pass").
    const current = await this.ensureStatefulSet(ws, built, sts, resolved, facts.storageClassNames);
    await ensureServices();
    if (!current) return {}; // deleted to change its shape: the delete event brings us back to create it
    if (volumeKindOf(current) === 'nvme') await releaseStrandedClaims(ws, this.deps, name, pods);
    await this.migrate(ws, plan);

    const readiness = this.inferenceReadiness(ws, resolved, current, pods, plan);
    const nodeFacts = this.nodeFacts(ws, built.targetNodeCount, provisioning?.plan);
    const inference = withWarning(withDroppedFields(readiness.readiness, built.droppedFields), secretProblem && servingWithSecretProblem(secretProblem));
    await this.announce(ws, [secretProblem, ANNOUNCED_REASONS.has(readiness.readiness.reason) ? readiness.readiness : undefined]);
    await this.report(ws, { ...nodeFacts, targetNodeCount: built.targetNodeCount, inference, decisions: built.decisions });
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
   * the next one see it; the watch event with the same resourceVersion then changes nothing. The pass
   * goes on with its own copy (the cache freezes what it stores).
   */
  private written<T extends KubernetesObject>(cache: ObjectCache<T>, obj: T): T {
    const own = structuredClone(obj);
    cache.upsert(obj);
    return own;
  }

  /** Rules the CRD cannot express (catalogs, gates, nodes); there is no webhook, so they are checked here. */
  private validate(ws: WorkspaceObject, resolved: ResolvedWorkspace): void {
    const issues = errorsOf(validateWorkspace(ws, { resolved, operation: 'create' }));
    if (issues.length) throw new TerminalError(Reason.InvalidSpec, formatIssues(issues));
  }

  private async syncRevision(ws: WorkspaceObject, built: Extract<BuildResult, { ok: true }>): Promise<void> {
    const { caches, client } = this.deps;
    const cr = built.objects.controllerRevision;
    const existing = caches.controllerRevisions.get(cr.metadata?.namespace, cr.metadata?.name ?? '');
    // A revision with our name that another object controls is reported, never taken as ours.
    if (existing && !ownedBy(existing, ws)) throw new TerminalError(Reason.NotOwned, notOwnedMessage('ControllerRevision', existing, 'kaito-ts leaves it untouched and cannot record this revision until it is deleted or renamed'));
    if (existing && existing.metadata?.annotations?.[ANNOTATION_HASH] !== built.revisionHash) {
      throw new TerminalError('RevisionConflict', `revision name conflicts, the hash values are different (${cr.metadata?.name})`);
    }
    if (!existing) this.written(this.deps.caches.controllerRevisions, await client.apply(Resources.controllerRevisions, cr));
    await pruneRevisions(ws, this.deps);
  }

  /**
   * Creates the default inference ConfigMap copy when the builders asked for one. A ConfigMap of that
   * name we did not write is used as found (KAITO's rule) and never deleted; a Warning event says so.
   */
  private async ensureConfigCopy(ws: WorkspaceObject, copy: V1ConfigMap | undefined): Promise<void> {
    const { caches, client, recorder } = this.deps;
    if (!copy) {
      const usesDefault = !!ws.inference?.preset && !ws.inference.config;
      const cm = usesDefault ? caches.configMaps.get(ws.metadata.namespace, DEFAULT_INFERENCE_CONFIG_TEMPLATE) : undefined;
      if (cm && !writtenBy(cm, client.fieldManager)) await recorder.event(ws, 'Warning', Reason.NotOwned, notOwnedMessage('ConfigMap', cm, 'it was not created by kaito-ts: it is used as the inference config as found and never deleted'));
      return;
    }
    await this.createConfigCopy(copy);
  }

  /** A shared default ConfigMap copy, created when missing and labelled as ours. */
  private async createConfigCopy(copy: V1ConfigMap): Promise<void> {
    const { caches, client } = this.deps;
    if (caches.configMaps.get(copy.metadata?.namespace, copy.metadata?.name ?? '')) return;
    const labelled = { ...copy, metadata: { ...copy.metadata, labels: { ...copy.metadata?.labels, [MANAGED_BY_LABEL]: MANAGED_BY } } };
    await client.create(Resources.configMaps, labelled).then((cm) => this.written(caches.configMaps, cm), ignoreAlreadyExists);
  }

  /** Created when missing, repaired when a field we own drifted; a Service we do not control is never touched. */
  private async ensureService(ws: WorkspaceObject, desired: V1Service): Promise<void> {
    const live = this.deps.caches.services.get(desired.metadata?.namespace, desired.metadata?.name ?? '');
    if (live && !ownedBy(live, ws)) throw new TerminalError(Reason.NotOwned, notOwnedMessage('Service', live));
    if (needsApply(desired, live)) this.written(this.deps.caches.services, await this.deps.client.apply(Resources.services, desired));
  }

  /** The StatefulSet as it now is, or undefined when it was deleted to change its immutable weights-volume shape. */
  private async ensureStatefulSet(ws: WorkspaceObject, built: Extract<BuildResult, { ok: true }>, live: V1StatefulSet | undefined, resolved: ResolvedWorkspace, storageClassNames: string[]): Promise<V1StatefulSet | undefined> {
    const desired = built.objects.statefulSet;
    const { client, recorder } = this.deps;
    if (!live) return this.applyStatefulSet(ws, built, desired);
    const sameRevision = live.metadata?.annotations?.[ANNOTATION_REVISION] === String(built.revision);
    // BYO: raised towards the target as matching nodes appear (src/builders/replicas.ts).
    const replicas = replicasFor(built.targetNodeCount, built.replicaBound, live.spec?.replicas);
    if (sameRevision && replicas === live.spec?.replicas) return live;
    if (adoptableAsIs(ws, desired, live, replicas)) return live;
    // A new revision: re-decide the weights volume as if creating. Claim templates are immutable,
    // so a different shape means recreating the StatefulSet, announced as a restart.
    const fresh = sameRevision ? undefined : buildWorkspace(ws, { ...gatherFacts(ws, this.deps, undefined), storageClassNames }, resolved);
    const freshKind = fresh?.ok ? volumeKindOf(fresh.objects.statefulSet) : undefined;
    const liveKind = volumeKindOf(live);
    if (freshKind && freshKind !== liveKind) {
      await recorder.event(ws, 'Warning', 'WeightsVolumeChange', `Recreating StatefulSet ${live.metadata?.name}: model weights volume changes from ${liveKind} to ${freshKind} (volume claim templates are immutable); inference restarts`);
      await deleteExactly(client, Resources.statefulSets, live);
      return undefined;
    }
    const update = selectiveUpdate(desired, live);
    return this.applyStatefulSet(ws, built, { ...update, spec: { ...update.spec!, replicas } });
  }

  /** Template fields Kubernetes does not know are announced when the StatefulSet is written (idle passes stay silent). */
  private async applyStatefulSet(ws: WorkspaceObject, built: Extract<BuildResult, { ok: true }>, sts: V1StatefulSet): Promise<V1StatefulSet> {
    if (built.droppedFields) await this.deps.recorder.event(ws, 'Warning', Reason.TemplateFieldsDropped, droppedFieldsMessage(built.droppedFields));
    return this.written(this.deps.caches.statefulSets, await this.deps.client.apply(Resources.statefulSets, sts));
  }

  private async migrate(ws: WorkspaceObject, plan: MigrationPlan): Promise<void> {
    const { client, recorder } = this.deps;
    // Not ours: left alone, said in a Warning event; InferenceReady still reflects our StatefulSet.
    if (plan.kind === 'foreign') await recorder.event(ws, 'Warning', Reason.NotOwned, plan.message);
    if (plan.kind === 'deleteDeployment' || plan.kind === 'deleteDeploymentFirst') {
      if (plan.kind === 'deleteDeploymentFirst') {
        // Say it before doing it: the workspace is about to stop serving.
        await this.report(ws, { failure: undefined, inference: { ready: false, reason: Reason.WorkloadMigration, message: plan.message } });
        await recorder.event(ws, 'Warning', Reason.WorkloadMigration, plan.message);
      } else {
        await recorder.event(ws, 'Normal', Reason.WorkloadMigration, plan.message);
      }
      await deleteExactly(client, Resources.deployments, { metadata: { namespace: ws.metadata.namespace, name: ws.metadata.name, uid: plan.uid } });
    }
  }

  /**
   * A Warning event for each problem InferenceReady starts naming: a new reason, or a warning its
   * message did not carry. A reason whose text moves (a scheduler message naming the node count) is announced once.
   */
  private async announce(ws: WorkspaceObject, problems: ({ reason: string; message: string } | undefined)[]): Promise<void> {
    const before = findCondition(ws.status?.conditions, ConditionType.InferenceReady);
    for (const p of problems) if (p && before?.reason !== p.reason && !before?.message.includes(p.message)) await this.deps.recorder.event(ws, 'Warning', p.reason, p.message);
  }

  private inferenceReadiness(ws: WorkspaceObject, resolved: ResolvedWorkspace, sts: V1StatefulSet | undefined, pods: V1Pod[], plan: MigrationPlan): { readiness: Readiness; recheckAfterMs?: number } {
    if (plan.kind === 'waitForPod0') return { readiness: { ready: false, reason: Reason.WorkloadMigration, message: plan.message } };
    // Only our StatefulSet's pods explain it: a foreign Deployment's pods may carry the same label.
    const observed = statefulSetReadiness(sts, pods.filter((p) => !!sts && controllerOf(p)?.uid === sts.metadata?.uid), this.deps.caches.nodes.list());
    const base = (!observed.ready && sts && podCreationFailure(sts, this.deps.caches.failedCreateEvents.list({ namespace: sts.metadata?.namespace }))) || observed;
    const current = findCondition(ws.status?.conditions, ConditionType.InferenceReady);
    const since = current?.status === 'False' ? new Date(current.lastTransitionTime) : this.deps.now();
    const timeout = foundPreset(resolved.inferencePreset)?.readinessTimeoutSeconds ?? TEMPLATE_READINESS_TIMEOUT_SECONDS;
    return withReadinessTimeout(base, since, timeout, this.deps.now());
  }

  /**
   * Node auto-provisioning: creates the claims the plan asks for and labels their nodes. Undefined
   * when off, or while the claim cache is not synced (never count claims from an empty cache).
   */
  private async provision(ws: WorkspaceObject, target: number, resolved: ResolvedWorkspace): Promise<{ ws: WorkspaceObject; plan: ProvisioningPlan } | undefined> {
    if (this.deps.config.featureGates.disableNodeAutoProvisioning || this.deps.nodeClaimCrdInstalled() !== true) return undefined;
    const plan = planFor(ws, this.deps, target, resolved);
    const current = await createClaims(ws, this.deps, resolved, plan, (total) => this.ensureMetadata(ws, { [NODECLAIMS_CREATED_ANNOTATION]: String(total) }));
    await labelClaimNodes(this.deps, plan.nodesToLabel);
    return { ws: current, plan };
  }

  private nodeFacts(ws: WorkspaceObject, target: number, plan?: ProvisioningPlan): Pick<StatusInput, 'nodes' | 'nodeClaims'> {
    const nodes = this.deps.caches.nodes.list();
    const matching = matchingNodes(ws, nodes);
    const ready = readyMatchingNodes(ws, nodes);
    const out: Pick<StatusInput, 'nodes' | 'nodeClaims'> = {
      nodes: {
        target, ready: ready.length, selected: matching.length, workerNodes: matching.map((n) => n.metadata?.name ?? '').sort(),
        ...(plan?.nodeIssue ? { issue: plan.nodeIssue } : {}),
        shortfall: replicaShortfall(target, this.deps.config.featureGates.disableNodeAutoProvisioning, matching.length),
        pressureWarning: nodePressureWarning(matching),
      },
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
    await writeStatusIfChanged(this.deps.client, Resources.workspaces, fresh, status as Record<string, unknown>, {
      mode: 'merge',
      onWritten: (obj) => this.written(this.deps.caches.workspaces, obj as WorkspaceObject),
    }).catch(ignoreGone);
    ws.status = status; // later steps of this pass see what was written
  }
}

/** KAITO's fixed readiness timeout for template workspaces. */
export const TEMPLATE_READINESS_TIMEOUT_SECONDS = 600;

/** Pods of the legacy Deployment (owned by a ReplicaSet) that are bound to a node and request GPUs. */
function ref(obj: KubernetesObject): { namespace?: string; name: string } {
  return { namespace: obj.metadata?.namespace, name: obj.metadata?.name ?? '' };
}

export type { WorkspaceObjects };
