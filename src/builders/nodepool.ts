// The karpenter.sh/v1 NodePool KAITO v0.12 writes per workspace in `--node-provisioner=karpenter`
// mode (pkg/nodeprovision/karpenter/nodepool.go), the NodeClasses it creates at start, and the node
// selector that pins the workspace's pods to the pool's nodes. Pure: no client, no clock.
import { createHash } from 'node:crypto';
import type { KubernetesObject, V1NodeSelectorRequirement, V1ObjectMeta } from '@kubernetes/client-node';
import type { NodeClassConfig, NodeClassEntry } from '../api/node-class-config.js';
import {
  ANNOTATION_NODE_CLASS_NAME,
  AZURE_PLACEMENT_REGIONAL,
  KARPENTER_AZURE_GROUP,
  KARPENTER_MANAGED_BY_KAITO,
  LABEL_AZURE_PLACEMENT_SCOPE,
  LABEL_INFERENCESET_CREATED_BY,
  LABEL_INSTANCE_TYPE,
  LABEL_KARPENTER_DEFAULT_NODECLASS,
  LABEL_KARPENTER_INFERENCESET,
  LABEL_KARPENTER_INFERENCESET_NAMESPACE,
  LABEL_KARPENTER_MANAGED_BY,
  LABEL_KARPENTER_WORKSPACE_NAME,
  LABEL_KARPENTER_WORKSPACE_NAMESPACE,
} from '../api/labels.js';
import { sanitizedMatchLabels } from '../api/selector.js';
import type { Workspace } from '../api/types.js';
import type { DeepReadonly } from '../runtime/readonly.js';
import { workspaceName, workspaceNamespace } from './meta.js';
import { GPU_NODE_TAINT, type NodeClaimRequirement } from './nodeclaim.js';

/** One disruption budget (Karpenter: without reasons it covers every reason; schedule and duration go together). */
export interface NodePoolBudget {
  nodes: string;
  reasons?: string[];
  schedule?: string;
  duration?: string;
}

export interface NodePool {
  apiVersion: 'karpenter.sh/v1';
  kind: 'NodePool';
  metadata: V1ObjectMeta & { name: string; labels: Record<string, string> };
  spec: {
    replicas: number;
    template: {
      metadata: { labels: Record<string, string> };
      spec: {
        nodeClassRef: { group: string; kind: string; name: string };
        requirements: NodeClaimRequirement[];
        taints: { key: string; value: string; effect: string }[];
        /** Go's zero NillableDuration marshals as "Never", so KAITO's nodes never expire (Karpenter's default is 720h). */
        expireAfter: 'Never';
      };
    };
    disruption: { consolidateAfter: string; budgets: NodePoolBudget[] };
  };
}

/** Karpenter's disruption reason for drift, and the two values of its budget KAITO writes. */
export const DRIFTED_REASON = 'Drifted';
export const DRIFT_BUDGET_OPEN = '1';
export const DRIFT_BUDGET_CLOSED = '0';

/** The `nodes` of the first budget naming Drifted (KAITO's getDriftBudgetNodes); undefined when there is none. */
export function driftBudgetOf(pool: DeepReadonly<Pick<NodePool, 'spec'>>): string | undefined {
  return pool.spec?.disruption?.budgets?.find((b) => b.reasons?.includes(DRIFTED_REASON))?.nodes;
}

/** What kaito-ts applies to a NodePool it already has: the two fields it keeps, and the version they were read at. */
export type NodePoolUpdate = KubernetesObject & {
  metadata: { name: string; resourceVersion?: string };
  spec: { replicas?: number; disruption?: { budgets: NodePoolBudget[] } };
};

/**
 * The apply of a change to a live pool: `replicas` and `spec.disruption.budgets`, always both.
 * Both writers (the Workspace step raising replicas, the InferenceSet step moving the Drifted
 * budget) share one field manager, and a server-side apply drops whatever that manager applied
 * before and omits now: a budgets-only apply would remove a raised `replicas`, a replicas-only one
 * the budgets (Karpenter would default them to 10% for every reason). So each carries the other
 * field as cached, and the resourceVersion makes a stale copy a 409, never a revert. `budgets` is an
 * atomic list in Karpenter's CRD: the whole list is sent, the other entries as they are.
 */
export function nodePoolUpdate(pool: DeepReadonly<NodePool>, change: { replicas?: number; driftBudget?: string }): NodePoolUpdate {
  const replicas = change.replicas ?? pool.spec?.replicas;
  const budgets = pool.spec?.disruption?.budgets;
  let drifted = change.driftBudget === undefined;
  const updated = budgets?.map((b) => {
    const copy = structuredClone(b) as NodePoolBudget;
    if (!drifted && b.reasons?.includes(DRIFTED_REASON)) {
      copy.nodes = change.driftBudget ?? copy.nodes;
      drifted = true;
    }
    return copy;
  });
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: pool.metadata.name, ...(pool.metadata.resourceVersion ? { resourceVersion: pool.metadata.resourceVersion } : {}) },
    spec: { ...(replicas !== undefined ? { replicas } : {}), ...(updated ? { disruption: { budgets: updated } } : {}) },
  };
}

/** The object KAITO creates for one `--karpenter-node-classes` entry. */
export interface NodeClass {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels: Record<string, string> };
  spec?: Record<string, unknown>;
}

/** The NodePool name lands in the karpenter.sh/nodepool label of NodeClaims and Nodes: a label value. */
const MAX_NODEPOOL_NAME = 63;
const HASH_SUFFIX = 9;

/** `<namespace>-<name>`; beyond 63 characters, its first 53 characters, `-` and 9 hex digits of its sha256. */
export function nodePoolName(namespace: string, name: string): string {
  const full = `${namespace}-${name}`;
  if (Buffer.byteLength(full) <= MAX_NODEPOOL_NAME) return full;
  const digest = createHash('sha256').update(full).digest('hex').slice(0, HASH_SUFFIX);
  // Go slices bytes; names are DNS labels, so bytes are characters.
  return `${Buffer.from(full)
    .subarray(0, MAX_NODEPOOL_NAME - 1 - HASH_SUFFIX)
    .toString()}-${digest}`;
}

export function nodePoolNameOf(ws: DeepReadonly<Workspace>): string {
  return nodePoolName(workspaceNamespace(ws), workspaceName(ws));
}

/** KAITO's error text for an annotation naming a NodeClass outside the configured list (Go's %q and %v). */
export function nodeClassNotPermitted(name: string, allowed: readonly string[]): string {
  return `annotation ${ANNOTATION_NODE_CLASS_NAME}=${JSON.stringify(name)} is not permitted: choose one of the KAITO-managed NodeClasses [${allowed.join(' ')}]`;
}

/** The NodeClass a workspace's NodePool references: its annotation when set and allowed, else the default. */
export function resolveNodeClassName(
  ws: DeepReadonly<Workspace>,
  cfg: Pick<NodeClassConfig, 'defaultName' | 'nodeClassNames'>,
): { ok: true; name: string } | { ok: false; message: string } {
  const name = ws.metadata.annotations?.[ANNOTATION_NODE_CLASS_NAME];
  if (!name) return { ok: true, name: cfg.defaultName };
  if (!cfg.nodeClassNames.includes(name)) return { ok: false, message: nodeClassNotPermitted(name, cfg.nodeClassNames) };
  return { ok: true, name };
}

function inferenceSetOf(ws: DeepReadonly<Workspace>): string | undefined {
  return ws.metadata.labels?.[LABEL_INFERENCESET_CREATED_BY];
}

/** Identity labels of the pool (and, in its template, of its NodeClaims and Nodes); InferenceSet keys for its members. */
function ownerLabels(ws: DeepReadonly<Workspace>): Record<string, string> {
  const labels: Record<string, string> = {
    [LABEL_KARPENTER_WORKSPACE_NAME]: workspaceName(ws),
    [LABEL_KARPENTER_WORKSPACE_NAMESPACE]: workspaceNamespace(ws),
  };
  const set = inferenceSetOf(ws);
  if (set !== undefined) {
    labels[LABEL_KARPENTER_INFERENCESET] = set;
    labels[LABEL_KARPENTER_INFERENCESET_NAMESPACE] = workspaceNamespace(ws);
  }
  return labels;
}

function requirements(ws: DeepReadonly<Workspace>, cfg: Pick<NodeClassConfig, 'group'>): NodeClaimRequirement[] {
  const reqs: NodeClaimRequirement[] = [{ key: LABEL_INSTANCE_TYPE, operator: 'In', values: [ws.resource?.instanceType ?? ''] }];
  // karpenter-provider-azure needs a placement scope.
  if (cfg.group === KARPENTER_AZURE_GROUP) reqs.push({ key: LABEL_AZURE_PLACEMENT_SCOPE, operator: 'In', values: [AZURE_PLACEMENT_REGIONAL] });
  return reqs;
}

/**
 * KAITO's generateNodePool with `replicas` set as its ProvisionNodes sets it. The user's matchLabels
 * (reserved keys stripped) join the template labels so the pods' node affinity matches the new nodes.
 */
export function buildNodePool(ws: DeepReadonly<Workspace>, replicas: number, cfg: Pick<NodeClassConfig, 'group' | 'kind'>, nodeClassName: string): NodePool {
  const owner = ownerLabels(ws);
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: nodePoolNameOf(ws), labels: { [LABEL_KARPENTER_MANAGED_BY]: KARPENTER_MANAGED_BY_KAITO, ...owner } },
    spec: {
      replicas,
      template: {
        metadata: { labels: { ...owner, ...sanitizedMatchLabels(ws.resource?.labelSelector) } },
        spec: {
          nodeClassRef: { group: cfg.group, kind: cfg.kind, name: nodeClassName },
          requirements: requirements(ws, cfg),
          taints: [{ ...GPU_NODE_TAINT }],
          expireAfter: 'Never',
        },
      },
      // InferenceSet members start with drift replacement blocked; the drift step opens one at a time.
      disruption: {
        consolidateAfter: '0s',
        budgets: [{ nodes: inferenceSetOf(ws) === undefined ? DRIFT_BUDGET_OPEN : DRIFT_BUDGET_CLOSED, reasons: [DRIFTED_REASON] }],
      },
    },
  };
}

/** KAITO's newNodeClassObject: the entry's name and spec, the managed-by label, the default label on the default entry. */
export function buildNodeClass(cfg: Pick<NodeClassConfig, 'group' | 'version' | 'kind'>, entry: NodeClassEntry): NodeClass {
  const labels: Record<string, string> = { [LABEL_KARPENTER_MANAGED_BY]: KARPENTER_MANAGED_BY_KAITO };
  if (entry.default) labels[LABEL_KARPENTER_DEFAULT_NODECLASS] = 'true';
  const obj: NodeClass = { apiVersion: cfg.group ? `${cfg.group}/${cfg.version}` : cfg.version, kind: cfg.kind, metadata: { name: entry.name, labels } };
  if (entry.spec) obj.spec = structuredClone(entry.spec);
  return obj;
}

/** KAITO's BuildNodeSelector in karpenter mode: the pool's identity labels, each `In [value]`. */
export function karpenterNodeAffinity(ws: DeepReadonly<Workspace>): V1NodeSelectorRequirement[] {
  return [
    { key: LABEL_KARPENTER_WORKSPACE_NAME, operator: 'In', values: [workspaceName(ws)] },
    { key: LABEL_KARPENTER_WORKSPACE_NAMESPACE, operator: 'In', values: [workspaceNamespace(ws)] },
  ];
}
