// Whether a workspace's inference workload is really serving, derived only from observed objects.
// KAITO compares readyReplicas with replicas; that lies during rollouts (W6) and for crash loops
// (#1493). Here every field the StatefulSet controller reports must agree, and pods explain why not.
import type { V1Pod, V1StatefulSet } from '@kubernetes/client-node';
import { droppedFieldsMessage } from '../../builders/template.js';
import { isReady } from '../../runtime/conditions.js';

export type Readiness =
  | { ready: true; reason: string; message: string }
  | { ready: false; reason: string; message: string };

/** Reasons kaito-ts writes on InferenceReady=False besides KAITO's own. */
export const NotReadyReason = {
  StatefulSetNotFound: 'StatefulSetNotFound',
  RolloutInProgress: 'RolloutInProgress',
  PodsNotReady: 'PodsNotReady',
  PodUnschedulable: 'PodUnschedulable',
  PodCrashLooping: 'PodCrashLooping',
  PodFailed: 'PodFailed',
  ReadinessTimeout: 'InferenceReadinessTimeout',
} as const;

const CRASH_REASONS = new Set(['CrashLoopBackOff', 'ErrImagePull', 'ImagePullBackOff', 'CreateContainerConfigError', 'InvalidImageName', 'RunContainerError']);

/** Pod-level explanation for a workspace that is not ready yet, worst problem first. */
export function explainPods(pods: readonly V1Pod[]): Readiness | undefined {
  const sorted = [...pods].sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  for (const pod of sorted) {
    const name = pod.metadata?.name ?? '?';
    const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
    for (const cs of statuses) {
      const waiting = cs.state?.waiting?.reason;
      if (waiting && CRASH_REASONS.has(waiting)) {
        const detail = cs.state?.waiting?.message ? `: ${cs.state.waiting.message}` : '';
        return { ready: false, reason: NotReadyReason.PodCrashLooping, message: `pod ${name} container ${cs.name} is in ${waiting} (restarts: ${cs.restartCount ?? 0})${detail}` };
      }
    }
    if (pod.status?.phase === 'Failed') {
      return { ready: false, reason: NotReadyReason.PodFailed, message: `pod ${name} failed: ${pod.status.reason ?? ''} ${pod.status.message ?? ''}`.trim() };
    }
  }
  for (const pod of sorted) {
    const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
    if (scheduled?.status === 'False' && scheduled.reason === 'Unschedulable') {
      return { ready: false, reason: NotReadyReason.PodUnschedulable, message: `pod ${pod.metadata?.name} cannot be scheduled: ${scheduled.message ?? 'no reason given'}` };
    }
  }
  return undefined;
}

export function isPodReady(pod: V1Pod | undefined): boolean {
  if (!pod || pod.metadata?.deletionTimestamp) return false;
  return isReady(pod);
}

/** The truth about a StatefulSet rollout: generation observed, every replica updated and ready, one revision. */
export function statefulSetReadiness(sts: V1StatefulSet | undefined, pods: readonly V1Pod[]): Readiness {
  if (!sts) return { ready: false, reason: NotReadyReason.StatefulSetNotFound, message: 'the StatefulSet has not been created yet' };
  const name = sts.metadata?.name ?? '?';
  const desired = sts.spec?.replicas ?? 1;
  const st = sts.status;
  const generation = sts.metadata?.generation ?? 0;
  // One message for every step of a rollout (not yet observed, pods being replaced), so the status
  // is rewritten when the picture changes (ready count, reason), not on each StatefulSet status tick.
  const rolling = (ready: number) => ({ ready: false as const, reason: NotReadyReason.RolloutInProgress, message: `StatefulSet ${name}: rollout of ${desired} replica(s) in progress, ${ready} ready` });
  if (!st || (st.observedGeneration ?? 0) < generation) return rolling(st?.readyReplicas ?? 0);
  const ready = st.readyReplicas ?? 0;
  const updated = st.updatedReplicas ?? 0;
  const current = st.replicas ?? 0;
  const oneRevision = !!st.updateRevision && st.currentRevision === st.updateRevision;
  if (desired > 0 && ready === desired && updated === desired && current === desired && oneRevision) {
    return { ready: true, reason: 'WorkspaceInferenceStatusSuccess', message: 'Inference has been deployed successfully' };
  }
  const fromPods = explainPods(pods);
  if (fromPods) return fromPods;
  if (updated < desired || !oneRevision) return rolling(ready);
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
    readiness: { ready: false, reason: NotReadyReason.ReadinessTimeout, message: `not ready after ${Math.round(elapsedMs / 1000)}s (timeout ${timeoutSeconds}s): ${r.message}` },
  };
}

/** Names template fields that were dropped in the InferenceReady message, ready or not. */
export function withDroppedFields(r: Readiness, dropped: readonly string[] | undefined): Readiness {
  return dropped?.length ? { ...r, message: `${r.message}; ${droppedFieldsMessage(dropped)}` } : r;
}
