// Per-workspace timeline of one run, from watch events on the run's workspaces, StatefulSets, pods and
// PersistentVolumeClaims: when each workspace reached each stage on its way to InferenceReady. Pure: the
// caller passes the event time (seconds since the first create), so tests drive it with plain numbers.
import type { V1PersistentVolumeClaim, V1Pod, V1StatefulSet } from '@kubernetes/client-node';
import type { Workspace } from '../src/api/types.js';
import { volumeKindOf } from './results.js';
import { spread, type Spread } from './spread.js';

export const TIMELINE_STAGES = ['created', 'statefulSet', 'podsCreated', 'scheduled', 'claimBound', 'podReady', 'inferenceReady'] as const;
export type TimelineStage = (typeof TIMELINE_STAGES)[number];
export const TIMELINE_STAGE_MEANING: Record<TimelineStage, string> = {
  created: 'the workspace seen by the watch',
  statefulSet: 'its StatefulSet seen (controller)',
  podsCreated: 'every pod of it exists (StatefulSet controller)',
  scheduled: 'every pod has a node (scheduler)',
  claimBound: "every pod's weights PVC Bound (NVMe only; scheduler's volume binding)",
  podReady: 'every pod Ready (kwok: model load delay)',
  inferenceReady: 'InferenceReady=True (controller status write)',
};

/** Only the stages the trackers cannot take from the convergence tracker. */
type PodStage = 'podsCreated' | 'scheduled' | 'claimBound' | 'podReady';

export interface TimelineFigures {
  /** Seconds since the first create at which workspaces reached each stage; null when none did (claimBound: no NVMe workspace). */
  stages: Record<TimelineStage, Spread | null>;
  /** Seconds from the stage before (claimBound is skipped where it does not apply) to this one. */
  steps: Record<TimelineStage, Spread | null>;
  /** Per workspace, seconds since the first create at each stage in TIMELINE_STAGES order; null: not reached or not applicable. */
  workspaces: Record<string, (number | null)[]>;
}

interface PodState {
  scheduled: boolean;
  ready: boolean;
  /** The weights PVC the pod mounts (StatefulSet claim template), if any. */
  claim?: string;
}

const WEIGHTS_VOLUME = 'model-weights-volume';

function podState(pod: V1Pod): PodState {
  const cond = (type: string): boolean => pod.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;
  const claim = pod.spec?.volumes?.find((v) => v.name === WEIGHTS_VOLUME)?.persistentVolumeClaim?.claimName;
  return { scheduled: Boolean(pod.spec?.nodeName) || cond('PodScheduled'), ready: cond('Ready'), ...(claim ? { claim } : {}) };
}

export class TimelineTracker {
  private readonly createdAt = new Map<string, number>();
  private readonly replicas = new Map<string, number>();
  private readonly nvme = new Map<string, boolean>();
  /** workspace → pod name → state */
  private readonly pods = new Map<string, Map<string, PodState>>();
  private readonly boundClaims = new Set<string>();
  /** claim name → workspace, to re-check a workspace when its claim binds after its pod was seen. */
  private readonly claimOwner = new Map<string, string>();
  private readonly reached: Record<PodStage, Map<string, number>> = {
    podsCreated: new Map(),
    scheduled: new Map(),
    claimBound: new Map(),
    podReady: new Map(),
  };

  /** `expected`: the run's workspace names; the caller watches only the run's namespace. */
  constructor(private readonly expected: ReadonlySet<string>) {}

  onWorkspace(ws: Workspace, at: number): void {
    const name = ws.metadata.name;
    if (name && this.expected.has(name) && !this.createdAt.has(name)) this.createdAt.set(name, at);
  }

  onStatefulSet(sts: V1StatefulSet, at: number): void {
    const name = sts.metadata?.name;
    if (!name || !this.expected.has(name)) return;
    this.replicas.set(name, sts.spec?.replicas ?? 1);
    this.nvme.set(name, volumeKindOf(sts) === 'nvme');
    this.check(name, at);
  }

  onPod(pod: V1Pod, at: number): void {
    const ws = pod.metadata?.ownerReferences?.find((o) => o.kind === 'StatefulSet')?.name;
    const name = pod.metadata?.name;
    if (!ws || !name || !this.expected.has(ws)) return;
    const state = podState(pod);
    const pods = this.pods.get(ws) ?? new Map<string, PodState>();
    pods.set(name, state);
    this.pods.set(ws, pods);
    if (state.claim) this.claimOwner.set(state.claim, ws);
    this.check(ws, at);
  }

  onClaim(pvc: V1PersistentVolumeClaim, at: number): void {
    const name = pvc.metadata?.name;
    if (!name || pvc.status?.phase !== 'Bound') return;
    this.boundClaims.add(name);
    const ws = this.claimOwner.get(name);
    if (ws) this.check(ws, at);
  }

  /** Marks each pod stage the workspace reaches now for the first time (all of its pods must be there). */
  private check(ws: string, at: number): void {
    const want = this.replicas.get(ws);
    const pods = [...(this.pods.get(ws)?.values() ?? [])];
    if (want === undefined || pods.length < want) return;
    const mark = (stage: PodStage, done: boolean): void => {
      if (done && !this.reached[stage].has(ws)) this.reached[stage].set(ws, at);
    };
    mark('podsCreated', true);
    mark(
      'scheduled',
      pods.every((p) => p.scheduled),
    );
    if (this.nvme.get(ws))
      mark(
        'claimBound',
        pods.every((p) => p.claim !== undefined && this.boundClaims.has(p.claim)),
      );
    mark(
      'podReady',
      pods.every((p) => p.ready),
    );
  }

  /** `statefulSetAt` / `readyAt`: the convergence tracker's first sightings per workspace. */
  figures(statefulSetAt: (ws: string) => number | undefined, readyAt: (ws: string) => number | undefined): TimelineFigures {
    const at: Record<TimelineStage, number[]> = {
      created: [],
      statefulSet: [],
      podsCreated: [],
      scheduled: [],
      claimBound: [],
      podReady: [],
      inferenceReady: [],
    };
    const steps: Record<TimelineStage, number[]> = {
      created: [],
      statefulSet: [],
      podsCreated: [],
      scheduled: [],
      claimBound: [],
      podReady: [],
      inferenceReady: [],
    };
    const workspaces: Record<string, (number | null)[]> = {};
    for (const ws of [...this.expected].sort()) {
      const ends: Record<TimelineStage, number | undefined> = {
        created: this.createdAt.get(ws),
        statefulSet: statefulSetAt(ws),
        podsCreated: this.reached.podsCreated.get(ws),
        scheduled: this.reached.scheduled.get(ws),
        claimBound: this.reached.claimBound.get(ws),
        podReady: this.reached.podReady.get(ws),
        inferenceReady: readyAt(ws),
      };
      const applies = (s: TimelineStage): boolean => s !== 'claimBound' || this.nvme.get(ws) === true;
      let from: number | undefined = 0;
      for (const stage of TIMELINE_STAGES.filter(applies)) {
        const to = ends[stage];
        if (to !== undefined) at[stage].push(to);
        // Events of one watch can be seen slightly out of order with another's: never a negative step.
        if (from !== undefined && to !== undefined) steps[stage].push(Math.max(0, to - from));
        from = to;
      }
      workspaces[ws] = TIMELINE_STAGES.map((s) => (applies(s) && ends[s] !== undefined ? Math.round(ends[s] * 100) / 100 : null));
    }
    const spreads = (v: Record<TimelineStage, number[]>): Record<TimelineStage, Spread | null> =>
      Object.fromEntries(TIMELINE_STAGES.map((s) => [s, spread(v[s])])) as Record<TimelineStage, Spread | null>;
    return { stages: spreads(at), steps: spreads(steps), workspaces };
  }
}
