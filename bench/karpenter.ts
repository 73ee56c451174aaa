// Karpenter NodePool mode figures of one run, from watch events on the run's NodePools, NodeClaims and
// Nodes: how many NodePools each workspace got and with which replicas, how many claims and nodes
// Karpenter made for them, and how long each stage of a workspace took. Pools, claims and nodes all carry
// the NodePool's `karpenter.kaito.sh/workspace-{name,namespace}` labels (the pool's own labels and its
// template's, which Karpenter copies to claims and nodes). Creates are counted by distinct name, so a
// replayed ADDED event is no second create. Pure: the caller passes event times.
import type { V1Node } from '@kubernetes/client-node';
import { LABEL_KARPENTER_WORKSPACE_NAME, LABEL_KARPENTER_WORKSPACE_NAMESPACE, RESOURCE_NVIDIA_GPU } from '../src/api/labels.js';
import { isReady } from '../src/runtime/conditions.js';
import { spread, type Spread } from './spread.js';

/** A workspace's way to Ready, each stage from the end of the one before (the first from the first create). */
export const KARPENTER_STAGES = ['nodePool', 'nodeClaim', 'claimReady', 'nodeGpu', 'statefulSet', 'inferenceReady'] as const;
export type KarpenterStage = (typeof KARPENTER_STAGES)[number];
export const KARPENTER_STAGE_MEANING: Record<KarpenterStage, string> = {
  nodePool: 'first create → its NodePool (controller)',
  nodeClaim: 'NodePool → its first NodeClaim (Karpenter static provisioning)',
  claimReady: 'first NodeClaim → every claim of the pool Ready (Karpenter launch, registration delay, node Ready, initialization)',
  nodeGpu: 'claims Ready → every node Ready with nvidia.com/gpu (device plugin)',
  statefulSet: 'nodes usable → StatefulSet (controller)',
  inferenceReady: 'StatefulSet → InferenceReady (scheduling, model load, status)',
};

/** The watch selector of one run's NodePools, NodeClaims and Nodes. */
export function karpenterRunSelector(namespace: string): string {
  return `${LABEL_KARPENTER_WORKSPACE_NAMESPACE}=${namespace}`;
}

export interface PerWorkspace {
  min: number;
  max: number;
  mean: number;
}

export interface KarpenterFigures {
  /** Distinct NodePools seen for the run's workspaces. */
  nodePoolsCreated: number;
  nodePoolsPerWorkspace: PerWorkspace;
  /** spec.replicas of each workspace's NodePool as last seen. */
  replicas: PerWorkspace;
  /** Workspaces whose NodePool was seen with more than one spec.replicas value. */
  replicasChanged: number;
  /** Distinct NodeClaims and nodes Karpenter made for the run's pools. */
  nodeClaimsCreated: number;
  nodesCreated: number;
  /** NodePool requests the controller sent, `verb status` → count, as the counting proxy saw them (a cross-check). */
  nodePoolRequests?: Record<string, number>;
  /** Seconds per stage over the workspaces that completed it; null when none did. */
  stages: Record<KarpenterStage, Spread | null>;
  /** NodePools, NodeClaims and nodes of the run still there once the controller had deleted every workspace. */
  leftAfterCleanup?: { nodePools: number; nodeClaims: number; nodes: number };
}

/** Requests for one resource (`group/plural`) by `verb status`, from the proxy's `verb group/resource status` counts. */
export function resourceRequests(byVerbAndResource: Record<string, number>, resource: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, n] of Object.entries(byVerbAndResource)) {
    const [verb, res, status] = key.split(' ');
    if (res === resource && verb && status) out[`${verb} ${status}`] = (out[`${verb} ${status}`] ?? 0) + n;
  }
  return out;
}

interface Labelled {
  metadata?: { name?: string; labels?: Record<string, string> };
}
interface PoolLike extends Labelled {
  spec?: { replicas?: number };
}
interface ClaimLike extends Labelled {
  status?: { conditions?: { type: string; status: string }[] };
}

function perWorkspace(counts: number[]): PerWorkspace {
  if (counts.length === 0) return { min: 0, max: 0, mean: 0 };
  const total = counts.reduce((a, b) => a + b, 0);
  return { min: Math.min(...counts), max: Math.max(...counts), mean: Math.round((total / counts.length) * 100) / 100 };
}

export class KarpenterTracker {
  private readonly pools = new Map<string, Set<string>>();
  private readonly replicas = new Map<string, number[]>();
  private readonly claims = new Map<string, Set<string>>();
  private readonly readyClaims = new Map<string, Set<string>>();
  private readonly nodes = new Map<string, Set<string>>();
  private readonly usableNodes = new Map<string, Set<string>>();
  private readonly at = {
    nodePool: new Map<string, number>(),
    nodeClaim: new Map<string, number>(),
    claimReady: new Map<string, number>(),
    nodeGpu: new Map<string, number>(),
  };

  /** `expected`: the run's workspace names; the caller watches only the run's objects (karpenterRunSelector). */
  constructor(private readonly expected: ReadonlySet<string>) {}

  private workspace(o: Labelled): string | undefined {
    const ws = o.metadata?.labels?.[LABEL_KARPENTER_WORKSPACE_NAME];
    return ws && this.expected.has(ws) ? ws : undefined;
  }

  private static add(map: Map<string, Set<string>>, ws: string, name: string): Set<string> {
    const set = map.get(ws) ?? new Set<string>();
    set.add(name);
    map.set(ws, set);
    return set;
  }

  /** How many nodes the workspace's pool asks for (1 until its pool is seen). */
  private target(ws: string): number {
    const seen = this.replicas.get(ws);
    return Math.max(1, seen?.[seen.length - 1] ?? 1);
  }

  private checkCounts(ws: string, at: number): void {
    if (!this.at.claimReady.has(ws) && (this.readyClaims.get(ws)?.size ?? 0) >= this.target(ws)) this.at.claimReady.set(ws, at);
    if (!this.at.nodeGpu.has(ws) && (this.usableNodes.get(ws)?.size ?? 0) >= this.target(ws)) this.at.nodeGpu.set(ws, at);
  }

  onNodePool(pool: PoolLike, at: number): void {
    const ws = this.workspace(pool);
    if (!ws) return;
    KarpenterTracker.add(this.pools, ws, pool.metadata?.name ?? '');
    if (!this.at.nodePool.has(ws)) this.at.nodePool.set(ws, at);
    const r = pool.spec?.replicas;
    if (typeof r === 'number') {
      const seen = this.replicas.get(ws) ?? [];
      if (seen[seen.length - 1] !== r) seen.push(r);
      this.replicas.set(ws, seen);
    }
    this.checkCounts(ws, at);
  }

  onClaim(claim: ClaimLike, at: number): void {
    const ws = this.workspace(claim);
    if (!ws) return;
    const name = claim.metadata?.name ?? '';
    KarpenterTracker.add(this.claims, ws, name);
    if (!this.at.nodeClaim.has(ws)) this.at.nodeClaim.set(ws, at);
    if (claim.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) KarpenterTracker.add(this.readyClaims, ws, name);
    this.checkCounts(ws, at);
  }

  /** A node counts as usable as the controllers check it: Ready with GPU capacity. */
  onNode(node: V1Node, at: number): void {
    const ws = this.workspace(node);
    if (!ws) return;
    const name = node.metadata?.name ?? '';
    KarpenterTracker.add(this.nodes, ws, name);
    const gpus = Number(node.status?.capacity?.[RESOURCE_NVIDIA_GPU] ?? 0) || 0;
    if (gpus > 0 && isReady(node)) KarpenterTracker.add(this.usableNodes, ws, name);
    this.checkCounts(ws, at);
  }

  /** `statefulSetAt` / `readyAt`: the convergence tracker's first sightings per workspace. */
  figures(statefulSetAt: (ws: string) => number | undefined, readyAt: (ws: string) => number | undefined): KarpenterFigures {
    const durations = Object.fromEntries(KARPENTER_STAGES.map((s) => [s, [] as number[]])) as Record<KarpenterStage, number[]>;
    for (const ws of this.expected) {
      const ends = [this.at.nodePool.get(ws), this.at.nodeClaim.get(ws), this.at.claimReady.get(ws), this.at.nodeGpu.get(ws), statefulSetAt(ws), readyAt(ws)];
      let from: number | undefined = 0;
      KARPENTER_STAGES.forEach((stage, i) => {
        const to = ends[i];
        // Events of one watch can be seen slightly out of order with another's: never a negative stage.
        if (from !== undefined && to !== undefined) durations[stage].push(Math.max(0, to - from));
        from = to;
      });
    }
    const sizes = (m: Map<string, Set<string>>): number[] => [...this.expected].map((ws) => m.get(ws)?.size ?? 0);
    const total = (m: Map<string, Set<string>>): number => sizes(m).reduce((a, b) => a + b, 0);
    const lastReplicas = [...this.expected].flatMap((ws) => {
      const seen = this.replicas.get(ws);
      return seen && seen.length > 0 ? [seen[seen.length - 1] as number] : [];
    });
    return {
      nodePoolsCreated: total(this.pools),
      nodePoolsPerWorkspace: perWorkspace(sizes(this.pools)),
      replicas: perWorkspace(lastReplicas),
      replicasChanged: [...this.replicas.values()].filter((seen) => seen.length > 1).length,
      nodeClaimsCreated: total(this.claims),
      nodesCreated: total(this.nodes),
      stages: Object.fromEntries(KARPENTER_STAGES.map((s) => [s, spread(durations[s])])) as Record<KarpenterStage, Spread | null>,
    };
  }
}

/** e.g. "5 NodePools (1 per workspace, replicas 1, never changed), 5 NodeClaims, 5 nodes; left 0 pools, 0 claims, 0 nodes". */
export function karpenterSummary(f: KarpenterFigures): string {
  const range = (p: PerWorkspace): string => (p.min === p.max ? String(p.min) : `${p.min}–${p.max}`);
  const left = f.leftAfterCleanup
    ? `left ${f.leftAfterCleanup.nodePools} pools, ${f.leftAfterCleanup.nodeClaims} claims, ${f.leftAfterCleanup.nodes} nodes`
    : 'left: not measured';
  const sent = f.nodePoolRequests
    ? ` (NodePool requests: ${
        Object.entries(f.nodePoolRequests)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([k, v]) => `${k} × ${v}`)
          .join(', ') || 'none'
      })`
    : '';
  return (
    `${f.nodePoolsCreated} NodePools (${range(f.nodePoolsPerWorkspace)} per workspace, replicas ${range(f.replicas)}, ` +
    `${f.replicasChanged === 0 ? 'never changed' : `changed on ${f.replicasChanged}`})${sent}, ${f.nodeClaimsCreated} NodeClaims, ${f.nodesCreated} nodes; ${left}`
  );
}

export function karpenterStageSummary(f: KarpenterFigures): string {
  return KARPENTER_STAGES.map((s) => {
    const v = f.stages[s];
    return `${s} ${v ? `${v.p50}/${v.p90}/${v.max}` : '-'}`;
  }).join(', ');
}
