// The temporary objects of a zero-downtime update (docs/controller.md, "Updates"): a one-pod
// StatefulSet with the new template that serves while the primary restarts, its node under auto-
// provisioning, and a CPU-only Job that pulls new images onto the primary's node before a restart.
import type { V1Job, V1PodSpec, V1StatefulSet } from '@kubernetes/client-node';
import { createHash } from 'node:crypto';
import { LABEL_PREPULL, LABEL_SURGE, LABEL_WORKSPACE_NAME } from '../api/labels.js';
import type { ResolvedWorkspace } from '../api/resolved-workspace.js';
import type { Workspace } from '../api/types.js';
import type { DeepReadonly } from '../runtime/readonly.js';
import { ownedMeta, workspaceName, workspaceNamespace } from './meta.js';
import { buildNodeClaim, type NodeClaim } from './nodeclaim.js';

/** A StatefulSet name leaves room for the controller-revision-hash label of its pods (63 characters). */
const MAX_STATEFULSET_NAME = 52;

/** Five hex characters naming one revision's update: the surge StatefulSet, its claim, its pre-pull Job. */
export function surgeHash(revision: number, revisionHash: string): string {
  return createHash('sha256').update(`${revision}/${revisionHash}`).digest('hex').slice(0, 5);
}

export function surgeName(ws: DeepReadonly<Workspace>, hash: string): string {
  return `${workspaceName(ws)}-s${hash}`;
}

/** Undefined when the workspace's name leaves no room for the surge's. */
export function surgeNameFits(ws: DeepReadonly<Workspace>, hash: string): boolean {
  return surgeName(ws, hash).length <= MAX_STATEFULSET_NAME;
}

/**
 * One pod with the primary's next template, its own weights claim, and the surge label on selector
 * and pods: neither the primary's StatefulSet (pods it does not control) nor the main Service (pinned
 * to one pod name) picks it up by accident. Its claim goes with it.
 */
export function surgeStatefulSet(ws: DeepReadonly<Workspace>, next: DeepReadonly<V1StatefulSet>, hash: string): V1StatefulSet {
  const copy = structuredClone(next) as V1StatefulSet;
  const spec = copy.spec!;
  const labels = { ...spec.selector.matchLabels, [LABEL_SURGE]: hash };
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: {
      ...ownedMeta(ws, surgeName(ws, hash)),
      labels: { [LABEL_WORKSPACE_NAME]: workspaceName(ws), [LABEL_SURGE]: hash },
      annotations: copy.metadata?.annotations ?? {},
    },
    spec: {
      ...spec,
      replicas: 1,
      persistentVolumeClaimRetentionPolicy: { whenScaled: 'Delete', whenDeleted: 'Delete' },
      selector: { matchLabels: labels },
      template: { ...spec.template, metadata: { ...spec.template.metadata, labels: { ...spec.template.metadata?.labels, [LABEL_SURGE]: hash } } },
    },
  };
}

/** Auto-provisioning: the surge's node, a claim like the workspace's own with the surge label (a stable name: a crash never makes two). */
export function surgeNodeClaim(ws: Workspace, resolved: Pick<ResolvedWorkspace, 'cloud' | 'inferencePreset'>, hash: string): NodeClaim {
  const digest = createHash('sha256')
    .update(`${workspaceNamespace(ws)}/${workspaceName(ws)}/surge/${hash}`)
    .digest('hex');
  const claim = buildNodeClaim(ws, resolved, `ws${digest.slice(0, 9)}`);
  claim.metadata.labels = { ...claim.metadata.labels, [LABEL_SURGE]: hash };
  return claim;
}

/** The images a pod spec runs, init containers first, each once. */
export function podImages(spec: DeepReadonly<V1PodSpec> | undefined): string[] {
  return [...new Set([...(spec?.initContainers ?? []), ...(spec?.containers ?? [])].map((c) => c.image ?? '').filter((i) => !!i))];
}

export function prepullName(ws: DeepReadonly<Workspace>, hash: string): string {
  return `${workspaceName(ws)}-pull-${hash}`;
}

/**
 * A CPU-only Job on the primary's node whose containers only exist to make the kubelet pull the new
 * images (each runs `true`, or fails at once where the image has no shell: pulled either way).
 */
export function prepullJob(ws: DeepReadonly<Workspace>, hash: string, images: readonly string[], nodeName: string, template: DeepReadonly<V1PodSpec>): V1Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { ...ownedMeta(ws, prepullName(ws, hash)), labels: { [LABEL_PREPULL]: hash } },
    spec: {
      backoffLimit: 0,
      ttlSecondsAfterFinished: 600,
      template: {
        metadata: { labels: { [LABEL_PREPULL]: hash } },
        spec: {
          nodeName,
          restartPolicy: 'Never',
          ...(template.imagePullSecrets ? { imagePullSecrets: template.imagePullSecrets.map((s) => ({ ...s })) } : {}),
          ...(template.tolerations ? { tolerations: template.tolerations.map((t) => ({ ...t })) } : {}),
          containers: images.map((image, i) => ({
            name: `pull-${i}`,
            image,
            command: ['sh', '-c', 'true'],
            resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '64Mi' } },
          })),
        },
      },
    },
  };
}
