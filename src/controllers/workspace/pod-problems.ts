// Why a workspace's pods are not serving, named from pod and node state: KAITO v0.12's reasons and
// order (container failures, then evictions, then scheduling), plus what v0.12 misses: only pods
// that are not Ready are blamed (an old OOM kill of a pod serving again is no reason), a Failed pod,
// the disk or memory pressure of the node a pod runs on before it is evicted, and a node the pod is
// bound to that is missing, not Ready or short of GPUs (a template's spec.nodeName skips the scheduler).
import type { V1ContainerStatus, V1Node, V1Pod } from '@kubernetes/client-node';
import { RESOURCE_NVIDIA_GPU } from '../../api/labels.js';
import { isReady } from '../../runtime/conditions.js';
import { nodePressures, type PressureCondition } from './node-pressure.js';
import { objectNamed } from '../../runtime/memo.js';
import type { DeepReadonly } from '../../runtime/readonly.js';
import type { ObjectEvent } from '../../runtime/cache.js';
import { byMetadataName } from '../../runtime/order.js';
import { stableSchedulerMessage } from './scheduler-message.js';

export function isPodReady(pod: DeepReadonly<V1Pod> | undefined): boolean {
  if (!pod || pod.metadata?.deletionTimestamp) return false;
  return isReady(pod);
}

/** A pod event that changes whether the pod serves: status must say so at once. */
export function podReadinessChanged(e: ObjectEvent<V1Pod>): boolean {
  return e.type === 'update' ? isPodReady(e.obj) !== isPodReady(e.old) : isPodReady(e.obj);
}

/** What a pass reads of a pod, with the scheduler's message as status reports it (scheduler-message.ts). */
function podAsRead(pod: DeepReadonly<V1Pod>): string {
  const conditions = pod.status?.conditions?.map((c) =>
    c.type === 'PodScheduled' && c.message ? { ...c, message: stableSchedulerMessage(c.message), lastProbeTime: undefined } : c,
  );
  return JSON.stringify({ ...pod, metadata: { ...pod.metadata, resourceVersion: undefined }, status: pod.status && { ...pod.status, conditions } });
}

/** A pending pod's scheduling message changes with every node of the cluster: only a change a pass would see matters. */
export function podChangeMatters(e: ObjectEvent<V1Pod>): boolean {
  return e.type !== 'update' || podAsRead(e.old) !== podAsRead(e.obj);
}

/**
 * KAITO v0.12's InferenceReady reasons (pkg/workspace/controllers/workspace_controller.go), plus
 * PodFailed and the node a pod is bound to: missing (NodeNotFound), not Ready (NodeNotReady, the
 * reason KAITO's provisioners write on ResourceReady), or short of the GPUs the pod asks for
 * (InsufficientGPU). KAITO v0.12 has no pod reason for these.
 */
export const PodProblem = {
  OOMKilled: 'ContainerOOMKilled',
  ImagePull: 'ImagePullError',
  ContainerStart: 'ContainerStartError',
  CrashLoop: 'ContainerCrashLoopBackOff',
  Evicted: 'PodEvicted',
  NodeDiskPressure: 'NodeDiskPressure',
  NodeMemoryPressure: 'NodeMemoryPressure',
  Unschedulable: 'Unschedulable',
  PodFailed: 'PodFailed',
  NodeNotFound: 'NodeNotFound',
  NodeNotReady: 'NodeNotReady',
  InsufficientGPU: 'InsufficientGPU',
} as const;

export interface Problem {
  reason: string;
  message: string;
}

/** kubelet image pull errors (k8s.io/kubernetes pkg/kubelet/images/types.go). */
const IMAGE_PULL = new Set(['ImagePullBackOff', 'ErrImagePull', 'InvalidImageName', 'ErrImageNeverPull', 'ImageInspectError', 'RegistryUnavailable']);
/** kubelet container create/start errors (kuberuntime_container.go). */
const CONTAINER_START = new Set([
  'CreateContainerConfigError',
  'PreCreateHookError',
  'CreateContainerError',
  'PreStartHookError',
  'RunContainerError',
  'PostStartHookError',
]);
/** Long messages (a scheduler's per-node list) are cut so the condition stays readable. */
const MAX_MESSAGE = 512;

type ContainerCheck = (pod: string, cs: DeepReadonly<V1ContainerStatus>) => Problem | undefined;

const withDetail = (text: string, detail: string | undefined) => (detail ? `${text}: ${detail}` : text);

// Ordered from the most actionable root cause to the least, as in KAITO.
const CONTAINER_CHECKS: ContainerCheck[] = [
  (pod, cs) => {
    const oom = [cs.state?.terminated, cs.lastState?.terminated].find((t) => t?.reason === 'OOMKilled');
    return (
      oom && {
        reason: PodProblem.OOMKilled,
        message: `pod ${pod} container ${cs.name} was OOMKilled (exit code ${oom.exitCode}); reduce memory usage or use a larger instance type`,
      }
    );
  },
  (pod, cs) => {
    const w = cs.state?.waiting;
    return w?.reason && IMAGE_PULL.has(w.reason)
      ? { reason: PodProblem.ImagePull, message: withDetail(`pod ${pod} container ${cs.name} image pull failed (${w.reason})`, w.message) }
      : undefined;
  },
  (pod, cs) => {
    const w = cs.state?.waiting;
    return w?.reason && CONTAINER_START.has(w.reason)
      ? { reason: PodProblem.ContainerStart, message: withDetail(`pod ${pod} container ${cs.name} failed to start (${w.reason})`, w.message) }
      : undefined;
  },
  (pod, cs) => {
    if (cs.state?.waiting?.reason !== 'CrashLoopBackOff') return undefined;
    const last = cs.lastState?.terminated;
    const detail = last ? last.message || `exit code ${last.exitCode}` : undefined;
    // No restart count: it would rewrite the status on every restart.
    return {
      reason: PodProblem.CrashLoop,
      message: withDetail(`pod ${pod} container ${cs.name} is in CrashLoopBackOff; last termination`, detail ?? 'unknown'),
    };
  },
];

function containerProblem(pods: readonly DeepReadonly<V1Pod>[]): Problem | undefined {
  for (const check of CONTAINER_CHECKS) {
    for (const pod of pods) {
      const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
      for (const cs of statuses) {
        const found = check(pod.metadata?.name ?? '?', cs);
        if (found) return found;
      }
    }
  }
  return undefined;
}

function evictionProblem(pods: readonly DeepReadonly<V1Pod>[]): Problem | undefined {
  const pod = pods.find((p) => p.status?.phase === 'Failed' && p.status.reason === 'Evicted');
  if (!pod) return undefined;
  const name = pod.metadata?.name ?? '?';
  const msg = pod.status?.message ?? '';
  const lower = msg.toLowerCase();
  if (lower.includes('ephemeral-storage') || lower.includes('disk'))
    return { reason: PodProblem.NodeDiskPressure, message: `pod ${name} evicted due to node disk pressure: ${msg}` };
  if (lower.includes('memory')) return { reason: PodProblem.NodeMemoryPressure, message: `pod ${name} evicted due to node memory pressure: ${msg}` };
  return { reason: PodProblem.Evicted, message: `pod ${name} was evicted: ${msg}` };
}

function failedProblem(pods: readonly DeepReadonly<V1Pod>[]): Problem | undefined {
  const pod = pods.find((p) => p.status?.phase === 'Failed');
  return pod && { reason: PodProblem.PodFailed, message: `pod ${pod.metadata?.name} failed: ${pod.status?.reason ?? ''} ${pod.status?.message ?? ''}`.trim() };
}

function schedulingProblem(pods: readonly DeepReadonly<V1Pod>[]): Problem | undefined {
  for (const pod of pods) {
    const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
    if (pod.status?.phase === 'Pending' && scheduled?.status === 'False' && scheduled.reason === 'Unschedulable') {
      return {
        reason: PodProblem.Unschedulable,
        message: `pod ${pod.metadata?.name} is unschedulable: ${scheduled.message ? stableSchedulerMessage(scheduled.message) : 'no reason given'}`,
      };
    }
  }
  return undefined;
}

const PRESSURE_REASON: Partial<Record<PressureCondition, [reason: string, what: string]>> = {
  DiskPressure: [PodProblem.NodeDiskPressure, 'disk'],
  MemoryPressure: [PodProblem.NodeMemoryPressure, 'memory'],
};

/** A not-ready pod on a node under pressure: the kubelet is about to evict it, or refuses to admit it. */
function nodePressureProblem(pods: readonly DeepReadonly<V1Pod>[], nodes: readonly DeepReadonly<V1Node>[]): Problem | undefined {
  for (const pod of pods) {
    const node = objectNamed(nodes, pod.spec?.nodeName);
    for (const pressure of nodePressures(node)) {
      const named = PRESSURE_REASON[pressure];
      if (named) return { reason: named[0], message: `pod ${pod.metadata?.name} runs on node ${node?.metadata?.name}, which reports ${named[1]} pressure` };
    }
  }
  return undefined;
}

/** Whether the scheduler (or a kubelet) has seen the pod: without PodScheduled, its spec.nodeName came from the template. */
const neverScheduled = (pod: DeepReadonly<V1Pod>) => !pod.status?.conditions?.some((c) => c.type === 'PodScheduled');
const PINNED_HINT =
  "a pod template's spec.nodeName bypasses the scheduler: name an existing node, or drop spec.nodeName and select nodes with resource.labelSelector";

/**
 * A pod bound to a node that is not in the node list. The scheduler never does that, so the binding
 * came from the template's spec.nodeName (no PodScheduled condition: the scheduler's binding writes
 * one), or the node was deleted under the pod (then the pod garbage collector fails the pod before
 * deleting it). A pod the scheduler just bound to a node this cache has not seen yet is neither, so it
 * is not blamed. No kubelet will ever start such a pod; the StatefulSet controller recreates it as
 * often as the pod garbage collector deletes it.
 */
function nodeNotFoundProblem(pods: readonly DeepReadonly<V1Pod>[], nodes: readonly DeepReadonly<V1Node>[]): Problem | undefined {
  const pod = pods.find(
    (p) => !!p.spec?.nodeName && !objectNamed(nodes, p.spec.nodeName) && p.status?.phase !== 'Running' && (neverScheduled(p) || p.status?.phase === 'Failed'),
  );
  if (!pod) return undefined;
  const text = `pod ${pod.metadata?.name} is bound to node ${pod.spec?.nodeName}, which does not exist`;
  return { reason: PodProblem.NodeNotFound, message: neverScheduled(pod) ? `${text}; ${PINNED_HINT}` : `${text} (deleted after the pod was placed)` };
}

/** GPUs the pod's containers ask for (limits; requests when no limit). */
function podGpus(pod: DeepReadonly<V1Pod>): number {
  return (pod.spec?.containers ?? []).reduce((sum, c) => {
    const n = Number(c.resources?.limits?.[RESOURCE_NVIDIA_GPU] ?? c.resources?.requests?.[RESOURCE_NVIDIA_GPU] ?? 0);
    return sum + (Number.isFinite(n) ? n : 0);
  }, 0);
}

/**
 * A not-ready pod bound to a node that cannot run it: not Ready, or with fewer GPUs than the pod asks
 * for (the scheduler would have said Unschedulable; a template's spec.nodeName skips it and the
 * kubelet rejects the pod instead).
 */
function boundNodeProblem(pods: readonly DeepReadonly<V1Pod>[], nodes: readonly DeepReadonly<V1Node>[]): Problem | undefined {
  for (const pod of pods) {
    const node = objectNamed(nodes, pod.spec?.nodeName);
    if (!node) continue;
    const name = pod.metadata?.name;
    const wanted = podGpus(pod);
    const allocatable = node.status?.allocatable?.[RESOURCE_NVIDIA_GPU] ?? node.status?.capacity?.[RESOURCE_NVIDIA_GPU] ?? '0';
    const have = Number(allocatable);
    if (wanted > 0 && Number.isFinite(have) && have < wanted) {
      const text = `pod ${name} asks for ${wanted} ${RESOURCE_NVIDIA_GPU} but its node ${node.metadata?.name} has ${have}`;
      return { reason: PodProblem.InsufficientGPU, message: neverScheduled(pod) ? `${text}; ${PINNED_HINT}` : text };
    }
    // A node without a Ready condition has not reported yet (just registered): nothing to blame.
    const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
    if (ready && ready.status !== 'True') {
      const detail = `Ready=${ready.status}${ready.reason ? ` (${ready.reason}${ready.message ? `: ${ready.message}` : ''})` : ''}`;
      return { reason: PodProblem.NodeNotReady, message: `pod ${name} is bound to node ${node.metadata?.name}, which is not Ready: ${detail}` };
    }
  }
  return undefined;
}

/**
 * The first cause found in the pods that are not Ready (sorted by name), or undefined. `nodes` is every
 * node of the cluster (the operator's node cache); omitted, nothing is blamed on nodes.
 */
export function explainPods(pods: readonly DeepReadonly<V1Pod>[], nodes?: readonly DeepReadonly<V1Node>[]): Problem | undefined {
  const notReady = pods.filter((p) => !isPodReady(p)).sort(byMetadataName);
  // A missing node before a Failed pod: the pod garbage collector fails such pods before deleting them.
  const found =
    containerProblem(notReady) ??
    evictionProblem(notReady) ??
    (nodes && nodeNotFoundProblem(notReady, nodes)) ??
    failedProblem(notReady) ??
    schedulingProblem(notReady) ??
    (nodes && (nodePressureProblem(notReady, nodes) ?? boundNodeProblem(notReady, nodes)));
  return found && { ...found, message: found.message.length > MAX_MESSAGE ? `${found.message.slice(0, MAX_MESSAGE - 3)}...` : found.message };
}
