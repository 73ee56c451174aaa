// The pieces every workspace plan is made of (inference, tuning, deletion, failure): the metadata
// patch, the status write and its events, node facts, node auto-provisioning. Pure: the builder
// keeps its own copy of the workspace so later steps see what earlier ones would write.
import type { KubernetesObject, V1Affinity } from '@kubernetes/client-node';
import { ACCELERATOR_NVIDIA, LABEL_ACCELERATOR, LABEL_SURGE, WORKSPACE_FINALIZER } from '../../api/labels.js';
import type { ResolvedWorkspace } from '../../api/resolved-workspace.js';
import { matchingNodes, readyMatchingNodes, sortedNames } from '../../builders/facts.js';
import { objectNamed } from '../../runtime/memo.js';
import { buildNodeClaim, nodeClaimName } from '../../builders/nodeclaim.js';
import { replicaShortfall } from '../../builders/replicas.js';
import { nodeAffinityAdmits } from '../../runtime/label-selector.js';
import type { DeepReadonly } from '../../runtime/readonly.js';
import { Resources } from '../../runtime/resources.js';
import type { Action, EventNote, Plan } from '../shared/actions.js';
import { provisionerOf, type WorkspaceObject } from './context.js';
import { poolNodes, provisionKarpenter } from './karpenter-provision.js';
import { nodePressureWarning } from './node-pressure.js';
import { NODECLAIMS_CREATED_ANNOTATION, planProvisioning, type ProvisioningPlan } from './provisioning-plan.js';
import { Reason } from './reasons.js';
import type { WorkspaceSnapshot } from './snapshot.js';
import { tuningStatus, type TuningOutcome } from './tuning-status.js';
import { computeStatus, type StatusInput } from './workspace-status.js';

export type NodeStatusFacts = Pick<StatusInput, 'nodes' | 'nodeClaims'>;

export class PlanBuilder {
  readonly actions: Action[] = [];
  /** The workspace as it will be after the actions so far. */
  ws: WorkspaceObject;

  constructor(readonly snap: WorkspaceSnapshot) {
    this.ws = snap.ws;
  }

  add(...actions: Action[]): this {
    this.actions.push(...actions);
    return this;
  }

  event(type: EventNote['type'], reason: string, message: string): this {
    return this.add({ kind: 'event', note: { type, reason, message } });
  }

  /** Our finalizer and `annotations`, in one patch, only when something is missing. */
  metadata(annotations: Record<string, string> = {}): this {
    const meta = this.ws.metadata;
    const finalizers = meta.finalizers ?? [];
    const fresh = Object.entries(annotations).filter(([k, v]) => meta.annotations?.[k] !== v);
    if (finalizers.includes(WORKSPACE_FINALIZER) && !fresh.length) return this;
    const next = {
      ...meta,
      finalizers: finalizers.includes(WORKSPACE_FINALIZER) ? finalizers : [...finalizers, WORKSPACE_FINALIZER],
      annotations: { ...meta.annotations, ...annotations },
    };
    this.ws = { ...this.ws, metadata: next };
    // One patch per pass, from what the snapshot held: a later key joins the earlier patch, which runs
    // before anything it guards.
    const seen = this.snap.ws.metadata;
    const changed = Object.fromEntries(Object.entries(next.annotations).filter(([k, v]) => seen.annotations?.[k] !== v));
    const patch: Action = {
      kind: 'patchMetadata',
      resourceVersion: seen.resourceVersion,
      ...((seen.finalizers ?? []).includes(WORKSPACE_FINALIZER) ? {} : { finalizers: next.finalizers }),
      ...(Object.keys(changed).length ? { annotations: changed } : {}),
    };
    const earlier = this.actions.findIndex((x) => x.kind === 'patchMetadata');
    if (earlier >= 0) this.actions[earlier] = patch;
    else this.add(patch);
    return this;
  }

  /** The inference status from this pass's facts; written (and a failure announced) only when it changed. */
  status(input: Partial<StatusInput>): this {
    const { status, changed } = computeStatus(this.ws, { targetNodeCount: this.ws.status?.targetNodeCount ?? 0, ...input }, this.snap.now);
    if (!changed) return this;
    if (input.failure) this.event('Warning', input.failure.reason, input.failure.message);
    this.ws = { ...this.ws, status };
    return this.add({ kind: 'status', status });
  }

  tuningStatus(nodes: NodeStatusFacts, outcome: TuningOutcome): this {
    const { status, changed } = tuningStatus(this.ws, nodes, outcome, this.snap.now);
    if (!changed) return this;
    const before = this.ws.status?.state;
    if (outcome.kind === 'invalid' || (outcome.kind === 'waiting' && outcome.warn)) this.event('Warning', outcome.reason, outcome.message);
    else if (outcome.kind === 'job' && status.state !== before && status.state === 'Failed') this.event('Warning', 'TuningJobFailed', outcome.job.message);
    else if (outcome.kind === 'job' && status.state !== before && status.state === 'Succeeded') this.event('Normal', 'TuningJobSucceeded', outcome.job.message);
    this.ws = { ...this.ws, status };
    return this.add({ kind: 'status', status });
  }

  /**
   * NodesReady/NodeClaimsReady facts: the matching nodes (one filter per pass) and the provisioning plan.
   * `podAffinity`: the built pods' affinity; under gpu-provisioner only nodes it admits count, so a
   * workspace pinned to its own claims' nodes never counts a sibling's (KAITO v0.12, #2201).
   */
  nodeFacts(target: number, plan?: ProvisioningPlan, podAffinity?: DeepReadonly<V1Affinity>): NodeStatusFacts {
    const { snap } = this;
    const provisioner = provisionerOf(snap.config);
    // Karpenter mode: only this workspace's nodes, never a sibling's with the same selector (KAITO #2201).
    const selected = matchingNodes(this.ws, provisioner === 'karpenter' ? poolNodes(this.ws, snap.nodes) : snap.nodes);
    const matching =
      provisioner === 'azure-gpu-provisioner' && podAffinity ? selected.filter((n) => nodeAffinityAdmits(podAffinity, n.metadata?.labels)) : selected;
    const byo = snap.config.featureGates.disableNodeAutoProvisioning;
    const out: NodeStatusFacts = {
      nodes: {
        target,
        ready: readyMatchingNodes(this.ws, matching).length,
        selected: matching.length,
        workerNodes: [...sortedNames(matching)],
        ...(plan?.nodeIssue ? { issue: plan.nodeIssue } : {}),
        shortfall: replicaShortfall(target, byo, matching.length),
        pressureWarning: nodePressureWarning(matching),
      },
      ...(plan ? { nodeClaims: plan.claims } : {}),
    };
    if (!plan && snap.provisioning === 'crdMissing') {
      out.nodeClaims =
        provisionerOf(snap.config) === 'karpenter'
          ? {
              ready: false,
              reason: Reason.NodePoolCrdMissing,
              message:
                '--node-provisioner=karpenter but the karpenter.sh/v1 NodePool CRD is not installed; install Karpenter (it is picked up without a restart), or run with --node-provisioner=byo to use existing nodes',
            }
          : {
              ready: false,
              reason: Reason.NodeClaimCrdMissing,
              message:
                'node auto-provisioning is enabled but the karpenter.sh/v1 NodeClaim CRD is not installed; install it, or run with --feature-gates=disableNodeAutoProvisioning=true to use existing nodes',
            };
    }
    return out;
  }

  /**
   * Node auto-provisioning: the claims to create (their count persisted on the workspace first, so a
   * crash never forgets a create) and the nodes to label. Undefined when off or the claim cache is not
   * synced (claims are never counted from an empty cache).
   */
  provision(target: number, resolved: ResolvedWorkspace): ProvisioningPlan | undefined {
    const { snap } = this;
    if (snap.provisioning !== 'on') return undefined;
    const plan = provisionerOf(snap.config) === 'karpenter' ? provisionKarpenter(this, target, resolved) : this.provisionClaims(target, resolved);
    for (const name of plan.nodesToLabel) {
      const node = objectNamed(snap.nodes, name);
      if (node) this.add({ kind: 'labelNode', name, resourceVersion: node.metadata?.resourceVersion, labels: { [LABEL_ACCELERATOR]: ACCELERATOR_NVIDIA } });
    }
    return plan;
  }

  /** gpu-provisioner mode: one NodeClaim per missing node. */
  private provisionClaims(target: number, resolved: ResolvedWorkspace): ProvisioningPlan {
    const { snap } = this;
    const created = createdSoFar(this.ws);
    const plan = planProvisioning({
      ws: this.ws,
      target,
      // A surge's claim (update-plan.ts) is the update's, not one of the workspace's nodes.
      claims: snap.claims.filter((c) => !c.metadata.labels?.[LABEL_SURGE]),
      nodes: snap.nodes,
      created,
      catalogSku: !!resolved.sku?.gpu,
      waitLimitMs: snap.config.nodeProvisioningTimeoutMs,
      now: snap.now,
    });
    if (plan.toCreate > 0) {
      this.metadata({ [NODECLAIMS_CREATED_ANNOTATION]: String(created + plan.toCreate) });
      for (let i = 0; i < plan.toCreate; i++) {
        const claim = buildNodeClaim(this.ws, resolved, nodeClaimName(this.ws, snap.now, i));
        const name = claim.metadata.name;
        this.add({
          kind: 'create',
          type: Resources.nodeClaims,
          object: claim,
          why: `${plan.toCreate} node(s) missing for ${target} target node(s)`,
          created: { type: 'Normal', reason: 'NodeClaimCreated', message: `NodeClaim ${name} created for instance type ${this.ws.resource?.instanceType}` },
          failed: { type: 'Warning', reason: 'NodeClaimCreationFailed', message: `NodeClaim ${name}` },
        });
      }
      if (plan.replacements > 0)
        this.event(
          'Warning',
          'NodeClaimReplaced',
          `${plan.replacements} NodeClaim(s) replaced after their predecessor went away (node repair, expiry or deletion); each node is replaced at most once`,
        );
    }
    return plan;
  }

  /** Children the plan wants to exist (set once the builders ran). */
  desired?: KubernetesObject[];

  done(requeueAfterMs?: number): Plan {
    return { actions: this.actions, ...(this.desired ? { desired: this.desired } : {}), ...(requeueAfterMs !== undefined ? { requeueAfterMs } : {}) };
  }

  /**
   * A failure only a change of a watched input can cure: the finalizer, the condition and a Warning
   * event, and no child action. Whatever was planned before is dropped.
   */
  fail(reason: string, message: string, opts: { metadata?: boolean } = {}): Plan {
    this.actions.length = 0;
    this.ws = this.snap.ws;
    if (opts.metadata !== false) this.metadata();
    if (this.ws.tuning) this.tuningStatus(this.nodeFacts(1), { kind: 'invalid', reason, message });
    else this.status({ ...this.nodeFacts(this.ws.status?.targetNodeCount || 1), failure: { reason, message } });
    return { actions: this.actions, failure: { reason, message } };
  }
}

/** Claims created for this workspace so far (persisted in an annotation). */
export function createdSoFar(ws: WorkspaceObject): number {
  return Number(ws.metadata.annotations?.[NODECLAIMS_CREATED_ANNOTATION] ?? 0) || 0;
}

/** The soonest of the delays, if any. */
export function soonest(...delays: (number | undefined)[]): number | undefined {
  const set = delays.filter((d): d is number => d !== undefined);
  return set.length ? Math.min(...set) : undefined;
}
