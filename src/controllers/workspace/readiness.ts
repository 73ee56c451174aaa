// Whether a workspace's inference workload is really serving, derived only from observed objects.
// KAITO compares readyReplicas with replicas; that lies during rollouts (W6) and for crash loops
// (#1493). Here every field the StatefulSet controller reports must agree, and pods explain why not.
import type { V1Node, V1Pod, V1StatefulSet } from '@kubernetes/client-node';
import { droppedFieldsMessage } from '../../builders/template.js';
import { explainPods, isPodReady, PodProblem } from './pod-problems.js';
import { POD_CREATION_FAILED } from './pod-creation.js';
import type { DeepReadonly } from '../../runtime/readonly.js';

export type Readiness = { ready: true; reason: string; message: string } | { ready: false; reason: string; message: string };

/** Reasons kaito-ts writes on InferenceReady=False besides KAITO's own (pod causes: PodProblem). */
export const NotReadyReason = {
  StatefulSetNotFound: 'StatefulSetNotFound',
  RolloutInProgress: 'RolloutInProgress',
  PodsNotReady: 'PodsNotReady',
  ReadinessTimeout: 'InferenceReadinessTimeout',
} as const;

export { isPodReady, PodProblem } from './pod-problems.js';

/** Not-ready reasons that name a problem (not progress): each new one also gets a Warning event. */
export const ANNOUNCED_REASONS: ReadonlySet<string> = new Set([...Object.values(PodProblem), POD_CREATION_FAILED, NotReadyReason.ReadinessTimeout]);

/** Pods of the StatefulSet that should exist (`<name>-0` … `<name>-<replicas-1>`), legacy pods excluded. */
function expectedPods(sts: DeepReadonly<V1StatefulSet>, pods: readonly DeepReadonly<V1Pod>[]): DeepReadonly<V1Pod>[] {
  const name = sts.metadata?.name ?? '';
  const desired = sts.spec?.replicas ?? 1;
  return pods.filter((p) => {
    const m = /-(\d+)$/.exec(p.metadata?.name ?? '');
    return !!m && p.metadata?.name === `${name}-${m[1]}` && Number(m[1]) < desired;
  });
}

/** The truth about a StatefulSet rollout: generation observed, every replica updated and ready, one revision. */
export function statefulSetReadiness(
  sts: DeepReadonly<V1StatefulSet> | undefined,
  allPods: readonly DeepReadonly<V1Pod>[],
  nodes?: readonly DeepReadonly<V1Node>[],
): Readiness {
  if (!sts) return { ready: false, reason: NotReadyReason.StatefulSetNotFound, message: 'the StatefulSet has not been created yet' };
  const name = sts.metadata?.name ?? '?';
  const desired = sts.spec?.replicas ?? 1;
  const st = sts.status;
  const generation = sts.metadata?.generation ?? 0;
  // One message for every step of a rollout (not yet observed, pods being replaced), without the
  // ready count: the status is rewritten when the reason changes, not as old pods go and new ones come.
  const rolling = {
    ready: false as const,
    reason: NotReadyReason.RolloutInProgress,
    message: `StatefulSet ${name}: rollout of ${desired} replica(s) in progress`,
  };
  // The first generation has no old pods to replace: until the StatefulSet controller observes it, it
  // is explained as it will be once observed (its pods, PodsNotReady), so the observation writes nothing.
  const observed = !!st && (st.observedGeneration ?? 0) >= generation;
  if (!observed && generation > 1) return rolling;
  const ready = st?.readyReplicas ?? 0;
  const updated = st?.updatedReplicas ?? 0;
  const current = st?.replicas ?? 0;
  const oneRevision = !!st?.updateRevision && st.currentRevision === st.updateRevision;
  const pods = expectedPods(sts, allPods);
  // Every pod of the group, not just the count the StatefulSet last reported: a dead Ray worker
  // leaves vLLM on pod 0 running, and the pod is what says so first.
  const downPod = pods.find((p) => !isPodReady(p));
  if (observed && desired > 0 && ready === desired && updated === desired && current === desired && oneRevision && !downPod) {
    return { ready: true, reason: 'WorkspaceInferenceStatusSuccess', message: 'Inference has been deployed successfully' };
  }
  const fromPods = explainPods(pods, nodes);
  if (fromPods) return { ready: false, ...fromPods };
  if (downPod && ready === desired)
    return { ready: false, reason: NotReadyReason.PodsNotReady, message: `StatefulSet ${name}: pod ${downPod.metadata?.name} is not ready` };
  // Generation 1 has no older pods to replace: until its pods exist the StatefulSet controller reports 0
  // updated replicas and a revision not yet current, which is creation, not a rollout (no status flap).
  if (observed && generation > 1 && (updated < desired || !oneRevision)) return rolling;
  return { ready: false, reason: NotReadyReason.PodsNotReady, message: `StatefulSet ${name}: ${ready}/${desired} replicas ready` };
}

/**
 * Applies the preset's readiness timeout: a workload that has been not-ready for longer than
 * `timeoutSeconds` since `notReadySince` reports InferenceReadinessTimeout. Returns the readiness and,
 * when still within the window, how long until the timeout fires (so the caller can requeue instead of polling).
 */
export function withReadinessTimeout(
  r: Readiness,
  notReadySince: Date | undefined,
  timeoutSeconds: number,
  now: Date,
): { readiness: Readiness; recheckAfterMs?: number } {
  if (r.ready || !notReadySince || timeoutSeconds <= 0) return { readiness: r };
  const elapsedMs = now.getTime() - notReadySince.getTime();
  const leftMs = timeoutSeconds * 1000 - elapsedMs;
  if (leftMs > 0) return { readiness: r, recheckAfterMs: leftMs };
  return {
    readiness: {
      ready: false,
      reason: NotReadyReason.ReadinessTimeout,
      message: `not ready after ${Math.round(elapsedMs / 1000)}s (timeout ${timeoutSeconds}s): ${r.message}`,
    },
  };
}

/** Names template fields that were dropped in the InferenceReady message, ready or not. */
export function withDroppedFields(r: Readiness, dropped: readonly string[] | undefined): Readiness {
  return dropped?.length ? { ...r, message: `${r.message}; ${droppedFieldsMessage(dropped)}` } : r;
}

/** Appends a warning to the InferenceReady message without changing its status (a serving workload stays True). */
export function withWarning(r: Readiness, warning: string | undefined): Readiness {
  return warning ? { ...r, message: `${r.message}; ${warning}` } : r;
}
