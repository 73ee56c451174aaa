// The InferenceSet controller: wired as a table (For InferenceSets, Owns their ControllerRevisions,
// Watches the Workspaces labelled created-by, as KAITO's predicate does; in Karpenter mode also the
// members' NodePools and NodeClaims, for the drift step) and reconciled as
// snapshot → plan (plan.ts, pure) → execute (the shared PlanExecutor).
import type { KubernetesObject, V1ControllerRevision } from '@kubernetes/client-node';
import { isDeepStrictEqual } from 'node:util';
import {
  ANNOTATION_CHILD_TEMPLATE_HASH,
  LABEL_INFERENCESET_CREATED_BY,
  LABEL_KARPENTER_INFERENCESET,
  LABEL_KARPENTER_INFERENCESET_NAMESPACE,
  LABEL_REVISION_INFERENCESET_NAME,
} from '../../api/labels.js';
import type { NodeClaim } from '../../builders/nodeclaim.js';
import type { NodePool } from '../../builders/nodepool.js';
import { ControllerBuilder, resource } from '../../runtime/builder.js';
import type { CacheReader, ObjectEvent } from '../../runtime/cache.js';
import { mutableCopy, type DeepReadonly } from '../../runtime/readonly.js';
import type { KubeClient } from '../../runtime/client.js';
import { TerminalError, type Controller, type Result } from '../../runtime/controller.js';
import { isRefused } from '../../runtime/errors.js';
import type { EventRecorder } from '../../runtime/events.js';
import { watchFailureLog, type Logger } from '../../runtime/log.js';
import { enqueueLabelled, type Mapper } from '../../runtime/mappers.js';
import type { Reflector } from '../../runtime/reflector.js';
import { objectKey, Resources } from '../../runtime/resources.js';
import { ActionFailed, planErrorPolicy } from '../shared/actions.js';
import { PlanExecutor, type ExecutionRecord } from '../shared/executor.js';
import { phaseOf, type ChildWorkspace, type InferenceSetObject } from './children.js';
import { driftBudgetOf } from '../../builders/nodepool.js';
import { isDrifted } from './drift.js';
import { Expectations } from './expectations.js';
import { planInferenceSet } from './plan.js';
import type { DriftSnapshot } from './drift.js';

export interface InferenceSetControllerOptions {
  client: KubeClient;
  recorder: EventRecorder;
  log: Logger;
  /** Bring-your-own nodes (node auto-provisioning off): children get no instanceType. */
  byo: boolean;
  /** --node-provisioner=karpenter: the members' Drifted budgets are opened one member at a time. */
  karpenter?: boolean;
  /** KAITO: MaxConcurrentReconciles 5. */
  maxConcurrentReconciles?: number;
  namespace?: string;
  now?: () => Date;
}

export interface InferenceSetController {
  controller: Controller;
  reflectors: Reflector<KubernetesObject>[];
  required: Reflector<KubernetesObject>[];
  reconciler: InferenceSetReconciler;
}

export function setupInferenceSetController(o: InferenceSetControllerOptions): InferenceSetController {
  const now = o.now ?? (() => new Date());
  const expectations = new Expectations(() => now().getTime());
  const watchFailure = watchFailureLog(o.log);
  const built = new ControllerBuilder({
    client: o.client,
    namespace: o.namespace,
    onWatchError: (type, err) => watchFailure(type.plural, err.message),
  })
    // Optional: on a cluster without the InferenceSet CRD (a Helm upgrade does not add CRDs, a takeover
    // from KAITO v0.8) the operator runs its Workspaces and this controller waits for the CRD.
    .for('inferenceSets', resource<InferenceSetObject>(Resources.inferenceSets), { when: inferenceSetChanged, required: false })
    .owns('controllerRevisions', resource<V1ControllerRevision>(Resources.controllerRevisions), {
      labelSelector: LABEL_REVISION_INFERENCESET_NAME,
      indexLabel: LABEL_REVISION_INFERENCESET_NAME,
    })
    // Only members (KAITO's WorkspacePredicate), indexed by their InferenceSet.
    .watches('workspaces', resource<ChildWorkspace>(Resources.workspaces), {
      labelSelector: LABEL_INFERENCESET_CREATED_BY,
      indexLabel: LABEL_INFERENCESET_CREATED_BY,
      when: memberChanged,
      map: () => memberToInferenceSet(expectations),
    })
    // Karpenter mode: the members' NodePools and their claims carry the set's labels. Optional: the
    // operator runs without Karpenter's CRDs and picks them up when they are installed.
    .gated(!!o.karpenter, (b) =>
      b
        .watches('nodePools', resource<NodePool>(Resources.nodePools), {
          labelSelector: LABEL_KARPENTER_INFERENCESET,
          required: false,
          when: poolDriftChanged,
          map: () => labelledInferenceSet,
        })
        .watches('nodeClaims', resource<NodeClaim>(Resources.nodeClaims), {
          labelSelector: LABEL_KARPENTER_INFERENCESET,
          required: false,
          when: claimDriftChanged,
          map: () => labelledInferenceSet,
        }),
    )
    .build({
      name: 'inferenceset',
      reconcile: (key, ctx) => reconciler.reconcile(key, ctx.signal),
      errorPolicy: planErrorPolicy,
      maxConcurrentReconciles: o.maxConcurrentReconciles ?? 5,
      log: o.log,
    });
  const { controller, caches, reflectors, required } = built;
  const reconciler = new InferenceSetReconciler({ client: o.client, recorder: o.recorder, caches, expectations, byo: o.byo, now });
  // Karpenter's CRDs installed after start: every set is looked at again.
  for (const source of [built.sources.nodePools, built.sources.nodeClaims])
    if (source) void source.synced.then(() => caches.inferenceSets.keys().forEach((k) => controller.enqueue(k)));
  return { controller, reflectors, required, reconciler };
}

/** Read-only views (the executor's write-through takes the writable caches the builder made). */
export interface InferenceSetCaches {
  inferenceSets: Pick<CacheReader<InferenceSetObject>, 'getByKey'>;
  workspaces: Pick<CacheReader<ChildWorkspace>, 'list'>;
  controllerRevisions: Pick<CacheReader<V1ControllerRevision>, 'list'>;
  /** Karpenter mode only. */
  nodePools?: Pick<CacheReader<NodePool>, 'list'>;
  nodeClaims?: Pick<CacheReader<NodeClaim>, 'list'>;
}

export class InferenceSetReconciler {
  private readonly executor: PlanExecutor<InferenceSetObject>;
  lastExecution?: ExecutionRecord;

  constructor(
    private readonly deps: {
      client: KubeClient;
      recorder: EventRecorder;
      caches: InferenceSetCaches;
      expectations: Expectations;
      byo: boolean;
      now: () => Date;
    },
  ) {
    this.executor = new PlanExecutor<InferenceSetObject>({ client: deps.client, caches: deps.caches, recorder: deps.recorder, owner: Resources.inferenceSets });
  }

  reconcile = async (key: string, signal?: AbortSignal): Promise<Result> => {
    const { caches, expectations } = this.deps;
    const cached = caches.inferenceSets.getByKey(key);
    if (!cached) {
      expectations.forget(key);
      return {};
    }
    const is = mutableCopy<InferenceSetObject>(cached);
    const namespace = is.metadata.namespace;
    const selector = { matchLabels: { [LABEL_INFERENCESET_CREATED_BY]: is.metadata.name ?? '' } };
    const children = caches.workspaces.list({ namespace, selector });
    const revisions = caches.controllerRevisions.list({ namespace, selector: { matchLabels: { [LABEL_REVISION_INFERENCESET_NAME]: is.metadata.name ?? '' } } });
    const drift = driftSnapshot(caches, is);
    const plan = planInferenceSet({
      is,
      children,
      revisions,
      expectations: expectations.view(key, children),
      byo: this.deps.byo,
      ...(drift ? { drift } : {}),
      now: this.deps.now(),
    });
    if (plan.failure) throw new TerminalError(plan.failure.reason, plan.failure.message);
    // Deletes are expected before they are sent: a pass that reads the cache before their events does not delete again.
    const deletes = plan.actions.flatMap((a) => (a.kind === 'delete' && a.type === Resources.workspaces ? [a.uid] : []));
    expectations.expectDeletes(key, deletes);
    try {
      this.lastExecution = await this.executor.execute(is, plan, { signal });
    } catch (err) {
      if (err instanceof ActionFailed) {
        const failed = plan.actions.indexOf(err.action);
        for (const a of plan.actions.slice(failed)) if (a.kind === 'delete' && a.type === Resources.workspaces) expectations.deleteFailed(key, a.uid);
        // A create with no clear answer may have made the child: hold further creates until it shows.
        if (err.action.kind === 'create' && err.action.type === Resources.workspaces && !isRefused(err.cause)) expectations.uncertainCreate(key);
      }
      throw err;
    }
    return plan.requeueAfterMs ? { requeueAfterMs: plan.requeueAfterMs } : {};
  };
}

/** The set's NodePools and NodeClaims (cluster-scoped, so selected by both set labels); undefined outside Karpenter mode. */
function driftSnapshot(caches: InferenceSetCaches, is: InferenceSetObject): DriftSnapshot | undefined {
  if (!caches.nodePools || !caches.nodeClaims) return undefined;
  const selector = {
    matchLabels: { [LABEL_KARPENTER_INFERENCESET]: is.metadata.name ?? '', [LABEL_KARPENTER_INFERENCESET_NAMESPACE]: is.metadata.namespace ?? '' },
  };
  return { pools: caches.nodePools.list({ selector }), claims: caches.nodeClaims.list({ selector }) };
}

/** A NodePool matters to the drift step when it comes, goes, starts terminating or its Drifted budget moves. */
export function poolDriftChanged(e: ObjectEvent<NodePool>): boolean {
  if (e.type !== 'update') return true;
  return driftBudgetOf(e.old) !== driftBudgetOf(e.obj) || !!e.old.metadata.deletionTimestamp !== !!e.obj.metadata.deletionTimestamp;
}

/** A NodeClaim matters when it comes, goes, or its Drifted condition flips (Karpenter's other status updates do not). */
export function claimDriftChanged(e: ObjectEvent<NodeClaim>): boolean {
  if (e.type !== 'update') return true;
  return isDrifted(e.old) !== isDrifted(e.obj) || !isDeepStrictEqual(e.old.metadata.labels, e.obj.metadata.labels);
}

/** NodePools and NodeClaims name their InferenceSet in two labels (cluster-scoped: no owner reference). */
export const labelledInferenceSet = enqueueLabelled(LABEL_KARPENTER_INFERENCESET, LABEL_KARPENTER_INFERENCESET_NAMESPACE);

/** Our own status writes come back as updates: only spec, labels, annotations, finalizers and deletion matter. */
export function inferenceSetChanged(e: ObjectEvent<InferenceSetObject>): boolean {
  if (e.type !== 'update') return true;
  const m = (x: DeepReadonly<InferenceSetObject>) => [
    x.metadata.generation,
    x.metadata.labels,
    x.metadata.annotations,
    x.metadata.finalizers,
    x.metadata.deletionTimestamp,
  ];
  return !isDeepStrictEqual(m(e.old), m(e.obj));
}

/**
 * A member matters when it comes, goes, starts terminating, changes labels or its template hash,
 * flips its phase, or reports its node count (nodeCountLimit).
 */
export function memberChanged(e: ObjectEvent<ChildWorkspace>): boolean {
  if (e.type !== 'update') return true;
  return (
    phaseOf(e.old) !== phaseOf(e.obj) ||
    e.old.status?.targetNodeCount !== e.obj.status?.targetNodeCount ||
    e.old.metadata?.annotations?.[ANNOTATION_CHILD_TEMPLATE_HASH] !== e.obj.metadata?.annotations?.[ANNOTATION_CHILD_TEMPLATE_HASH] ||
    !!e.old.metadata?.deletionTimestamp !== !!e.obj.metadata?.deletionTimestamp ||
    !isDeepStrictEqual(e.old.metadata?.labels, e.obj.metadata?.labels)
  );
}

/** The InferenceSet named by the created-by label; an added member satisfies an uncertain create. */
export function memberToInferenceSet(expectations: Pick<Expectations, 'createObserved'>): Mapper<ChildWorkspace> {
  return (e) => {
    const names = new Set([
      e.obj.metadata?.labels?.[LABEL_INFERENCESET_CREATED_BY],
      e.type === 'update' ? e.old.metadata?.labels?.[LABEL_INFERENCESET_CREATED_BY] : undefined,
    ]);
    const keys = [...names].filter((n): n is string => !!n).map((n) => objectKey(e.obj.metadata?.namespace, n));
    if (e.type === 'add') for (const k of keys) expectations.createObserved(k);
    return keys;
  };
}
