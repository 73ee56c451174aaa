// Zero-downtime updates of a single-node workspace (docs/controller.md, "Updates"). Pure: every step
// is read back from the objects (the surge StatefulSet, the pod the main Service selects, the
// endpoints observed, the primary's revision annotation), so a restart resumes where it stopped.
//
//   surge created → surge Ready → Service on the surge → its endpoint observed → primary restarts
//   (warm, on its own weights claim) → primary Ready → Service back → endpoint observed → surge deleted
//
// Without capacity (or by choice), the new images are pulled onto the primary's node first and the
// pod restarts in place, announced in the Updating condition before it happens.
import type { V1Job, V1Pod, V1StatefulSet } from '@kubernetes/client-node';
import { ACCELERATOR_NVIDIA, ANNOTATION_SURGE_FAILED, LABEL_ACCELERATOR, CONDITION_UPDATING, LABEL_PREPULL, LABEL_SURGE } from '../../api/labels.js';
import type { ResolvedWorkspace } from '../../api/resolved-workspace.js';
import type { UpdatePolicy } from '../../api/update-strategy.js';
import { findCondition } from '../../api/workspace-conditions.js';
import { prepullJob, podImages, surgeName, surgeNameFits, surgeNodeClaim, surgeStatefulSet } from '../../builders/surge.js';
import { objectNamed } from '../../runtime/memo.js';
import { controllerOf } from '../../runtime/cache.js';
import { formatDuration } from '../../runtime/duration.js';
import type { DeepReadonly } from '../../runtime/readonly.js';
import { Resources } from '../../runtime/resources.js';
import type { Action } from '../shared/actions.js';
import { ownedBy } from './ownership.js';
import { explainPods, isPodReady } from './pod-problems.js';
import { statefulSetReadiness, type Readiness } from './readiness.js';
import type { WorkspaceSnapshot } from './snapshot.js';

/** A pre-pull that has not finished by then no longer holds the restart back. */
export const PREPULL_TIMEOUT_MS = 10 * 60_000;
/** Safety recheck while waiting on the endpoints controller (its EndpointSlice events are what wake us). */
const ENDPOINTS_RECHECK_MS = 5_000;

export const UpdateReason = {
  SurgeStarting: 'SurgeStarting',
  SurgeWaitingCapacity: 'SurgeWaitingCapacity',
  SurgeReady: 'SurgeReady',
  ServingFromSurge: 'ServingFromSurge',
  PrimaryReady: 'PrimaryReady',
  CutoverComplete: 'CutoverComplete',
  SurgeFailed: 'SurgeFailed',
  FellBackToRecreate: 'FellBackToRecreate',
  Recreating: 'Recreating',
  PullingImages: 'PullingImages',
} as const;

export interface UpdatingCondition {
  status: 'True' | 'False';
  reason: string;
  message: string;
}

export interface UpdateInput {
  snap: WorkspaceSnapshot;
  policy: UpdatePolicy;
  /** The primary StatefulSet as observed (absent while it is recreated), and as it is to be after this revision's update. */
  live?: DeepReadonly<V1StatefulSet>;
  next: V1StatefulSet;
  /** The primary's template changes this pass (a new revision it does not have yet). */
  pending: boolean;
  revision: number;
  hash: string;
  /** One pod on one node: what a surge can stand in for. */
  singleNode: boolean;
  /** gpu-provisioner NodeClaims make the surge's node; BYO needs a free matching node; Karpenter: not yet. */
  capacity: 'byo' | 'nodeClaims' | 'karpenter';
  resolved: Pick<ResolvedWorkspace, 'cloud' | 'inferencePreset'>;
  /** The preset's readiness timeout: how long a surge pod may take to load its model. */
  loadTimeoutMs: number;
}

export interface UpdateDecision {
  /** `update`: write the primary's new template now (or nothing is pending); `hold`: leave the primary as it is. */
  primary: 'update' | 'hold';
  /** The pod the main Service is to select. */
  servicePod: string;
  /** Set when the Updating condition changes. */
  updating?: UpdatingCondition;
  /** A surge pod that serves in the primary's place, for InferenceReady. */
  servedBy?: Readiness;
  actions: Action[];
  /** Workspace annotations to write (a surge given up). */
  annotations?: Record<string, string>;
  recheckAfterMs?: number;
}

const podNamed = (snap: WorkspaceSnapshot, name: string, owner: DeepReadonly<V1StatefulSet> | undefined) =>
  owner ? snap.pods.find((p) => p.metadata?.name === name && controllerOf(p)?.uid === owner.metadata?.uid) : undefined;

/** The main Service's endpoints: serving pod names, or undefined where they are not observed (diff, render). */
function endpointsShow(snap: WorkspaceSnapshot, pod: string, others: readonly string[], ready: boolean): boolean {
  if (!snap.servingPods) return ready;
  return snap.servingPods.includes(pod) && !others.some((o) => snap.servingPods!.includes(o));
}

export function planUpdate(i: UpdateInput): UpdateDecision {
  const { snap, live, hash } = i;
  const ws = snap.ws;
  const name = ws.metadata.name ?? '';
  const primaryName = `${name}-0`;
  const primaryPod = podNamed(snap, primaryName, live);
  const atRevision = !i.pending;
  const primaryCurrent = atRevision && !!live && statefulSetReadiness(live, snap.pods).ready;
  const svcPod = snap.mainService?.spec?.selector?.['statefulset.kubernetes.io/pod-name'] ?? primaryName;
  const before = findCondition(ws.status?.conditions, CONDITION_UPDATING);
  const out: UpdateDecision = { primary: 'update', servicePod: primaryName, actions: [] };
  const say = (u: UpdatingCondition) => {
    if (!before || before.status !== u.status || before.reason !== u.reason || before.message !== u.message) out.updating = u;
  };
  const cleanup = (why: string, keep?: DeepReadonly<V1StatefulSet>) => {
    const keepHash = keep?.metadata?.labels?.[LABEL_SURGE];
    out.actions.push(...deleteSurges(snap, (hash) => hash !== keepHash, why));
  };
  const dropPrepull = () => {
    for (const j of snap.prepullJobs.filter((x) => !x.metadata?.deletionTimestamp))
      out.actions.push({
        kind: 'delete',
        type: Resources.jobs,
        ref: { namespace: j.metadata?.namespace, name: j.metadata?.name ?? '' },
        uid: j.metadata?.uid ?? '',
        why: 'its images are on the node',
        propagationPolicy: 'Foreground',
      });
  };

  // 1. A surge serves: the primary takes the new template behind it, then the Service returns.
  const servingSurge = snap.surgeSets.find((s) => svcPod === `${s.metadata?.name}-0`);
  if (servingSurge) {
    const surgePodName = `${servingSurge.metadata?.name}-0`;
    const surgePod = podNamed(snap, surgePodName, servingSurge);
    if (primaryCurrent) {
      say({ status: 'True', reason: UpdateReason.PrimaryReady, message: `pod ${primaryName} is ready with revision ${i.revision}; the Service returns to it` });
      return { ...out, servedBy: servedBy(surgePod, surgePodName, primaryName) };
    }
    if (!isPodReady(surgePod) && !atRevision && isPodReady(primaryPod)) {
      // Lost before the primary was touched: the primary still serves the old revision.
      say({
        status: 'True',
        reason: UpdateReason.SurgeFailed,
        message: `surge pod ${surgePodName} stopped serving before pod ${primaryName} restarted; the Service returns to ${primaryName}`,
      });
      return { ...out, primary: 'hold' };
    }
    out.servicePod = surgePodName;
    if (!atRevision && !endpointsShow(snap, surgePodName, [primaryName], isPodReady(surgePod))) {
      say({
        status: 'True',
        reason: UpdateReason.SurgeReady,
        message: `pod ${surgePodName} is ready; waiting for the Service's endpoints to move to it before pod ${primaryName} restarts`,
      });
      return { ...out, primary: 'hold', recheckAfterMs: ENDPOINTS_RECHECK_MS };
    }
    const primaryState = atRevision ? statefulSetReadiness(live, snap.pods, snap.nodes) : undefined;
    const detail = primaryState && !primaryState.ready ? `: ${primaryState.message}` : '';
    say({
      status: 'True',
      reason: UpdateReason.ServingFromSurge,
      message: isPodReady(surgePod)
        ? `pod ${surgePodName} serves revision ${i.revision} while pod ${primaryName} restarts with it${detail}`
        : `neither surge pod ${surgePodName} nor pod ${primaryName} is ready; the Service stays on the surge until one is${detail}`,
    });
    return { ...out, servedBy: servedBy(surgePod, surgePodName, primaryName) };
  }

  // 2. The primary has this revision: remove what the update left once the endpoints show the primary.
  if (atRevision) {
    const surgePods = snap.surgeSets.map((s) => `${s.metadata?.name}-0`);
    if (snap.surgeSets.length && !primaryCurrent) {
      // The primary failed after the Service returned to it: a ready surge serves again.
      const standIn = snap.surgeSets.find((s) => isPodReady(podNamed(snap, `${s.metadata?.name}-0`, s)));
      if (standIn && !isPodReady(primaryPod)) {
        out.servicePod = `${standIn.metadata?.name}-0`;
        const state = statefulSetReadiness(live, snap.pods, snap.nodes);
        say({
          status: 'True',
          reason: UpdateReason.ServingFromSurge,
          message: `pod ${out.servicePod} serves while pod ${primaryName} is not ready: ${state.message}`,
        });
        return { ...out, servedBy: servedBy(podNamed(snap, out.servicePod, standIn), out.servicePod, primaryName) };
      }
      cleanup('the primary has the current revision; a surge that does not serve is of no use');
      return out;
    }
    if (snap.surgeSets.length && !endpointsShow(snap, primaryName, surgePods, primaryCurrent)) return { ...out, recheckAfterMs: ENDPOINTS_RECHECK_MS };
    cleanup('the update is complete: the primary serves the new revision');
    if (primaryCurrent) dropPrepull();
    if (before?.status === 'True' && primaryCurrent)
      say({ status: 'False', reason: UpdateReason.CutoverComplete, message: `revision ${i.revision} serves from pod ${primaryName}` });
    return out;
  }

  // 3. A new revision, the primary on the old one.
  cleanup(
    'superseded by a newer revision',
    snap.surgeSets.find((s) => s.metadata?.labels?.[LABEL_SURGE] === hash),
  );
  if (!isPodReady(primaryPod)) return out; // nothing serves: nothing to protect
  const failed = ws.metadata.annotations?.[ANNOTATION_SURGE_FAILED];
  if (failed === `${hash}:Failed`) return { ...out, primary: 'hold' };
  const inPlace = inPlaceReason(i, failed === `${hash}:NoCapacity`);
  if (inPlace) return recreate(i, out, primaryPod!, inPlace, say);
  return surge(i, out, say);
}

/** Why this update restarts the pod in place instead of surging, if it does. */
function inPlaceReason(i: UpdateInput, noCapacity: boolean): { reason: string; why: string } | undefined {
  if (i.policy.strategy === 'Recreate') return { reason: UpdateReason.Recreating, why: 'update strategy Recreate' };
  if (!i.singleNode) return { reason: UpdateReason.Recreating, why: 'a multi-node workspace restarts all its pods together (no group surge)' };
  if (i.capacity === 'karpenter') return { reason: UpdateReason.Recreating, why: 'no surge node under Karpenter NodePools yet' };
  if (!surgeNameFits(i.snap.ws, i.hash))
    return { reason: UpdateReason.Recreating, why: `the name ${surgeName(i.snap.ws, i.hash)} is too long for a StatefulSet` };
  if (noCapacity) return { reason: UpdateReason.FellBackToRecreate, why: 'no capacity for a surge pod' };
  return undefined;
}

function servedBy(pod: DeepReadonly<V1Pod> | undefined, podName: string, primaryName: string): Readiness | undefined {
  if (!isPodReady(pod)) return undefined;
  return { ready: true, reason: 'WorkspaceInferenceStatusSuccess', message: `Inference is served by surge pod ${podName} while pod ${primaryName} restarts` };
}

type Say = (u: UpdatingCondition) => void;

/** The surge path: create, wait for its pod, and give up (delete it, keep the primary) on failure. */
function surge(i: UpdateInput, out: UpdateDecision, say: Say): UpdateDecision {
  const { snap, hash } = i;
  const ws = snap.ws;
  const primaryName = `${ws.metadata.name}-0`;
  const name = surgeName(ws, hash);
  const podName = `${name}-0`;
  const current = snap.surgeSets.find((s) => s.metadata?.labels?.[LABEL_SURGE] === hash);
  const claim = snap.claims.find((c) => c.metadata.labels?.[LABEL_SURGE] === hash);
  const wantClaim = i.capacity === 'nodeClaims' && !claim;
  const claimAction = (): Action => {
    const object = surgeNodeClaim(ws, i.resolved, hash);
    return { kind: 'create', type: Resources.nodeClaims, object, why: `the node of surge pod ${podName}` };
  };
  out.primary = 'hold';
  if (!current) {
    // A foreign StatefulSet of that name is never touched: no surge then.
    const taken = snap.statefulSetNamed(name);
    if (taken && !ownedBy(taken, ws)) return giveUp(i, out, say, 'NoCapacity', `a StatefulSet named ${name} exists and is not ours`);
    if (wantClaim) out.actions.push(claimAction());
    out.actions.push({
      kind: 'apply',
      type: Resources.statefulSets,
      object: surgeStatefulSet(ws, i.next, hash),
      why: `surge for revision ${i.revision}: pod ${primaryName} keeps serving until it is ready`,
    });
    say({
      status: 'True',
      reason: UpdateReason.SurgeStarting,
      message: `starting surge pod ${podName} with revision ${i.revision}; pod ${primaryName} keeps serving`,
    });
    return out;
  }
  if (wantClaim) out.actions.push(claimAction());
  // As for the workspace's own claims: some device plugins select nodes by this label.
  const claimNode = claim?.status?.nodeName ? objectNamed(snap.nodes, claim.status?.nodeName) : undefined;
  if (claimNode && claimNode.metadata?.labels?.[LABEL_ACCELERATOR] !== ACCELERATOR_NVIDIA)
    out.actions.push({
      kind: 'labelNode',
      name: claimNode.metadata?.name ?? '',
      resourceVersion: claimNode.metadata?.resourceVersion,
      labels: { [LABEL_ACCELERATOR]: ACCELERATOR_NVIDIA },
    });
  const pod = snap.pods.find((p) => p.metadata?.name === podName && controllerOf(p)?.uid === current.metadata?.uid);
  if (isPodReady(pod)) {
    out.servicePod = podName;
    say({ status: 'True', reason: UpdateReason.SurgeReady, message: `surge pod ${podName} is ready; the Service moves to it` });
    return { ...out, recheckAfterMs: ENDPOINTS_RECHECK_MS };
  }
  const age = ageMs(current.metadata?.creationTimestamp, snap.now);
  const scheduled = pod?.status?.conditions?.find((c) => c.type === 'PodScheduled');
  const unscheduled = !pod?.spec?.nodeName;
  // Not placed yet and the scheduler has not said why: it is still deciding.
  const deciding = unscheduled && scheduled?.status !== 'False';
  if (deciding && !claim) {
    say({
      status: 'True',
      reason: UpdateReason.SurgeStarting,
      message: `starting surge pod ${podName} with revision ${i.revision}; pod ${primaryName} keeps serving`,
    });
    return out;
  }
  if (unscheduled) {
    const launchFailed = claim?.status?.conditions?.some((c) => c.type === 'Launched' && c.status === 'False');
    const left = i.policy.surgeTimeoutMs - age;
    const noRoom = scheduled?.status === 'False' ? `: ${scheduled.message ?? scheduled.reason}` : '';
    if (i.policy.strategy === 'SurgeIfCapacity') {
      if (i.capacity === 'byo' && scheduled?.status === 'False')
        return giveUp(i, out, say, 'NoCapacity', `no free matching node for surge pod ${podName}${noRoom}`);
      if (launchFailed) return giveUp(i, out, say, 'NoCapacity', `the surge node could not be launched (NodeClaim ${claim?.metadata.name})`);
      if (left <= 0) return giveUp(i, out, say, 'NoCapacity', `no node for surge pod ${podName} after ${formatDuration(i.policy.surgeTimeoutMs)}`);
    }
    say({
      status: 'True',
      reason: UpdateReason.SurgeWaitingCapacity,
      message: `surge pod ${podName} waits for a node${noRoom}; pod ${primaryName} keeps serving`,
    });
    return i.policy.strategy === 'SurgeIfCapacity' ? { ...out, recheckAfterMs: Math.max(1_000, left) } : out;
  }
  const problem = explainPods(pod ? [pod] : [], snap.nodes);
  const loading = ageMs(scheduled?.lastTransitionTime, snap.now);
  if (problem && problem.reason !== 'Unschedulable') return giveUp(i, out, say, 'Failed', `surge pod ${podName}: ${problem.message}`);
  if (loading > i.loadTimeoutMs) return giveUp(i, out, say, 'Failed', `surge pod ${podName} not ready after ${formatDuration(i.loadTimeoutMs)}`);
  say({
    status: 'True',
    reason: UpdateReason.SurgeStarting,
    message: `surge pod ${podName} loads revision ${i.revision} on node ${pod?.spec?.nodeName}; pod ${primaryName} keeps serving`,
  });
  return { ...out, recheckAfterMs: Math.max(1_000, i.loadTimeoutMs - loading) };
}

/** Deletes of the surge StatefulSets, and their NodeClaims, whose surge hash `which` selects (those not already going). */
function deleteSurges(snap: WorkspaceSnapshot, which: (hash: string) => boolean, why: string): Action[] {
  const sets = snap.surgeSets.filter((x) => which(x.metadata?.labels?.[LABEL_SURGE] ?? '') && !x.metadata?.deletionTimestamp);
  const claims = snap.claims.filter((x) => !!x.metadata.labels?.[LABEL_SURGE] && which(x.metadata.labels[LABEL_SURGE]) && !x.metadata.deletionTimestamp);
  return [
    ...sets.map((x): Action => ({
      kind: 'delete',
      type: Resources.statefulSets,
      ref: { namespace: x.metadata?.namespace, name: x.metadata?.name ?? '' },
      uid: x.metadata?.uid ?? '',
      why,
    })),
    ...claims.map((c): Action => ({ kind: 'delete', type: Resources.nodeClaims, ref: { name: c.metadata.name }, uid: c.metadata.uid ?? '', why })),
  ];
}

/** Deletes the surge and remembers why: a failure holds the primary; no capacity restarts it in place. */
function giveUp(i: UpdateInput, out: UpdateDecision, say: Say, cause: 'Failed' | 'NoCapacity', why: string): UpdateDecision {
  const { snap, hash } = i;
  out.actions.push(...deleteSurges(snap, (h) => h === hash, why));
  out.annotations = { [ANNOTATION_SURGE_FAILED]: `${hash}:${cause}` };
  const primaryName = `${snap.ws.metadata.name}-0`;
  if (cause === 'Failed') {
    say({
      status: 'False',
      reason: UpdateReason.SurgeFailed,
      message: `${why}; revision ${i.revision} is not rolled out and pod ${primaryName} keeps serving the previous one until the spec changes`,
    });
  } else {
    say({ status: 'True', reason: UpdateReason.FellBackToRecreate, message: `${why}; pod ${primaryName} will restart in place` });
  }
  out.primary = 'hold';
  return { ...out, recheckAfterMs: 0 };
}

/**
 * The restart in place: announced first (a pass of its own), the new images pulled onto the node by a
 * Job, then the primary updated. The message bounds the gap by the pod's last start.
 */
function recreate(i: UpdateInput, out: UpdateDecision, primaryPod: DeepReadonly<V1Pod>, why: { reason: string; why: string }, say: Say): UpdateDecision {
  const { snap, hash } = i;
  const ws = snap.ws;
  const primaryName = `${ws.metadata.name}-0`;
  const lastStart = lastStartSeconds(primaryPod);
  const gap = lastStart !== undefined ? `about a restart from its weights claim, at most ${lastStart}s (its last start)` : 'a restart from its weights claim';
  const announce = `${why.why}: pod ${primaryName} restarts in place with revision ${i.revision}; inference stops for ${gap}`;
  const before = findCondition(ws.status?.conditions, CONDITION_UPDATING);
  const announced =
    before?.status === 'True' &&
    (before.reason === why.reason || before.reason === UpdateReason.PullingImages) &&
    before.message.includes(`revision ${i.revision}`);
  const node = primaryPod.spec?.nodeName;
  const images = i.singleNode ? podImages(i.next.spec?.template.spec) : [];
  const job = snap.prepullJobs.find((j) => j.metadata?.labels?.[LABEL_PREPULL] === hash);
  const pulling = images.length > 0 && !!node && !jobFinished(job, snap.now);
  if (pulling && !job && node) {
    out.actions.push({
      kind: 'create',
      type: Resources.jobs,
      object: prepullJob(ws, hash, images, node, i.next.spec!.template.spec!),
      why: `pull ${images.length} image(s) onto node ${node} before pod ${primaryName} restarts`,
    });
  }
  if (!announced || pulling) {
    say({
      status: 'True',
      reason: pulling ? UpdateReason.PullingImages : why.reason,
      message: pulling ? `${announce}, once the new images are on node ${node}` : announce,
    });
    const left = job ? PREPULL_TIMEOUT_MS - ageMs(job.metadata?.creationTimestamp, snap.now) : PREPULL_TIMEOUT_MS;
    return { ...out, primary: 'hold', recheckAfterMs: pulling ? Math.max(1_000, left) : 0 };
  }
  // Announced in an earlier pass; the primary goes now.
  say({ status: 'True', reason: why.reason, message: announce });
  return out;
}

function jobFinished(job: DeepReadonly<V1Job> | undefined, now: Date): boolean {
  if (!job) return false;
  const st = job.status;
  if ((st?.succeeded ?? 0) > 0 || (st?.failed ?? 0) > 0) return true;
  return ageMs(job.metadata?.creationTimestamp, now) > PREPULL_TIMEOUT_MS;
}

function lastStartSeconds(pod: DeepReadonly<V1Pod>): number | undefined {
  const started = pod.status?.startTime;
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'True')?.lastTransitionTime;
  if (!started || !ready) return undefined;
  return Math.max(0, Math.round((new Date(ready).getTime() - new Date(started).getTime()) / 1000));
}

function ageMs(since: Date | string | undefined, now: Date): number {
  return since ? now.getTime() - new Date(since).getTime() : 0;
}
