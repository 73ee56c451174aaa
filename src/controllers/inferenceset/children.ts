// Pure parts of the InferenceSet controller: the child Workspace KAITO would create, how a child's
// readiness is read, which children a scale-down removes, and the spec hash. No client, no clock.
import { createHash } from 'node:crypto';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { InferenceSet } from '../../api/inferenceset-types.js';
import {
  ANNOTATION_DISABLE_BENCHMARK,
  ConditionType,
  LABEL_INFERENCE_ROLE,
  LABEL_INFERENCESET_CREATED_BY,
  LABEL_MULTIROLE_INFERENCE_PARENT,
} from '../../api/labels.js';
import { API_VERSION, KIND, type Workspace } from '../../api/types.js';
import type { DeepReadonly } from '../../runtime/readonly.js';

export type InferenceSetObject = InferenceSet & KubernetesObject;
export type ChildWorkspace = Workspace & KubernetesObject;

/** `spec.replicas`, defaulted as the CRD does (1). */
export const desiredReplicas = (is: InferenceSet): number => is.spec?.replicas ?? 1;

/** `inferenceset.kaito.sh/created-by=<name>`: status.selector, and the label selecting the children. */
export const selectorOf = (is: InferenceSet): string => `${LABEL_INFERENCESET_CREATED_BY}=${is.metadata.name ?? ''}`;

/**
 * The labels every child carries (KAITO copies them additively onto existing children): the
 * template's, the InferenceSet's own role and MultiRoleInference parent, and created-by.
 */
export function childLabels(is: InferenceSet): Record<string, string> {
  const labels: Record<string, string> = { ...(is.spec.template.metadata?.labels ?? {}) };
  for (const key of [LABEL_INFERENCE_ROLE, LABEL_MULTIROLE_INFERENCE_PARENT]) {
    const v = is.metadata.labels?.[key];
    if (v !== undefined) labels[key] = v;
  }
  labels[LABEL_INFERENCESET_CREATED_BY] = is.metadata.name ?? '';
  return labels;
}

/**
 * KAITO's NewWorkspaceForInferenceSet: `generateName: <name>-`, the template's labels and annotations,
 * a controller owner reference, `resource = {labelSelector, instanceType (not with BYO nodes)}` and a
 * deep copy of the template's inference.
 */
export function childWorkspace(is: InferenceSetObject, o: { byo: boolean }): ChildWorkspace {
  const annotations: Record<string, string> = { ...(is.spec.template.metadata?.annotations ?? {}) };
  if (is.metadata.annotations?.[ANNOTATION_DISABLE_BENCHMARK] === 'true') annotations[ANNOTATION_DISABLE_BENCHMARK] = 'true';
  const instanceType = is.spec.template.resource?.instanceType;
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: {
      generateName: `${is.metadata.name ?? ''}-`,
      namespace: is.metadata.namespace,
      labels: childLabels(is),
      ...(Object.keys(annotations).length ? { annotations } : {}),
      ownerReferences: [
        {
          apiVersion: API_VERSION,
          kind: 'InferenceSet',
          name: is.metadata.name ?? '',
          uid: is.metadata.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    resource: {
      labelSelector: structuredClone(is.spec.labelSelector),
      ...(!o.byo && instanceType ? { instanceType } : {}),
    },
    inference: structuredClone(is.spec.template.inference),
  };
}

/** KAITO's DetermineWorkspacePhase: the first of WorkspaceDeleting=True / WorkspaceSucceeded=True|False decides. */
export function phaseOf(ws: DeepReadonly<Workspace>): 'deleting' | 'succeeded' | 'error' | 'pending' {
  for (const c of ws.status?.conditions ?? []) {
    if (c.type === ConditionType.WorkspaceDeleting && c.status === 'True') return 'deleting';
    if (c.type === ConditionType.WorkspaceSucceeded) {
      if (c.status === 'True') return 'succeeded';
      if (c.status === 'False') return 'error';
    }
  }
  return 'pending';
}

export const isReady = (ws: DeepReadonly<Workspace>): boolean => phaseOf(ws) === 'succeeded';

export interface DeleteCandidate<T> {
  child: T;
  /** Already being deleted (or a delete is in flight): counts toward the target, never deleted again. */
  terminating: boolean;
  ready: boolean;
  /** On an older revision than the one wanted (KAITO: an old base image). */
  old: boolean;
}

/**
 * KAITO's selectWorkspacesToDelete: terminating children count as deleted; then old before new and,
 * within each, not-Ready before Ready; a Ready child goes only while Ready stays at or above
 * `desired`, a new one only when the surplus exceeds the old ones. Candidates keep their given order
 * otherwise (KAITO: the list order, by name).
 */
export function selectToDelete<T>(candidates: DeleteCandidate<T>[], desired: number): T[] {
  const live = candidates.filter((c) => !c.terminating);
  const numToDelete = live.length - desired;
  if (numToDelete <= 0) return [];
  const ranked = live
    .map((c, i) => ({ c, i }))
    .sort((a, b) => (a.c.old !== b.c.old ? (a.c.old ? -1 : 1) : a.c.ready !== b.c.ready ? (a.c.ready ? 1 : -1) : a.i - b.i))
    .map((x) => x.c);
  let readyBudget = live.filter((c) => c.ready).length - desired;
  let newBudget = numToDelete - live.filter((c) => c.old).length;
  const out: T[] = [];
  for (const c of ranked) {
    if (out.length >= numToDelete) break;
    if (c.ready && readyBudget <= 0) continue;
    if (!c.old && newBudget <= 0) continue;
    out.push(c.child);
    if (c.ready) readyBudget--;
    if (!c.old) newBudget--;
  }
  return out;
}

/** sha256 of the spec's JSON (KAITO: json.Encoder, so with a trailing newline). */
export function specHash(is: InferenceSet): string {
  return createHash('sha256')
    .update(`${JSON.stringify(is.spec)}\n`)
    .digest('hex');
}
