// One pass over one NodeClaim, gpu-provisioner style: adopt (finalizer), launch after the delay
// (or fail with the cloud's message and retry with backoff, never delete), register and initialize
// the node, add the GPUs after the device-plugin delay, repair a node NotReady too long, and on
// deletion remove the node and its volumes before the finalizer. Reads caches only; every write is
// skipped when the object already says it. Times come from the API objects, so a restart resumes.
import type { V1ConfigMap, V1Node, V1PersistentVolume } from '@kubernetes/client-node';
import { isReady } from '../../runtime/conditions.js';
import { JSON_PATCH, MERGE_PATCH, type KubeClient } from '../../runtime/client.js';
import type { ObjectCache } from '../../runtime/cache.js';
import { ignoreAlreadyExists, ignoreGone, ignoreNotFound } from '../../runtime/errors.js';
import type { Result } from '../../runtime/controller.js';
import { ItemExponentialBackoff } from '../../runtime/rate-limit.js';
import { Resources, type ResourceType } from '../../runtime/resources.js';
import { GPU_RESOURCE, type NodePool } from '../nodes.js';
import { faultsFor, type Faults } from './faults.js';
import {
  AKS_CLUSTER_LABEL,
  AGENT_POOL_LABEL,
  INITIALIZED_LABEL,
  KWOK_NOT_READY_LABEL,
  launchedNode,
  nodeHas,
  nodeNameFor,
  nodeResourceGroup,
  nodeResources,
  nvmeVolumes,
  PV_CLAIM_LABEL,
  providerIdFor,
  registrationPatch,
  skuFacts,
  type SkuFacts,
} from './node.js';
import { agentPoolError, instanceTypeOf, isKaitoClaim, launchProblem, storageBytesOf, TERMINATION_FINALIZER, type NodeClaim } from './claim-view.js';
import type { Delays } from './provisioner-options.js';
import { statusChanged, wantedStatus, type Phase } from './claim-status.js';
import type { DeepReadonly } from '../../runtime/readonly.js';

export const PROVISIONER_FIELD_MANAGER = 'kaito-ts-sim-provisioner';
const NODE_CLAIMS: ResourceType = Resources.nodeClaims;
const PERSISTENT_VOLUMES: ResourceType = { group: '', version: 'v1', plural: 'persistentvolumes', kind: 'PersistentVolume', namespaced: false };

export interface ProvisionerCaches {
  claims: ObjectCache<NodeClaim>;
  nodes: ObjectCache<V1Node>;
  volumes: ObjectCache<V1PersistentVolume>;
  faults: ObjectCache<V1ConfigMap>;
}

export interface ProvisionerDeps {
  client: KubeClient;
  caches: ProvisionerCaches;
  delays: Delays;
  clusterName: string;
  kubeletVersion: string;
  pools: readonly NodePool[];
  now?: () => number;
  log?: (fields: Record<string, unknown>, msg: string) => void;
}

export interface ProvisionerStats {
  launched: number;
  launchFailures: number;
  repaired: number;
  terminated: number;
}

const timeOf = (s: string | Date | undefined): number => (s ? new Date(s).getTime() : 0);
/** When `delayMs` after an object's creation has surely passed: creationTimestamp has whole seconds. */
export const afterCreation = (created: string | Date | undefined, delayMs: number): number => timeOf(created) + (delayMs > 0 ? delayMs + 1000 : 0);

export class Provisioner {
  readonly stats: ProvisionerStats = { launched: 0, launchFailures: 0, repaired: 0, terminated: 0 };
  private readonly backoff = new ItemExponentialBackoff<string>(1_000, 300_000);
  // When each node was first seen NotReady: kwok's Stages set lastTransitionTime to the node's creation.
  private readonly notReadySince = new Map<string, number>();
  private readonly now: () => number;
  private readonly log: NonNullable<ProvisionerDeps['log']>;

  constructor(private readonly d: ProvisionerDeps) {
    this.now = d.now ?? Date.now;
    this.log = d.log ?? (() => undefined);
  }

  /** The node of a claim's agent pool, if this simulated cluster made one. */
  nodeOf(claimName: string): DeepReadonly<V1Node> | undefined {
    const rg = nodeResourceGroup(this.d.clusterName);
    return this.d.caches.nodes.list().find((n) => n.metadata?.labels?.[AGENT_POOL_LABEL] === claimName && n.metadata.labels[AKS_CLUSTER_LABEL] === rg);
  }

  volumesOf(claimName: string): readonly DeepReadonly<V1PersistentVolume>[] {
    return this.d.caches.volumes.list({ selector: { matchLabels: { [PV_CLAIM_LABEL]: claimName } } });
  }

  async reconcile(name: string): Promise<Result> {
    const claim = this.d.caches.claims.get(undefined, name);
    if (!claim) return this.collectOrphans(name);
    if (!isKaitoClaim(claim)) return {};
    if (claim.metadata?.deletionTimestamp) return this.terminate(claim);
    const adopted = claim.metadata?.finalizers?.includes(TERMINATION_FINALIZER)
      ? claim
      : await this.d.client.apply<NodeClaim>(NODE_CLAIMS, {
          apiVersion: 'karpenter.sh/v1',
          kind: 'NodeClaim',
          metadata: { name, finalizers: [TERMINATION_FINALIZER] },
        });
    const faults = faultsFor(adopted, this.d.caches.faults.list());
    const node = this.nodeOf(name);
    return node ? this.registered(adopted, node, faults) : this.launch(adopted, faults);
  }

  private async launch(claim: DeepReadonly<NodeClaim>, faults: Faults): Promise<Result> {
    const name = claim.metadata?.name ?? '';
    const sku = instanceTypeOf(claim);
    const facts = sku ? skuFacts(sku, this.d.pools) : undefined;
    const problem =
      launchProblem(claim) ??
      (facts
        ? undefined
        : agentPoolError(
            name,
            `SkuNotAvailable: the requested VM size ${sku ?? ''} is not offered by the simulated region (the Azure GPU SKUs of KAITO's catalog are)`,
          )) ??
      (faults.launchError !== undefined ? agentPoolError(name, faults.launchError) : undefined);
    if (problem !== undefined || !facts) return this.launchFailed(claim, problem ?? 'no SKU facts');
    const due = afterCreation(claim.metadata?.creationTimestamp, this.d.delays.launchDelayMs);
    const now = this.now();
    if (now < due) return this.writeStatus(claim, { kind: 'waiting' }, { requeueAfterMs: due - now });
    if (faults.neverRegister) {
      const timeout = due + this.d.delays.registerTimeoutMs;
      if (now < timeout) return this.writeStatus(claim, { kind: 'waiting' }, { requeueAfterMs: timeout - now });
      const seconds = Math.round(this.d.delays.registerTimeoutMs / 1000);
      return this.launchFailed(
        claim,
        `fail to find the node object (node ${nodeNameFor(name, this.d.clusterName)} did not register within ${seconds}s; fault never-register from ${faults.sources.join(', ')})`,
      );
    }
    const node = launchedNode({ claim, facts, clusterName: this.d.clusterName, kubeletVersion: this.d.kubeletVersion });
    const created = await this.d.client.create(Resources.nodes, node).then(
      () => true,
      (err: unknown) => (ignoreAlreadyExists(err), false),
    );
    await this.ensureVolumes(name, node.metadata?.name ?? '', facts);
    this.backoff.forget(name);
    if (created) {
      this.stats.launched++;
      this.log({ nodeclaim: name, node: node.metadata?.name, sku }, 'launched');
    }
    return this.writeStatus(claim, this.launchedPhase(claim, facts, undefined, false));
  }

  private async launchFailed(claim: DeepReadonly<NodeClaim>, message: string): Promise<Result> {
    const name = claim.metadata?.name ?? '';
    const retryInMs = this.backoff.when(name);
    this.stats.launchFailures++;
    this.log({ nodeclaim: name, retryInMs, error: message }, 'launch failed');
    return this.writeStatus(claim, { kind: 'launchFailed', message }, { requeueAfterMs: retryInMs });
  }

  private launchedPhase(claim: DeepReadonly<NodeClaim>, facts: SkuFacts, node: DeepReadonly<V1Node> | undefined, initialized: boolean): Phase {
    const name = claim.metadata?.name ?? '';
    const capacity = nodeResources(facts, storageBytesOf(claim) ?? 0, true);
    return {
      kind: 'launched',
      providerID: providerIdFor(name, this.d.clusterName),
      capacity,
      allocatable: capacity,
      ...(node ? { nodeName: node.metadata?.name ?? '' } : {}),
      registered: node !== undefined,
      nodeReady: initialized,
    };
  }

  private async registered(claim: DeepReadonly<NodeClaim>, node: DeepReadonly<V1Node>, faults: Faults): Promise<Result> {
    const name = claim.metadata?.name ?? '';
    const nodeName = node.metadata?.name ?? '';
    if (node.metadata?.deletionTimestamp) {
      // Someone deleted the node: Karpenter's termination deletes the claim with it.
      await this.d.client.delete(NODE_CLAIMS, { name }, { uid: claim.metadata?.uid ?? '' }).catch(ignoreGone);
      await this.releaseNode(node);
      return {};
    }
    const sku = instanceTypeOf(claim) ?? node.metadata?.labels?.['node.kubernetes.io/instance-type'] ?? '';
    const facts = skuFacts(sku, this.d.pools);
    if (facts) await this.ensureVolumes(name, nodeName, facts);
    const ready = isReady(node);
    const initialized = ready || node.metadata?.labels?.[INITIALIZED_LABEL] === 'true';
    const patch = registrationPatch(claim, node, { initialized, notReadyFault: faults.notReady });
    const staleFaultLabel = !faults.notReady && node.metadata?.labels?.[KWOK_NOT_READY_LABEL] !== undefined;
    if (!nodeHas(node, patch) || staleFaultLabel) await this.d.client.apply(Resources.nodes, patch);
    const waits: number[] = [];
    if (facts) waits.push(await this.devicePlugin(node, facts));
    const repair = await this.repair(claim, node, ready, faults.repairAfterMs ?? this.d.delays.repairAfterMs);
    if (repair === 'deleted') return {};
    waits.push(repair);
    const after = Math.min(...waits.filter((w) => w > 0), Infinity);
    const result = Number.isFinite(after) ? { requeueAfterMs: after } : {};
    if (!facts) return result;
    return this.writeStatus(claim, this.launchedPhase(claim, facts, node, initialized), result);
  }

  /** Adds nvidia.com/gpu to the node once the device plugin "started"; returns ms until then (0: done). */
  private async devicePlugin(node: DeepReadonly<V1Node>, facts: SkuFacts): Promise<number> {
    if (node.status?.capacity?.[GPU_RESOURCE] !== undefined) return 0;
    const due = afterCreation(node.metadata?.creationTimestamp, this.d.delays.devicePluginDelayMs) - this.now();
    if (due > 0) return due;
    const gpu = { [GPU_RESOURCE]: String(facts.gpuCount) };
    await this.d.client.patch(Resources.nodes, { name: node.metadata?.name ?? '' }, { status: { capacity: gpu, allocatable: gpu } }, MERGE_PATCH, 'status');
    return 0;
  }

  /** NodeRepair: NotReady (False or Unknown) for repairAfter → delete the claim. Returns ms until due, 0 when healthy. */
  private async repair(claim: DeepReadonly<NodeClaim>, node: DeepReadonly<V1Node>, ready: boolean, repairAfterMs: number): Promise<number | 'deleted'> {
    const nodeName = node.metadata?.name ?? '';
    const cond = node.status?.conditions?.find((c) => c.type === 'Ready');
    if (ready || !cond) {
      this.notReadySince.delete(nodeName);
      return 0;
    }
    const since = this.notReadySince.get(nodeName) ?? this.now();
    this.notReadySince.set(nodeName, since);
    const left = since + repairAfterMs - this.now();
    if (left > 0) return left;
    const name = claim.metadata?.name ?? '';
    await this.d.client.delete(NODE_CLAIMS, { name }, { uid: claim.metadata?.uid ?? '' }).catch(ignoreGone);
    this.stats.repaired++;
    this.notReadySince.delete(nodeName);
    this.log({ nodeclaim: name, node: nodeName, notReadySince: new Date(since).toISOString() }, 'NodeRepair: node NotReady too long, claim deleted');
    return 'deleted';
  }

  private async ensureVolumes(claimName: string, nodeName: string, facts: SkuFacts): Promise<void> {
    const have = new Set(this.volumesOf(claimName).map((pv) => pv.metadata?.name));
    for (const pv of nvmeVolumes(claimName, nodeName, facts)) {
      if (!have.has(pv.metadata?.name)) await this.d.client.create(PERSISTENT_VOLUMES, pv).catch(ignoreAlreadyExists);
    }
  }

  /** Deletion: node (and its volumes) first, then the claim's finalizer. */
  private async terminate(claim: DeepReadonly<NodeClaim>): Promise<Result> {
    const name = claim.metadata?.name ?? '';
    if (!claim.metadata?.finalizers?.includes(TERMINATION_FINALIZER)) return {};
    const node = this.nodeOf(name);
    await this.deleteVolumes(name);
    if (node) {
      await this.releaseNode(node);
      return {}; // the node's delete event brings us back
    }
    const finalizers = (claim.metadata.finalizers ?? []).filter((f) => f !== TERMINATION_FINALIZER);
    const released = await this.d.client
      .patch(
        NODE_CLAIMS,
        { name },
        [
          { op: 'test', path: '/metadata/resourceVersion', value: claim.metadata.resourceVersion },
          { op: 'replace', path: '/metadata/finalizers', value: finalizers },
        ],
        JSON_PATCH,
      )
      .then(
        () => true,
        (err: unknown) => (ignoreNotFound(err), false),
      );
    this.backoff.forget(name);
    if (released) {
      this.stats.terminated++;
      this.log({ nodeclaim: name }, 'terminated');
    }
    return {};
  }

  /** Deletes the node and lifts its termination finalizer (there is nothing to drain in a simulation). */
  private async releaseNode(node: DeepReadonly<V1Node>): Promise<void> {
    const name = node.metadata?.name ?? '';
    if (!node.metadata?.deletionTimestamp) await this.d.client.delete(Resources.nodes, { name }, { uid: node.metadata?.uid ?? '' }).catch(ignoreGone);
    const finalizers = node.metadata?.finalizers ?? [];
    if (finalizers.includes(TERMINATION_FINALIZER)) {
      await this.d.client
        .patch(
          Resources.nodes,
          { name },
          { metadata: { finalizers: finalizers.filter((f) => f !== TERMINATION_FINALIZER), resourceVersion: node.metadata?.resourceVersion } },
          MERGE_PATCH,
        )
        .catch(ignoreGone);
    }
  }

  private async deleteVolumes(claimName: string): Promise<void> {
    for (const pv of this.volumesOf(claimName)) {
      if (pv.metadata?.deletionTimestamp) continue;
      await this.d.client.delete(PERSISTENT_VOLUMES, { name: pv.metadata?.name ?? '' }, { uid: pv.metadata?.uid ?? '' }).catch(ignoreGone);
    }
  }

  /** gpu-provisioner's garbage collection: an agent pool whose claim is gone loses its node and volumes. */
  private async collectOrphans(claimName: string): Promise<Result> {
    const node = this.nodeOf(claimName);
    if (node) await this.releaseNode(node);
    await this.deleteVolumes(claimName);
    this.backoff.forget(claimName);
    return {};
  }

  private async writeStatus(claim: DeepReadonly<NodeClaim>, phase: Phase, result: Result = {}): Promise<Result> {
    const status = wantedStatus(claim.status, phase, new Date(this.now()), claim.metadata?.generation);
    if (statusChanged(claim.status, status)) {
      await this.d.client.applyStatus(NODE_CLAIMS, { name: claim.metadata?.name ?? '' }, status);
    }
    return result;
  }
}
