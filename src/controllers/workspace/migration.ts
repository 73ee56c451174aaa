// Deployment → StatefulSet migration, decided from observed objects only.
// KAITO deletes any same-named Deployment first and takes minutes of downtime (W19). kaito-ts
// touches only a Deployment this workspace controls, creates the StatefulSet first, and deletes
// the Deployment once pod 0 serves; it falls back to delete-first only when the old pods hold the
// GPUs the new pod needs.
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import { RESOURCE_NVIDIA_GPU } from '../../api/labels.js';
import { controllerOf } from '../../runtime/cache.js';
import { isPodReady } from './readiness.js';
import type { DeepReadonly } from '../../runtime/readonly.js';

export type MigrationPlan =
  | { kind: 'none' }
  /** A Deployment with the workspace's name that the workspace does not control: never touched. */
  | { kind: 'foreign'; message: string }
  /** Owned Deployment, StatefulSet pod 0 not serving yet: keep both, keep the Service on the old pods. */
  | { kind: 'waitForPod0'; message: string }
  /** Pod 0 is Ready: delete the Deployment (UID precondition), then point the Service at pod 0. */
  | { kind: 'deleteDeployment'; uid: string; message: string }
  /** Pod 0 cannot schedule because the old pods hold the GPUs: announce downtime, then delete. */
  | { kind: 'deleteDeploymentFirst'; uid: string; message: string };

/** True when the unschedulable message says the cluster lacks GPUs (what the old pods hold). */
export function blockedOnGpus(pod: DeepReadonly<V1Pod> | undefined): boolean {
  const scheduled = pod?.status?.conditions?.find((c) => c.type === 'PodScheduled');
  return scheduled?.status === 'False' && scheduled.reason === 'Unschedulable' && /nvidia\.com\/gpu/.test(scheduled.message ?? '');
}

/** Pods of a ReplicaSet (a legacy Deployment), placed on a node, that hold GPUs: the delete-first fallback's premise. */
export function legacyPodsHoldGpus(pods: readonly DeepReadonly<V1Pod>[]): boolean {
  return pods.some(
    (p) =>
      controllerOf(p)?.kind === 'ReplicaSet' &&
      !!p.spec?.nodeName &&
      !p.metadata?.deletionTimestamp &&
      (p.spec.containers ?? []).some((c) => Number(c.resources?.limits?.[RESOURCE_NVIDIA_GPU] ?? 0) > 0),
  );
}

export function planMigration(
  workspaceUid: string,
  deployment: DeepReadonly<V1Deployment> | undefined,
  statefulSetExists: boolean,
  pod0: DeepReadonly<V1Pod> | undefined,
  /** The Deployment's own pods are bound and hold GPUs (what can block pod 0). */
  legacyHoldsGpus: boolean,
): MigrationPlan {
  if (!deployment || deployment.metadata?.deletionTimestamp) return { kind: 'none' };
  const ref = `Deployment ${deployment.metadata?.namespace}/${deployment.metadata?.name}`;
  const owner = controllerOf(deployment);
  if (!owner || owner.kind !== 'Workspace' || owner.uid !== workspaceUid) {
    return {
      kind: 'foreign',
      message: `${ref} is not controlled by this workspace; kaito-ts leaves it untouched. Delete or rename it to let the workspace own the name.`,
    };
  }
  const uid = deployment.metadata?.uid ?? '';
  if (statefulSetExists && isPodReady(pod0)) {
    return { kind: 'deleteDeployment', uid, message: `StatefulSet pod 0 is Ready; deleting the legacy ${ref}` };
  }
  // Only when the old pods are what holds the GPUs: a cordoned or full cluster is not a reason for downtime.
  if (statefulSetExists && legacyHoldsGpus && blockedOnGpus(pod0)) {
    return {
      kind: 'deleteDeploymentFirst',
      uid,
      message: `Migrating inference workload from ${ref} to a StatefulSet: the new pod cannot be scheduled while the old pods hold the GPUs, so the Deployment is deleted first and inference is down until the StatefulSet is ready.`,
    };
  }
  return { kind: 'waitForPod0', message: `Migrating from ${ref} to a StatefulSet without downtime: waiting for pod 0 to become Ready` };
}
