// The InferenceSet plan: pure, from one snapshot of the caches to the actions of one pass.
//   deleting → InferenceSetDeleting, delete every child, drop the finalizer (KAITO does not wait);
//   else      → finalizer, ControllerRevision + hash/revision/adopted annotations, the children's
//               creates and deletes (rollout.ts: KAITO's scale up and down, template rollouts,
//               nodeCountLimit), labels copied onto children, in Karpenter mode the members'
//               Drifted budget (drift.ts: one member at a time), status.
import type { V1ControllerRevision } from '@kubernetes/client-node';
import { byMetadataName } from '../../runtime/order.js';
import { inferenceSetRevisionData } from '../../builders/inferenceset-revision.js';
import type { DeepReadonly } from '../../runtime/readonly.js';
import { controllerOwnerRef } from '../../builders/meta.js';
import type { InferenceSetStatus } from '../../api/inferenceset-types.js';
import {
  ANNOTATION_ADOPTED_TEMPLATE_HASH,
  ANNOTATION_INFERENCESET_HASH,
  ANNOTATION_INFERENCESET_REVISION,
  INFERENCESET_FINALIZER,
  InferenceSetConditionMessage,
  InferenceSetConditionReason,
  InferenceSetConditionType,
  LABEL_REVISION_INFERENCESET_NAME,
} from '../../api/labels.js';
import type { WorkspaceCondition } from '../../api/types.js';
import { Msg } from '../../api/messages.js';
import { Resources } from '../../runtime/resources.js';
import type { Action, Plan } from '../shared/actions.js';
import {
  childLabels,
  childTemplateHash,
  childWorkspace,
  desiredReplicas,
  isReady,
  scaleSelectorOf,
  specHash,
  templateHash,
  type ChildWorkspace,
  type InferenceSetObject,
} from './children.js';
import { DRIFT_BUDGET_CLOSED } from '../../builders/nodepool.js';
import { driftActions, planDrift, type DriftSnapshot } from './drift.js';
import type { ExpectationView } from './expectations.js';
import { nodeCountLimitOf, planChildren, rolloutSettings, type ChildPlan, type RolloutSettings } from './rollout.js';
import { isoMillis } from '../../runtime/timestamps.js';

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
  /** Karpenter mode only: the members' NodePools and their NodeClaims (the drift step). */
  drift?: DriftSnapshot;
  now: Date;
}

/**
 * After a budget is closed the next drifted member is opened by the next pass. Our own write is
 * written through to the cache, so its watch event starts no pass: this one-off requeue does.
 */
export const DRIFT_NEXT_PASS_MS = 1;

export type InferenceSetPlan = Plan<InferenceSetStatus>;

/** Why no child can be made from this spec, in KAITO's webhook words; undefined when it is fine. */
export function specProblem(s: Pick<InferenceSetSnapshot, 'is' | 'byo'>): string | undefined {
  const resource = s.is.spec.template.resource ?? {};
  if (s.byo && resource.instanceType)
    return `invalid value: ${resource.instanceType}: spec.template.resource.instanceType\ninstanceType must be empty when nodeProvisioner is byo`;
  if (!s.byo && !resource.instanceType) return 'missing field(s): spec.template.resource.instanceType';
  if (resource.partition) return `spec.template.resource.partition: ${Msg.partitionUnsupported(resource.partition.mode)}`;
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
          ownerReferences: [controllerOwnerRef(is, 'InferenceSet')],
        },
        revision,
        data: inferenceSetRevisionData(is.spec),
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
  // kaito-ts: the template at adoption. Children that carry no template hash of ours are of this one.
  const template = templateHash(is, { byo: s.byo });
  const adopted = is.metadata.annotations?.[ANNOTATION_ADOPTED_TEMPLATE_HASH];
  if (adopted === undefined) annotations[ANNOTATION_ADOPTED_TEMPLATE_HASH] = template;
  const ownView: InferenceSetObject =
    adopted === undefined ? { ...is, metadata: { ...is.metadata, annotations: { ...is.metadata.annotations, ...annotations } } } : is;
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
  const byName = [...s.children].sort(byMetadataName);
  const live = byName.filter((c) => !terminating(c));
  const rollout = rolloutSettings(is, desired);
  const nodeCountLimit = nodeCountLimitOf(is);
  let children: ChildPlan<DeepReadonly<ChildWorkspace>> | undefined;
  if (!problem) {
    children = planChildren({
      children: byName.map((c) => ({
        child: c,
        name: c.metadata?.name ?? '',
        current: childTemplateHash(c, ownView) === template,
        ready: isReady(c),
        terminating: terminating(c),
        ...(c.metadata?.creationTimestamp ? { createdAtMs: new Date(c.metadata.creationTimestamp as unknown as string).getTime() } : {}),
        ...(c.status?.targetNodeCount ? { targetNodeCount: c.status.targetNodeCount } : {}),
      })),
      desired,
      rollout,
      ...(nodeCountLimit !== undefined ? { nodeCountLimit } : {}),
      holdCreates: s.expectations.holdCreates,
      nowMs: s.now.getTime(),
    });
    // Within a pass the deletes go first, so the live children never exceed replicas + maxSurge; across
    // passes it is create before delete: an old Ready child goes only once enough new ones are Ready.
    for (const d of children.deletes) actions.push(deleteChild(d.child, d.why));
    for (let i = 0; i < children.creates; i++) {
      const n = live.length - children.deletes.length + i + 1;
      actions.push({
        kind: 'create',
        type: Resources.workspaces,
        object: childWorkspace(is, { byo: s.byo }),
        why:
          n > children.target
            ? `surge replica ${n - children.target} of the new template`
            : children.limit?.state === 'learning'
              ? `replica ${n} of ${desired} (spec.nodeCountLimit: the rest once a replica reports its node count)`
              : children.limit?.state === 'capped'
                ? `replica ${n} of ${desired}, capped at ${children.target} by spec.nodeCountLimit`
                : `replica ${n} of ${children.target}`,
      });
    }
    // Template labels (and the role / MultiRoleInference parent) are added to existing children, never removed.
    const labels = childLabels(is);
    const deleted = new Set(children.deletes.map((d) => d.child));
    for (const c of live) {
      if (deleted.has(c)) continue;
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

  // Karpenter mode: at most one Drifted budget change (drift.ts), on the members that stay.
  let driftClosed = false;
  if (s.drift) {
    const members = live.filter((c) => !children?.deletes.some((d) => d.child === c));
    const step = planDrift({ is, members, ...s.drift });
    actions.push(...driftActions<InferenceSetStatus>({ is, members, ...s.drift }, step));
    driftClosed = step.change?.nodes === DRIFT_BUDGET_CLOSED;
  }

  // KAITO counts every listed child whose phase is succeeded (terminating ones included).
  const readyReplicas = s.children.filter(isReady).length;
  const ready = !problem && readyReplicas === desired;
  const previous = (type: string) => is.status?.conditions?.find((c) => c.type === type);
  let conditions = withCondition(
    is.status?.conditions,
    problem
      ? { type: InferenceSetConditionType.Ready, status: 'False', reason: InferenceSetConditionReason.Failed, message: problem }
      : children?.limit?.state === 'capped'
        ? {
            type: InferenceSetConditionType.Ready,
            status: 'False',
            reason: InferenceSetConditionReason.NodeCountLimitReached,
            message: nodeCountLimitMessage(nodeCountLimit ?? 0, children.limit, desired, readyReplicas),
          }
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
  const readyCondition = conditions.find((c) => c.type === InferenceSetConditionType.Ready);
  if (
    readyCondition?.reason === InferenceSetConditionReason.NodeCountLimitReached &&
    previous(InferenceSetConditionType.Ready)?.reason !== readyCondition.reason
  )
    actions.push({ kind: 'event', note: { type: 'Warning', reason: InferenceSetConditionReason.NodeCountLimitReached, message: readyCondition.message } });
  const progressing = children ? progressingCondition(children, rollout, revision, previous(InferenceSetConditionType.Progressing) !== undefined) : undefined;
  if (progressing) {
    conditions = withCondition(conditions, progressing, s);
    if (progressing.reason === InferenceSetConditionReason.SurgeTimeout && previous(InferenceSetConditionType.Progressing)?.reason !== progressing.reason)
      actions.push({ kind: 'event', note: { type: 'Warning', reason: InferenceSetConditionReason.SurgeTimeout, message: progressing.message } });
  }
  const status: InferenceSetStatus = {
    ...(is.status ?? {}),
    // kaito-ts: the children that exist and are not being deleted (KAITO writes the desired count).
    replicas:
      live.length +
      actions.filter((a) => a.kind === 'create' && a.type === Resources.workspaces).length -
      actions.filter((a) => a.kind === 'delete' && a.type === Resources.workspaces).length,
    readyReplicas,
    selector: scaleSelectorOf(is),
    conditions,
  };
  actions.push({ kind: 'status', status });
  const recheck = [s.expectations.recheckAfterMs, children?.recheckAfterMs, driftClosed ? DRIFT_NEXT_PASS_MS : undefined].filter(
    (n): n is number => n !== undefined,
  );
  return {
    actions,
    desired: [
      ...live.filter((c) => !children?.deletes.some((d) => d.child === c)),
      ...Array.from({ length: children?.creates ?? 0 }, () => childWorkspace(is, { byo: s.byo })),
    ].map((c) => c as ChildWorkspace),
    ...(recheck.length ? { requeueAfterMs: Math.min(...recheck) } : {}),
  };
}

function nodeCountLimitMessage(limit: number, l: { allowed: number; nodesPerChild: number }, desired: number, ready: number): string {
  return (
    `spec.nodeCountLimit ${limit} allows ${l.allowed} of ${desired} replicas (${l.nodesPerChild} node(s) each): ` +
    `replicas are capped at ${l.allowed}; ${ready}/${desired} replicas are ready`
  );
}

type ConditionWant = Omit<WorkspaceCondition, 'lastTransitionTime' | 'observedGeneration'>;

/** kaito-ts's InferenceSetProgressing: set once a rollout starts, kept up to date afterwards. */
function progressingCondition(c: ChildPlan<unknown>, rollout: RolloutSettings, revision: number, present: boolean): ConditionWant | undefined {
  const type = InferenceSetConditionType.Progressing;
  const notes = rollout.notes.length ? `; ${rollout.notes.join('; ')}` : '';
  if (!rollout.enabled)
    return present
      ? {
          type,
          status: 'False',
          reason: InferenceSetConditionReason.RolloutDisabled,
          message: `template changes are not rolled out to existing replicas (${rollout.disabledBy})`,
        }
      : undefined;
  const r = c.rolling;
  if (!r)
    return present
      ? { type, status: 'True', reason: InferenceSetConditionReason.RolloutComplete, message: `every replica is on revision ${revision}${notes}` }
      : undefined;
  const knobs = `maxSurge ${r.surge}${r.surgeLimitedByNodes ? ' (limited by spec.nodeCountLimit)' : ''}, maxUnavailable ${r.maxUnavailable}`;
  if (r.stalledBy)
    return {
      type,
      status: 'False',
      reason: InferenceSetConditionReason.SurgeTimeout,
      message:
        `${r.stalledBy}: the rollout to revision ${revision} is stopped and the ${r.old} replica(s) on an older template are kept; ` +
        `it goes on when that replica becomes Ready or the template changes${notes}`,
    };
  return {
    type,
    status: 'True',
    reason: InferenceSetConditionReason.RollingUpdate,
    message: `rolling out revision ${revision}: ${r.current} replica(s) on it, ${r.old} on an older template (${knobs})${notes}`,
  };
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
    lastTransitionTime: old && old.status === want.status ? old.lastTransitionTime : isoMillis(s.now),
  };
  if (i >= 0) list[i] = next;
  else list.push(next);
  return list;
}
