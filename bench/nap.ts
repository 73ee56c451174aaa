// Node auto-provisioning figures of one run, from watch events on the run's NodeClaims and Nodes: how
// many claims each workspace got (creates counted by distinct claim name, so a replayed ADDED event is
// no second create) and how long each stage of a workspace took. Pure: the caller passes event times.
import type { V1Node } from '@kubernetes/client-node';
import { LABEL_WORKSPACE_NAME, RESOURCE_NVIDIA_GPU } from '../src/api/labels.js';
import type { NodeClaim } from '../src/builders/nodeclaim.js';
import { claimIsReady } from '../src/controllers/workspace/provisioning-plan.js';
import { isReady } from '../src/runtime/conditions.js';
import { spread, type Spread } from './spread.js';

/** A workspace's way to Ready, each stage from the end of the one before (the first from the first create). */
export const NAP_STAGES = ['claim', 'claimReady', 'nodeGpu', 'statefulSet', 'inferenceReady'] as const;
export type NapStage = (typeof NAP_STAGES)[number];
export const NAP_STAGE_MEANING: Record<NapStage, string> = {
  claim: 'first create → its first NodeClaim (controller)',
  claimReady: 'NodeClaim → claim Ready (provisioner launch)',
  nodeGpu: 'claim Ready → node Ready with nvidia.com/gpu (device plugin)',
  statefulSet: 'node usable → StatefulSet (controller)',
  inferenceReady: 'StatefulSet → InferenceReady (scheduling, model load, status)',
};

export interface NapFigures {
  /** Distinct NodeClaims seen for the run's workspaces. */
  nodeClaimsCreated: number;
  claimsPerWorkspace: { min: number; max: number; mean: number };
  /** Distinct nodes seen carrying a workspace's claim labels. */
  nodesCreated: number;
  /** NodeClaim create requests the controller sent, by HTTP status, as the counting proxy saw them (a cross-check). */
  createRequests?: Record<string, number>;
  /** Seconds per stage over the workspaces that completed it; null when none did. */
  stages: Record<NapStage, Spread | null>;
  /** NodeClaims and nodes of the run still there once the controller had deleted every workspace. */
  leftAfterCleanup?: { nodeClaims: number; nodes: number };
}

/** NodeClaim creates by status code, from the proxy's `verb group/resource status` counts. */
export function nodeClaimCreates(byVerbAndResource: Record<string, number>): Record<string, number> {
  const prefix = 'create karpenter.sh/nodeclaims ';
  return Object.fromEntries(
    Object.entries(byVerbAndResource)
      .filter(([k]) => k.startsWith(prefix))
      .map(([k, v]) => [k.slice(prefix.length), v]),
  );
}

const workspaceOf = (labels: Record<string, string> | undefined): string | undefined => labels?.[LABEL_WORKSPACE_NAME];

export class NapTracker {
  private readonly claims = new Map<string, Set<string>>();
  private readonly nodes = new Set<string>();
  private readonly firstClaimAt = new Map<string, number>();
  private readonly claimReadyAt = new Map<string, number>();
  private readonly nodeGpuAt = new Map<string, number>();

  /** `expected`: the run's workspace names; the caller watches only the run's namespace. */
  constructor(private readonly expected: ReadonlySet<string>) {}

  onClaim(claim: NodeClaim, at: number): void {
    const ws = workspaceOf(claim.metadata?.labels);
    if (!ws || !this.expected.has(ws)) return;
    const names = this.claims.get(ws) ?? new Set<string>();
    names.add(claim.metadata.name);
    this.claims.set(ws, names);
    if (!this.firstClaimAt.has(ws)) this.firstClaimAt.set(ws, at);
    if (claimIsReady(claim) && !this.claimReadyAt.has(ws)) this.claimReadyAt.set(ws, at);
  }

  /** A node counts as usable as the controllers check it: Ready with GPU capacity. */
  onNode(node: V1Node, at: number): void {
    const ws = workspaceOf(node.metadata?.labels);
    if (!ws || !this.expected.has(ws)) return;
    this.nodes.add(node.metadata?.name ?? '');
    const gpus = Number(node.status?.capacity?.[RESOURCE_NVIDIA_GPU] ?? 0) || 0;
    if (gpus > 0 && isReady(node) && !this.nodeGpuAt.has(ws)) this.nodeGpuAt.set(ws, at);
  }

  /** `statefulSetAt` / `readyAt`: the convergence tracker's first sightings per workspace. */
  figures(statefulSetAt: (ws: string) => number | undefined, readyAt: (ws: string) => number | undefined): NapFigures {
    const counts = [...this.expected].map((ws) => this.claims.get(ws)?.size ?? 0);
    const durations: Record<NapStage, number[]> = { claim: [], claimReady: [], nodeGpu: [], statefulSet: [], inferenceReady: [] };
    for (const ws of this.expected) {
      const ends = [this.firstClaimAt.get(ws), this.claimReadyAt.get(ws), this.nodeGpuAt.get(ws), statefulSetAt(ws), readyAt(ws)];
      let from: number | undefined = 0;
      NAP_STAGES.forEach((stage, i) => {
        const to = ends[i];
        // Events of one watch can be seen slightly out of order with another's: never a negative stage.
        if (from !== undefined && to !== undefined) durations[stage].push(Math.max(0, to - from));
        from = to;
      });
    }
    const total = counts.reduce((a, b) => a + b, 0);
    return {
      nodeClaimsCreated: total,
      claimsPerWorkspace: {
        min: counts.length ? Math.min(...counts) : 0,
        max: counts.length ? Math.max(...counts) : 0,
        mean: counts.length ? Math.round((total / counts.length) * 100) / 100 : 0,
      },
      nodesCreated: this.nodes.size,
      stages: Object.fromEntries(NAP_STAGES.map((s) => [s, spread(durations[s])])) as Record<NapStage, Spread | null>,
    };
  }
}
