// Pure parts of the InferenceSet controller: the child Workspace KAITO would create, how a child's
// readiness is read, which children a scale-down removes, and the spec hash. No client, no clock.
import { createHash } from 'node:crypto';
import type { KubernetesObject } from '@kubernetes/client-node';
import { inferenceSetSpecHash } from '../../builders/inferenceset-revision.js';
import type { InferenceSet } from '../../api/inferenceset-types.js';
import {
  ANNOTATION_ADOPTED_TEMPLATE_HASH,
  ANNOTATION_CHILD_TEMPLATE_HASH,
  ANNOTATION_DISABLE_BENCHMARK,
  ANNOTATION_SCALE_SELECTOR,
  ConditionType,
  LABEL_INFERENCE_ROLE,
  LABEL_INFERENCESET_CREATED_BY,
  LABEL_MULTIROLE_INFERENCE_PARENT,
  LABEL_POD_INDEX,
} from '../../api/labels.js';
import { API_VERSION, KIND, type Workspace } from '../../api/types.js';
import type { DeepReadonly } from '../../runtime/readonly.js';
import { controllerOwnerRef } from '../../builders/meta.js';

export type InferenceSetObject = InferenceSet & KubernetesObject;
export type ChildWorkspace = Workspace & KubernetesObject;

/** `spec.replicas`, defaulted as the CRD does (1). */
export const desiredReplicas = (is: InferenceSet): number => is.spec?.replicas ?? 1;

/**
 * status.selector, what an HPA lists pods by for Resource and Pods metrics: each child's pod 0 (the
 * whole of a single-node member, the serving leader of a multi-node one), so the average is over one
 * pod per replica, as LeaderWorkerSet selects leaders. KAITO's `created-by=<name>` also takes Ray
 * workers, which serve no requests and report no vLLM metrics; `kaito-ts.io/scale-selector: all-pods`
 * keeps it.
 */
export function scaleSelectorOf(is: InferenceSet): string {
  const all = `${LABEL_INFERENCESET_CREATED_BY}=${is.metadata.name ?? ''}`;
  return is.metadata.annotations?.[ANNOTATION_SCALE_SELECTOR] === 'all-pods' ? all : `${all},${LABEL_POD_INDEX}=0`;
}

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

/** What a child is made of besides its labels (which KAITO, and we, copy onto existing children in place). */
function childBody(is: InferenceSet, byo: boolean): Pick<Workspace, 'resource' | 'inference'> & { annotations: Record<string, string> } {
  const annotations: Record<string, string> = { ...(is.spec.template.metadata?.annotations ?? {}) };
  if (is.metadata.annotations?.[ANNOTATION_DISABLE_BENCHMARK] === 'true') annotations[ANNOTATION_DISABLE_BENCHMARK] = 'true';
  delete annotations[ANNOTATION_CHILD_TEMPLATE_HASH];
  const instanceType = is.spec.template.resource?.instanceType;
  return {
    annotations,
    resource: {
      labelSelector: structuredClone(is.spec.labelSelector),
      ...(!byo && instanceType ? { instanceType } : {}),
    },
    inference: structuredClone(is.spec.template.inference),
  };
}

/** JSON with object keys sorted: the same value hashes the same whatever order its keys came in. */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}

/**
 * kaito-ts: sha256 of what a child is made of (annotations, resource, inference; not labels, not
 * replicas), recorded on each child we create (`kaito-ts.io/template-hash`). A child whose hash differs
 * is on an older template and a rollout replaces it. The spec hash (specHash) also moves with
 * `replicas`, so it cannot say which children are current.
 */
export function templateHash(is: InferenceSet, o: { byo: boolean }): string {
  return createHash('sha256')
    .update(canonicalJson(childBody(is, o.byo)))
    .digest('hex');
}

/** The template a child was made from: ours, else (made before kaito-ts adopted the set) the adopted one. */
export function childTemplateHash(c: DeepReadonly<ChildWorkspace>, is: InferenceSet): string | undefined {
  return c.metadata?.annotations?.[ANNOTATION_CHILD_TEMPLATE_HASH] ?? is.metadata.annotations?.[ANNOTATION_ADOPTED_TEMPLATE_HASH];
}

/**
 * KAITO's NewWorkspaceForInferenceSet: `generateName: <name>-`, the template's labels and annotations,
 * a controller owner reference, `resource = {labelSelector, instanceType (not with BYO nodes)}` and a
 * deep copy of the template's inference. kaito-ts adds `kaito-ts.io/template-hash`.
 */
export function childWorkspace(is: InferenceSetObject, o: { byo: boolean }): ChildWorkspace {
  const { annotations, resource, inference } = childBody(is, o.byo);
  annotations[ANNOTATION_CHILD_TEMPLATE_HASH] = templateHash(is, o);
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: {
      generateName: `${is.metadata.name ?? ''}-`,
      namespace: is.metadata.namespace,
      labels: childLabels(is),
      annotations,
      ownerReferences: [controllerOwnerRef(is, 'InferenceSet')],
    },
    resource,
    inference,
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

/** KAITO's revision hash of the spec (Go's encoding of it: builders/inferenceset-revision.ts). */
export function specHash(is: InferenceSet): string {
  return inferenceSetSpecHash(is.spec);
}
