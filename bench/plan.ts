// What one benchmark run creates: the GPU node pools and the N workspaces that use them. Pure.
import type { Workspace } from '../src/api/types.js';
import { API_VERSION, KIND } from '../src/api/types.js';
import { POOL_LABEL, type NodePool } from '../src/simcluster/nodes.js';
import type { BenchMode } from './args.js';

/**
 * Pools of the default simcluster node file used by the benchmark: two NVMe SKUs and one without NVMe.
 * The cycle gives 40 % A100 (NVMe), 40 % A10 (no NVMe), 20 % H100 (NVMe, two GPUs per node).
 */
export const POOL_CYCLE = ['a100', 'a10', 'h100', 'a100', 'a10'] as const;
/** Presets that fit one node of every pool above (the smallest GPU is an A10 with 24 GiB). */
export const PRESET_CYCLE = ['phi-4-mini-instruct', 'mistral-7b-instruct', 'qwen2.5-coder-7b-instruct'] as const;
export const BENCH_LABEL = 'kaito-ts.bench/run';

export interface WorkspacePlan {
  name: string;
  pool: string;
  preset: string;
  instanceType: string;
  /** The pool's nodes have local NVMe volumes. */
  nvme: boolean;
}

export function workspaceName(i: number): string {
  return `ws-${String(i).padStart(4, '0')}`;
}

/** --hf-models: workspace i's Hugging Face id, a repo of its own (each is one lookup). */
export function hubModelId(i: number): string {
  return `kaito-ts-bench/qwen3-0.6b-${String(i).padStart(4, '0')}`;
}

/** The first `hfModels` workspaces name a Hugging Face id outside the catalog instead of a preset. */
export function planWorkspaces(n: number, pools: NodePool[], hfModels = 0): WorkspacePlan[] {
  const byName = new Map(pools.map((p) => [p.name, p]));
  return Array.from({ length: n }, (_, i): WorkspacePlan => {
    const poolName = POOL_CYCLE[i % POOL_CYCLE.length] as string;
    const pool = byName.get(poolName);
    if (!pool) throw new Error(`the node file has no pool "${poolName}" (needed by the benchmark)`);
    return {
      name: workspaceName(i),
      pool: pool.name,
      preset: i < hfModels ? hubModelId(i) : (PRESET_CYCLE[i % PRESET_CYCLE.length] as string),
      instanceType: pool.instanceType,
      nvme: pool.nvme !== undefined,
    };
  });
}

/**
 * The pools sized for the plan: one node per workspace (each inference pod asks for all GPUs of its node),
 * one local NVMe volume per NVMe node (one claim per workspace). Pools the plan does not use get 0 nodes.
 */
export function poolsForPlan(base: NodePool[], plan: WorkspacePlan[]): NodePool[] {
  const counts = new Map<string, number>();
  for (const w of plan) counts.set(w.pool, (counts.get(w.pool) ?? 0) + 1);
  return base.map((p) => ({
    ...p,
    count: counts.get(p.name) ?? 0,
    ...(p.nvme ? { nvme: { ...p.nvme, volumes: 1 } } : {}),
  }));
}

/** nap: the workspace's own label, which no node has until its NodeClaim's node carries it. */
export const NAP_NODE_LABEL = 'kaito-ts.bench/nap-node';

/** nap: no nodes up front (every pool at 0; the provisioner makes one node per claim). */
export function napPools(base: NodePool[]): NodePool[] {
  return base.map((p) => ({ ...p, count: 0 }));
}

/**
 * KAITO v0.8.0 YAML: no `spec` wrapper. byo: nodes selected by pool label, no instanceType (with
 * disableNodeAutoProvisioning=true it must be empty: KAITO's webhook rule; kaito-ts reports it).
 * nap and karpenter: the pool's SKU as instanceType and a label unique to the workspace and run, so no
 * existing node matches, each workspace gets its own NodeClaim (NodePool), and its pod can land only on
 * that claim's (pool's) node.
 */
export function workspaceManifest(w: WorkspacePlan, namespace: string, runId: string, mode: BenchMode = 'byo'): Workspace {
  const resource: Workspace['resource'] =
    mode !== 'byo'
      ? { instanceType: w.instanceType, labelSelector: { matchLabels: { [NAP_NODE_LABEL]: `${runId}-${w.name}` } } }
      : { labelSelector: { matchLabels: { [POOL_LABEL]: w.pool } } };
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: { name: w.name, namespace, labels: { [BENCH_LABEL]: runId } },
    resource,
    inference: { preset: { name: w.preset } },
  };
}
