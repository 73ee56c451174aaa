// The plan of an inference workspace: snapshot → every child action and the status, decided once.
// Order of the actions: metadata (finalizer, revision annotations, claim count), NodeClaims, the
// config copy, the StatefulSet (what starts the model load), the revision and its history, the
// Services, stranded weights claims, the migration step, the status.
import type { V1Service, V1StatefulSet } from '@kubernetes/client-node';
import { findCondition } from '../../api/workspace-conditions.js';
import { ANNOTATION_HASH, ANNOTATION_REVISION, ConditionType, DEFAULT_INFERENCE_CONFIG_TEMPLATE, LABEL_STATEFULSET_POD_NAME } from '../../api/labels.js';
import { DEFAULT_UPDATE_STRATEGY, updatePolicyOf } from '../../api/update-strategy.js';
import { surgeHash } from '../../builders/surge.js';
import { objectNamed } from '../../runtime/memo.js';
import { provisionerOf } from './context.js';
import { planUpdate, UpdateReason, type UpdateDecision } from './update-plan.js';
import { foundPreset, type ResolvedWorkspace } from '../../api/resolved-workspace.js';
import { ALPHA_VERSION, type Workspace } from '../../api/types.js';
import { errorsOf, formatIssues, validateWorkspace, type InferenceConfigLookup } from '../../api/validation.js';
import { findConfigMap, knownNodeNames, resolveFromFacts, type ClusterFacts } from '../../builders/facts.js';
import { inferenceConfigLookup } from '../../builders/inference-config.js';
import { replicasFor } from '../../builders/replicas.js';
import { hasKvEventsPort, withoutKvEventsPort } from '../../builders/services.js';
import { droppedFieldsMessage } from '../../builders/template.js';
import { buildWorkspace, HUB_RESOLVING, objectList, resolvingMessage, type BuildResult } from '../../builders/workspace.js';
import { controllerOf } from '../../runtime/cache.js';
import { needsApply } from '../../runtime/drift.js';
import type { DeepReadonly } from '../../runtime/readonly.js';
import { Resources } from '../../runtime/resources.js';
import type { Plan } from '../shared/actions.js';
import { MANAGED_BY, MANAGED_BY_LABEL } from './deletion.js';
import { factsOf, volumeKindOf } from './gather-facts.js';
import { legacyPodsHoldGpus, planMigration, type MigrationPlan } from './migration.js';
import { servingWithSecretProblem } from './model-secret.js';
import { notOwnedMessage, ownedBy, writtenBy } from './ownership.js';
import { nodePoolIsOurs } from './karpenter-provision.js';
import { PlanBuilder, soonest } from './plan-builder.js';
import { podCreationFailure } from './pod-creation.js';
import { ANNOUNCED_REASONS, statefulSetReadiness, withDroppedFields, withReadinessTimeout, withWarning, type Readiness } from './readiness.js';
import { Reason } from './reasons.js';
import { planRevision } from './revisions.js';
import { adoptableAsIs, atRevisionUpdate, selectiveUpdate, wholeTemplateUpdate } from './selective-update.js';
import { foreignTemplate } from '../shared/template-ownership.js';
import { workloadGeneration } from '../../builders/generation.js';
import { FIELD_MANAGER } from '../../runtime/client.js';
import type { WorkspaceSnapshot } from './snapshot.js';
import { strandedClaims } from './stranded-claims.js';

type Built = Extract<BuildResult, { ok: true }>;

/** A pass waiting for hub metadata looks again after this long even if no completion arrives. */
const HUB_SAFETY_RECHECK_MS = 5 * 60_000;

/** KAITO's fixed readiness timeout for template workspaces. */
export const TEMPLATE_READINESS_TIMEOUT_SECONDS = 600;

export function planInference(snap: WorkspaceSnapshot): Plan {
  const b = new PlanBuilder(snap);
  const { ws } = snap;
  const sts = snap.statefulSet;
  if (sts && !ownedBy(sts, ws)) return b.fail(Reason.NotOwned, notOwnedMessage('StatefulSet', sts));

  const facts = factsOf(snap);
  // Resolved once (preset, runtime, GPU facts): validation and the builders read the same value.
  const resolved = resolveFromFacts(ws, facts);
  const hub = resolved.inferencePreset;
  // Hub metadata being read: say so and wait; the cache enqueues the workspace when it has the answer.
  // A workload that already runs (an operator restart) is left as it is, its status too, meanwhile.
  if (hub.kind === 'resolving' && sts) return b.done(HUB_SAFETY_RECHECK_MS);
  if (hub.kind === 'resolving') {
    b.status({
      ...b.nodeFacts(ws.status?.targetNodeCount || 1),
      inference: { ready: false, reason: HUB_RESOLVING, message: resolvingMessage(hub.name, hub.endpoint) },
    });
    return b.done(HUB_SAFETY_RECHECK_MS);
  }
  if (hub.kind === 'hubFailed' && !sts) {
    const retry = hub.retryInMs ? `; retrying in ${Math.ceil(hub.retryInMs / 1000)}s` : '';
    return b.fail(hub.reason, `${hub.message}${retry}`);
  }
  const inferenceConfig = alphaInferenceConfig(ws, facts, resolved);
  const issues = errorsOf(validateWorkspace(ws, { resolved, operation: 'create', ...(inferenceConfig ? { inferenceConfig } : {}) }));
  if (issues.length) return b.fail(Reason.InvalidSpec, formatIssues(issues));
  const built = buildWorkspace(ws, facts, resolved);
  if (!built.ok) return b.fail(built.problems[0]!.reason, built.problems.map((x) => `${x.field}: ${x.message}`).join('; '));
  // A Secret problem stops a workspace that has no workload yet; a serving one keeps serving and is warned (docs/controller.md).
  const secretProblem = snap.secretProblem;
  if (secretProblem && !sts) return b.fail(secretProblem.reason, secretProblem.message);
  const revision = planRevision(snap, built.objects.controllerRevision, built.revisionHash);
  if (!revision.ok) return b.fail(revision.reason, revision.message);
  // A Service we do not control is never touched.
  const foreignService = [snap.headlessService, snap.mainService].find((svc) => svc && !ownedBy(svc, ws));
  if (foreignService) return b.fail(Reason.NotOwned, notOwnedMessage('Service', foreignService));
  if (snap.nodePool && !nodePoolIsOurs(snap.nodePool, ws)) return b.fail(Reason.NotOwned, notOwnedMessage('NodePool', snap.nodePool));

  b.desired = objectList(built.objects);
  // One write for the finalizer, the revision annotations and the claim count (only our keys: KAITO
  // rewrites the whole annotation map, W23).
  b.metadata({ [ANNOTATION_HASH]: built.revisionHash, [ANNOTATION_REVISION]: String(built.revision) });
  const provisioning = b.provision(built.targetNodeCount, resolved);
  planConfigCopy(b, built);

  const migration = planMigration(
    ws.metadata.uid ?? '',
    snap.deployment,
    !!sts,
    snap.pods.find((p) => p.metadata?.name === `${ws.metadata.name}-0`),
    legacyPodsHoldGpus(snap.pods),
  );
  const services = (servicePod?: string) => planServices(b, built, migration, servicePod);
  if (!sts && provisioning && !provisioning.nodesUsable) {
    // KAITO's order: the workload waits for its nodes (a new StatefulSet would only sit Pending).
    const waiting = provisioning.nodeIssue ?? provisioning.claims;
    b.add(...revision.actions);
    services();
    b.status({
      ...b.nodeFacts(built.targetNodeCount, provisioning, built.objects.statefulSet.spec?.template.spec?.affinity),
      targetNodeCount: built.targetNodeCount,
      inference: { ready: false, reason: Reason.WaitingForNodes, message: `waiting for nodes: ${waiting.message}` },
      decisions: built.decisions,
    });
    return b.done(provisioning.recheckAfterMs);
  }

  // The workload before its Services: on a burst of new workspaces every write waits on the client's
  // QPS budget, and the StatefulSet is what starts the model load (docs/controller.md, "One pass").
  // The revision history, too, is bookkeeping that can follow the model load.
  const { workload, update } = planStatefulSet(b, built, sts, resolved);
  b.add(...revision.actions);
  services(update?.servicePod);
  announceUpdate(b, update);
  if (!workload) {
    // Deleted to change its shape: the delete event brings us back to create it (a surge may serve meanwhile).
    if (update?.updating) b.status({ updating: update.updating });
    return b.done();
  }
  if (volumeKindOf(workload) === 'nvme') planStrandedClaims(b, workload.metadata?.name ?? '');
  planMigrationStep(b, migration);

  const readiness = update?.servedBy ? { readiness: update.servedBy } : inferenceReadiness(b, resolved, workload, migration);
  const inference = withWarning(withDroppedFields(readiness.readiness, built.droppedFields), secretProblem && servingWithSecretProblem(secretProblem));
  announce(b, [secretProblem, ANNOUNCED_REASONS.has(readiness.readiness.reason) ? readiness.readiness : undefined]);
  b.status({
    ...b.nodeFacts(built.targetNodeCount, provisioning, built.objects.statefulSet.spec?.template.spec?.affinity),
    targetNodeCount: built.targetNodeCount,
    inference,
    decisions: built.decisions,
    ...(update?.updating ? { updating: update.updating } : {}),
  });
  return b.done(soonest(readiness.recheckAfterMs, provisioning?.recheckAfterMs, update?.recheckAfterMs));
}

/**
 * The config validation reads, for v1alpha1 workspaces only: KAITO's v1alpha1 rule that multi-GPU
 * workspaces set max-model-len needs it. A missing ConfigMap stays the builder's ConfigMapNotFound.
 */
function alphaInferenceConfig(ws: Workspace, facts: ClusterFacts, resolved: ResolvedWorkspace): InferenceConfigLookup | undefined {
  if (resolved.specVersion !== ALPHA_VERSION) return undefined;
  const lookup = inferenceConfigLookup(ws, facts);
  return lookup.found ? lookup : undefined;
}

/**
 * The default inference ConfigMap copy, created when the builders asked for one. A ConfigMap of that
 * name we did not write is used as found (KAITO's rule) and never deleted; a Warning event says so.
 */
function planConfigCopy(b: PlanBuilder, built: Built): void {
  const { ws, snap } = b;
  const copy = built.objects.configMap;
  const ns = ws.metadata.namespace;
  if (copy) {
    if (findConfigMap(snap, copy.metadata?.namespace ?? 'default', copy.metadata?.name ?? '')) return;
    const labelled = { ...copy, metadata: { ...copy.metadata, labels: { ...copy.metadata?.labels, [MANAGED_BY_LABEL]: MANAGED_BY } } };
    b.add({ kind: 'create', type: Resources.configMaps, object: labelled, why: 'the default inference config, copied into the namespace' });
    return;
  }
  const usesDefault = !!ws.inference?.preset && !ws.inference.config;
  const cm = usesDefault ? findConfigMap(snap, ns ?? 'default', DEFAULT_INFERENCE_CONFIG_TEMPLATE) : undefined;
  if (cm && !writtenBy(cm, snap.fieldManager))
    b.event(
      'Warning',
      Reason.NotOwned,
      notOwnedMessage('ConfigMap', cm, 'it was not created by kaito-ts: it is used as the inference config as found and never deleted'),
    );
}

/** Created when missing, repaired when a field we own drifted. The main Service keeps pointing at the legacy pods until pod 0 serves. */
function planServices(b: PlanBuilder, built: Built, migration: MigrationPlan, servicePod?: string): void {
  const { snap } = b;
  const apply = (desired: V1Service, live: DeepReadonly<V1Service> | undefined, why: string) => {
    if (needsApply(desired, live))
      b.add({
        kind: 'apply',
        type: Resources.services,
        object: desired,
        why: live ? `${why}: a field we own drifted` : why,
        refusedReason: Reason.ChildObjectRejected,
      });
  };
  apply(built.objects.headlessService, snap.headlessService, 'stable pod DNS names');
  const main = built.objects.mainService;
  const target = servicePod ?? `${b.ws.metadata.name}-0`;
  const selected = { ...main, spec: { ...main.spec, selector: { ...main.spec?.selector, [LABEL_STATEFULSET_POD_NAME]: target } } };
  const why = target === `${b.ws.metadata.name}-0` ? 'the inference endpoint (pod 0)' : `the inference endpoint, on surge pod ${target} while pod 0 restarts`;
  if (migration.kind !== 'waitForPod0' || !snap.mainService) apply(kvEventsRidesAlong(selected, snap.mainService), snap.mainService, why);
}

/**
 * KAITO v0.12's `kv-events` port is written with a new Service, or with a change a live Service
 * needs anyway; it is never by itself the reason to write one (KAITO v0.12 never updates a Service
 * it made). A Service made before kaito-ts published the port is left as it is.
 */
function kvEventsRidesAlong(desired: V1Service, live: DeepReadonly<V1Service> | undefined): V1Service {
  if (!live || !hasKvEventsPort(desired) || hasKvEventsPort(live)) return desired;
  const without = withoutKvEventsPort(desired);
  return needsApply(without, live) ? desired : without;
}

/**
 * The StatefulSet this pass leaves behind (as the server will hold it, status as last seen), or
 * undefined when it is deleted to change its immutable weights-volume shape; and the update step
 * (update-plan.ts) when a serving pod is being replaced.
 */
function planStatefulSet(
  b: PlanBuilder,
  built: Built,
  live: DeepReadonly<V1StatefulSet> | undefined,
  resolved: ResolvedWorkspace,
): { workload: DeepReadonly<V1StatefulSet> | undefined; update?: UpdateDecision } {
  const desired = built.objects.statefulSet;
  const ref = { namespace: desired.metadata?.namespace, name: desired.metadata?.name ?? '' };
  const applyIt = (sts: V1StatefulSet, why: string) => {
    // Template fields Kubernetes does not know are announced when the StatefulSet is written (idle passes stay silent).
    if (built.droppedFields) b.event('Warning', Reason.TemplateFieldsDropped, droppedFieldsMessage(built.droppedFields));
    b.add({ kind: 'apply', type: Resources.statefulSets, object: sts, why, refusedReason: Reason.ChildObjectRejected });
  };
  const sameRevision = live?.metadata?.annotations?.[ANNOTATION_REVISION] === String(built.revision);
  // BYO: raised towards the target as matching nodes appear (src/builders/replicas.ts).
  const replicas = replicasFor(built.targetNodeCount, built.replicaBound, live?.spec?.replicas);
  const unchanged = !live || sameRevision || adoptableAsIs(b.ws, desired, live, replicas);
  // A new revision re-decides the weights volume as if creating. Claim templates are immutable, so a
  // different shape means recreating the StatefulSet, announced as a restart.
  const liveKind = live && volumeKindOf(live);
  const freshKind = built.freshWeightsVolume;
  const reshape = !!live && !sameRevision && !!freshKind && freshKind !== liveKind;
  // At its revision the live pod template stays as it is (a replica change writes nothing a pod runs);
  // a new revision takes ours: on a template kaito-ts wrote the four updatable parts whole, the rest
  // as live (KAITO's rule). On one another manager wrote (a takeover), a change that rolls the pod
  // takes our template whole, once its fields are ours (template-ownership.ts): never KAITO's image
  // and command with our init containers. One that rolls nothing (a v0.8.0 takeover) stays selective.
  const main = desired.spec?.template.spec?.containers[0]?.name ?? '';
  const kept = live && !sameRevision && !reshape ? selectiveUpdate(desired, live) : undefined;
  const foreign = !!kept && !!live && foreignTemplate(live, main, FIELD_MANAGER) && needsApply(kept.spec!.template, live.spec?.template);
  // A move between KAITO generations (a legacy name's workload, v0.8.0 → v0.12.0 or back) takes our
  // template whole too: KAITO's selective rule would keep one generation's image and command with the other's init containers.
  const moved = !!kept && movesGeneration(live, desired);
  const selective = !live || reshape ? desired : sameRevision ? atRevisionUpdate(desired, live) : foreign || moved ? wholeTemplateUpdate(desired, live) : kept!;
  const next: V1StatefulSet = { ...selective, spec: { ...selective.spec!, replicas } };
  const update = live || b.snap.surgeSets.length ? updateStep(b, built, resolved, live, next, !unchanged) : undefined;
  if (!live) {
    applyIt(desired, `the workload, ${desired.spec?.replicas} replica(s)`);
    return { workload: { ...desired, status: undefined }, update };
  }
  if (unchanged && (sameRevision ? replicas === live.spec?.replicas : true)) return { workload: live, update };
  if (update?.primary === 'hold') return { workload: live, update };
  if (reshape) {
    const message = `Recreating StatefulSet ${live.metadata?.name}: model weights volume changes from ${liveKind} to ${freshKind} (volume claim templates are immutable); inference restarts`;
    b.event('Warning', Reason.WeightsVolumeChange, message);
    b.add({
      kind: 'delete',
      type: Resources.statefulSets,
      ref,
      uid: live.metadata?.uid ?? '',
      why: `model weights volume changes from ${liveKind} to ${freshKind}; it is created again once gone`,
    });
    return { workload: undefined, update };
  }
  if (foreign) {
    b.add({
      kind: 'takeFieldOwnership',
      type: Resources.statefulSets,
      ref,
      container: main,
      why: 'another manager wrote it; our apply of the new revision replaces it whole',
    });
  }
  applyIt(
    next,
    sameRevision
      ? `replicas ${live.spec?.replicas} → ${replicas}`
      : `revision ${live.metadata?.annotations?.[ANNOTATION_REVISION] ?? 'none'} → ${built.revision}`,
  );
  // A spec change is a new generation the StatefulSet controller has not observed yet.
  const specChanges = needsApply({ spec: next.spec }, { spec: live.spec });
  const workload = {
    ...live,
    metadata: { ...live.metadata, generation: (live.metadata?.generation ?? 0) + (specChanges ? 1 : 0) },
    spec: { ...live.spec!, replicas },
  };
  return { workload, update };
}

/** Both workloads' generations are recognised and differ. */
function movesGeneration(live: DeepReadonly<V1StatefulSet> | undefined, desired: V1StatefulSet): boolean {
  const from = workloadGeneration(live);
  const to = workloadGeneration(desired);
  return from !== undefined && to !== undefined && from !== to;
}

/** The zero-downtime update's step for this pass; its actions and annotations join the plan here. */
function updateStep(
  b: PlanBuilder,
  built: Built,
  resolved: ResolvedWorkspace,
  live: DeepReadonly<V1StatefulSet> | undefined,
  next: V1StatefulSet,
  pending: boolean,
): UpdateDecision {
  const { snap } = b;
  const provisioner = provisionerOf(snap.config);
  const decision = planUpdate({
    snap,
    policy: updatePolicyOf(b.ws, snap.config.defaultUpdateStrategy ?? DEFAULT_UPDATE_STRATEGY),
    ...(live ? { live } : {}),
    next,
    pending,
    revision: built.revision,
    hash: surgeHash(built.revision, built.revisionHash),
    singleNode: built.targetNodeCount === 1 && (live?.spec?.replicas ?? 1) === 1,
    capacity: provisioner === 'karpenter' ? 'karpenter' : snap.provisioning === 'on' ? 'nodeClaims' : 'byo',
    resolved,
    loadTimeoutMs: (foundPreset(resolved.inferencePreset)?.readinessTimeoutSeconds ?? TEMPLATE_READINESS_TIMEOUT_SECONDS) * 1000,
  });
  if (decision.annotations) b.metadata(decision.annotations);
  b.add(...decision.actions);
  return decision;
}

/** Weights claims stranded on a vanished node: deleted with their unscheduled pod, so the pod follows to a node that exists. */
function planStrandedClaims(b: PlanBuilder, statefulSet: string): void {
  const { snap } = b;
  const ns = b.ws.metadata.namespace ?? 'default';
  const volume = (pv: string) => objectNamed(snap.volumes, pv);
  // A local volume names its node by hostname label, which is not always the node name (Karpenter's
  // kwok nodes carry their NodeClaim's name): either identifies a node that still exists.
  const known = knownNodeNames(snap.nodes);
  const nodeExists = (n: string) => known.has(n);
  for (const s of strandedClaims(statefulSet, snap.weightsClaims, snap.pods, volume, nodeExists)) {
    const claimName = s.claim.metadata?.name ?? '';
    b.event(
      'Warning',
      Reason.WeightsClaimStranded,
      `Weights claim ${claimName} ${s.why}; deleting it${s.pod ? ` and pod ${s.pod.metadata?.name}` : ''} so the pod gets a new claim on a node that exists (the weights are downloaded again)`,
    );
    b.add({
      kind: 'delete',
      type: Resources.persistentVolumeClaims,
      ref: { namespace: ns, name: claimName },
      uid: s.claim.metadata?.uid ?? '',
      why: `stranded: ${s.why}`,
    });
    if (s.pod)
      b.add({
        kind: 'delete',
        type: Resources.pods,
        ref: { namespace: ns, name: s.pod.metadata?.name ?? '' },
        uid: s.pod.metadata?.uid ?? '',
        why: 'its weights claim is stranded',
      });
  }
}

function planMigrationStep(b: PlanBuilder, m: MigrationPlan): void {
  // Not ours: left alone, said in a Warning event; InferenceReady still reflects our StatefulSet.
  if (m.kind === 'foreign') b.event('Warning', Reason.NotOwned, m.message);
  if (m.kind !== 'deleteDeployment' && m.kind !== 'deleteDeploymentFirst') return;
  if (m.kind === 'deleteDeploymentFirst') {
    // Say it before doing it: the workspace is about to stop serving.
    b.status({ failure: undefined, inference: { ready: false, reason: Reason.WorkloadMigration, message: m.message } });
    b.event('Warning', Reason.WorkloadMigration, m.message);
  } else {
    b.event('Normal', Reason.WorkloadMigration, m.message);
  }
  b.add({
    kind: 'delete',
    type: Resources.deployments,
    ref: { namespace: b.ws.metadata.namespace, name: b.ws.metadata.name ?? '' },
    uid: m.uid,
    why: 'the legacy workload, replaced by the StatefulSet',
  });
}

/**
 * A Warning event for each problem InferenceReady starts naming: a new reason, or a warning its
 * message did not carry. A reason whose text moves (a scheduler message naming the node count) is announced once.
 */
function announce(b: PlanBuilder, problems: ({ reason: string; message: string } | undefined)[]): void {
  const before = findCondition(b.ws.status?.conditions, ConditionType.InferenceReady);
  for (const p of problems) if (p && before?.reason !== p.reason && !before?.message.includes(p.message)) b.event('Warning', p.reason, p.message);
}

function inferenceReadiness(
  b: PlanBuilder,
  resolved: ResolvedWorkspace,
  sts: DeepReadonly<V1StatefulSet>,
  migration: MigrationPlan,
): { readiness: Readiness; recheckAfterMs?: number } {
  if (migration.kind === 'waitForPod0') return { readiness: { ready: false, reason: Reason.WorkloadMigration, message: migration.message } };
  const { snap, ws } = b;
  const uid = sts.metadata?.uid;
  // Only our StatefulSet's pods explain it: a foreign Deployment's pods may carry the same label.
  const observed = statefulSetReadiness(
    sts,
    snap.pods.filter((p) => !!uid && controllerOf(p)?.uid === uid),
    snap.nodes,
  );
  const base = (!observed.ready && podCreationFailure(sts, snap.failedCreateEvents)) || observed;
  const current = findCondition(ws.status?.conditions, ConditionType.InferenceReady);
  const since = current?.status === 'False' ? new Date(current.lastTransitionTime) : snap.now;
  const timeout = foundPreset(resolved.inferencePreset)?.readinessTimeoutSeconds ?? TEMPLATE_READINESS_TIMEOUT_SECONDS;
  return withReadinessTimeout(base, since, timeout, snap.now);
}

/** An event for each step of an update, a Warning for those that cost something (a gap, a lost revision). */
function announceUpdate(b: PlanBuilder, update: UpdateDecision | undefined): void {
  const u = update?.updating;
  if (!u) return;
  const costly: string[] = [UpdateReason.SurgeFailed, UpdateReason.FellBackToRecreate, UpdateReason.Recreating];
  b.event(costly.includes(u.reason) ? 'Warning' : 'Normal', u.reason, u.message);
  const notes = updatePolicyOf(b.ws, b.snap.config.defaultUpdateStrategy ?? DEFAULT_UPDATE_STRATEGY).notes;
  for (const note of notes) b.event('Warning', 'InvalidUpdateAnnotation', note);
}
