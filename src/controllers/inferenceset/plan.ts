// The InferenceSet plan: pure, from one snapshot of the caches to the actions of one pass.
//   deleting → InferenceSetDeleting, delete every child, drop the finalizer (KAITO does not wait);
//   else      → finalizer, ControllerRevision + hash/revision annotations, scale down (KAITO's
//               choice) or up (generateName creates), labels copied onto children, status.
import type { V1ControllerRevision } from '@kubernetes/client-node';
import type { DeepReadonly } from '../../runtime/readonly.js';
import type { InferenceSetStatus } from '../../api/inferenceset-types.js';
import {
  ANNOTATION_INFERENCESET_HASH,
  ANNOTATION_INFERENCESET_REVISION,
  INFERENCESET_FINALIZER,
  InferenceSetConditionMessage,
  InferenceSetConditionReason,
  InferenceSetConditionType,
  LABEL_REVISION_INFERENCESET_NAME,
} from '../../api/labels.js';
import type { WorkspaceCondition } from '../../api/types.js';
import { Resources } from '../../runtime/resources.js';
import type { Action, Plan } from '../shared/actions.js';
import {
  childLabels,
  childWorkspace,
  desiredReplicas,
  isReady,
  selectorOf,
  selectToDelete,
  specHash,
  type ChildWorkspace,
  type InferenceSetObject,
} from './children.js';
import type { ExpectationView } from './expectations.js';

/** KAITO keeps this many ControllerRevisions (consts.MaxRevisionHistoryLimit). */
export const MAX_REVISION_HISTORY = 10;
const REVISION_HASH_CHARS = 5;

export interface InferenceSetSnapshot {
  is: InferenceSetObject;
  /** Workspaces labelled created-by=<name> in its namespace (KAITO lists them the same way). */
  children: readonly DeepReadonly<ChildWorkspace>[];
  /** ControllerRevisions labelled inferenceset.kaito.io/name=<name>. */
  revisions: readonly DeepReadonly<V1ControllerRevision>[];
  expectations: ExpectationView;
  /** Bring-your-own nodes (node auto-provisioning off). */
  byo: boolean;
  now: Date;
}

export type InferenceSetPlan = Plan<InferenceSetStatus>;

/** Why no child can be made from this spec, in KAITO's webhook words; undefined when it is fine. */
export function specProblem(s: Pick<InferenceSetSnapshot, 'is' | 'byo'>): string | undefined {
  const resource = s.is.spec.template.resource ?? {};
  if (s.byo && resource.instanceType)
    return `invalid value: ${resource.instanceType}: spec.template.resource.instanceType\ninstanceType must be empty when nodeProvisioner is byo`;
  if (!s.byo && !resource.instanceType) return 'missing field(s): spec.template.resource.instanceType';
  if (resource.partition) return "spec.template.resource.partition: GPU partitioning (KAITO's enableMIG feature gate) is not supported by kaito-ts";
  return undefined;
}

export function planInferenceSet(s: InferenceSetSnapshot): InferenceSetPlan {
  return s.is.metadata.deletionTimestamp ? planDeletion(s) : planLive(s);
}

function planDeletion(s: InferenceSetSnapshot): InferenceSetPlan {
  const { is } = s;
  const actions: Action<InferenceSetStatus>[] = [];
  const conditions = withCondition(
    is.status?.conditions,
    {
      type: InferenceSetConditionType.Deleting,
      status: 'True',
      reason: InferenceSetConditionReason.Deleted,
      message: InferenceSetConditionMessage.deleting,
    },
    s,
  );
  actions.push({ kind: 'status', status: { ...(is.status ?? {}), conditions } });
  for (const c of s.children) {
    if (c.metadata?.deletionTimestamp || s.expectations.pendingDeletes.has(c.metadata?.uid ?? '')) continue;
    actions.push(deleteChild(c, 'the InferenceSet is being deleted'));
  }
  const index = is.metadata.finalizers?.indexOf(INFERENCESET_FINALIZER) ?? -1;
  if (index >= 0) actions.push({ kind: 'removeFinalizer', index, finalizer: INFERENCESET_FINALIZER });
  return { actions };
}

function planLive(s: InferenceSetSnapshot): InferenceSetPlan {
  const { is } = s;
  const actions: Action<InferenceSetStatus>[] = [];
  const annotations: Record<string, string> = {};
  const finalizers = is.metadata.finalizers ?? [];

  // Revision bookkeeping (KAITO's syncControllerRevision).
  const hash = specHash(is);
  const name = `${is.metadata.name ?? ''}-${hash.slice(0, REVISION_HASH_CHARS)}`;
  const sorted = [...s.revisions].sort((a, b) => a.revision - b.revision);
  const existing = sorted.find((r) => r.metadata?.name === name);
  let revision: number;
  if (existing) {
    const theirs = existing.metadata?.annotations?.[ANNOTATION_INFERENCESET_HASH];
    if (theirs !== hash)
      return {
        actions: [],
        failure: {
          reason: InferenceSetConditionReason.Failed,
          message: `revision name conflicts, the hash values are different, old hash: ${theirs}, new hash: ${hash}`,
        },
      };
    revision = existing.revision;
  } else {
    revision = (sorted.at(-1)?.revision ?? 0) + 1;
    actions.push({
      kind: 'create',
      type: Resources.controllerRevisions,
      why: 'a revision of the InferenceSet spec',
      object: {
        apiVersion: 'apps/v1',
        kind: 'ControllerRevision',
        metadata: {
          name,
          namespace: is.metadata.namespace,
          labels: { [LABEL_REVISION_INFERENCESET_NAME]: is.metadata.name ?? '' },
          annotations: { [ANNOTATION_INFERENCESET_HASH]: hash },
          ownerReferences: [
            {
              apiVersion: 'kaito.sh/v1beta1',
              kind: 'InferenceSet',
              name: is.metadata.name ?? '',
              uid: is.metadata.uid ?? '',
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
        },
        revision,
        data: { Spec: is.spec },
      } as V1ControllerRevision,
    });
    if (sorted.length > MAX_REVISION_HISTORY && sorted[0]?.metadata?.uid) {
      actions.push({
        kind: 'delete',
        type: Resources.controllerRevisions,
        ref: { namespace: is.metadata.namespace, name: sorted[0].metadata.name ?? '' },
        uid: sorted[0].metadata.uid,
        why: `keep ${MAX_REVISION_HISTORY} revisions`,
      });
    }
  }
  if (is.metadata.annotations?.[ANNOTATION_INFERENCESET_HASH] !== hash) annotations[ANNOTATION_INFERENCESET_HASH] = hash;
  if (is.metadata.annotations?.[ANNOTATION_INFERENCESET_REVISION] !== String(revision)) annotations[ANNOTATION_INFERENCESET_REVISION] = String(revision);
  const needsFinalizer = !finalizers.includes(INFERENCESET_FINALIZER);
  if (needsFinalizer || Object.keys(annotations).length) {
    // The metadata patch goes first: the finalizer must be on before any child exists.
    actions.unshift({
      kind: 'patchMetadata',
      resourceVersion: is.metadata.resourceVersion,
      ...(needsFinalizer ? { finalizers: [...finalizers, INFERENCESET_FINALIZER] } : {}),
      ...(Object.keys(annotations).length ? { annotations } : {}),
    });
  }

  const desired = desiredReplicas(is);
  const problem = specProblem(s);
  const terminating = (c: DeepReadonly<ChildWorkspace>) => !!c.metadata?.deletionTimestamp || s.expectations.pendingDeletes.has(c.metadata?.uid ?? '');
  const byName = [...s.children].sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  const live = byName.filter((c) => !terminating(c));
  if (!problem) {
    if (live.length > desired) {
      const chosen = selectToDelete(
        byName.map((child) => ({ child, terminating: terminating(child), ready: isReady(child), old: false })),
        desired,
      );
      for (const c of chosen) actions.push(deleteChild(c, `scale down to ${desired}`));
    } else if (live.length < desired && !s.expectations.holdCreates) {
      for (let i = live.length; i < desired; i++) {
        actions.push({ kind: 'create', type: Resources.workspaces, object: childWorkspace(is, { byo: s.byo }), why: `replica ${i + 1} of ${desired}` });
      }
    }
    // Template labels (and the role / MultiRoleInference parent) are added to existing children, never removed.
    const labels = childLabels(is);
    for (const c of live) {
      const missing = Object.fromEntries(Object.entries(labels).filter(([k, v]) => c.metadata?.labels?.[k] !== v));
      if (Object.keys(missing).length) {
        actions.push({
          kind: 'patchLabels',
          type: Resources.workspaces,
          ref: { namespace: c.metadata?.namespace, name: c.metadata?.name ?? '' },
          resourceVersion: c.metadata?.resourceVersion,
          labels: missing,
        });
      }
    }
  }

  // KAITO counts every listed child whose phase is succeeded (terminating ones included).
  const readyReplicas = s.children.filter(isReady).length;
  const ready = !problem && readyReplicas === desired;
  const conditions = withCondition(
    is.status?.conditions,
    problem
      ? { type: InferenceSetConditionType.Ready, status: 'False', reason: InferenceSetConditionReason.Failed, message: problem }
      : ready
        ? { type: InferenceSetConditionType.Ready, status: 'True', reason: InferenceSetConditionReason.Ready, message: InferenceSetConditionMessage.ready }
        : {
            type: InferenceSetConditionType.Ready,
            status: 'False',
            reason: InferenceSetConditionReason.NotReady,
            message: InferenceSetConditionMessage.notReady(readyReplicas, desired),
          },
    s,
  );
  const status: InferenceSetStatus = {
    ...(is.status ?? {}),
    // kaito-ts: the children that exist and are not being deleted (KAITO writes the desired count).
    replicas:
      live.length +
      actions.filter((a) => a.kind === 'create' && a.type === Resources.workspaces).length -
      actions.filter((a) => a.kind === 'delete' && a.type === Resources.workspaces).length,
    readyReplicas,
    selector: selectorOf(is),
    conditions,
  };
  actions.push({ kind: 'status', status });
  return { actions, ...(s.expectations.recheckAfterMs ? { requeueAfterMs: s.expectations.recheckAfterMs } : {}) };
}

function deleteChild(c: DeepReadonly<ChildWorkspace>, why: string): Action<InferenceSetStatus> {
  return {
    kind: 'delete',
    type: Resources.workspaces,
    ref: { namespace: c.metadata?.namespace, name: c.metadata?.name ?? '' },
    uid: c.metadata?.uid ?? '',
    why,
  };
}

/** `conditions` with `want` set (metav1 SetStatusCondition): the transition time moves only on a flip. */
function withCondition(
  conditions: WorkspaceCondition[] | undefined,
  want: Omit<WorkspaceCondition, 'lastTransitionTime' | 'observedGeneration'>,
  s: Pick<InferenceSetSnapshot, 'is' | 'now'>,
): WorkspaceCondition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === want.type);
  const old = i >= 0 ? list[i] : undefined;
  const next: WorkspaceCondition = {
    ...want,
    observedGeneration: s.is.metadata.generation,
    lastTransitionTime: old && old.status === want.status ? old.lastTransitionTime : s.now.toISOString(),
  };
  if (i >= 0) list[i] = next;
  else list.push(next);
  return list;
}
