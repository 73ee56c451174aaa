// The update scenario's figures (`npm run bench -- --scenario update`, docs/benchmarks.md "Updates: time
// without a serving endpoint"): one serving single-replica workspace per controller has its pod template
// changed (an adapter added, then removed, …) and the run measures, from watch events and the main
// Service's EndpointSlice timeline, how long nothing served and how long the whole update took. Pure: the
// caller feeds objects with their arrival times (Date.now() milliseconds) and reads the figures back.
import type { V1Pod, V1StatefulSet } from '@kubernetes/client-node';
import { CONDITION_UPDATING, LABEL_SURGE } from '../src/api/labels.js';
import type { Workspace } from '../src/api/types.js';
import type { UpdateStrategy } from '../src/api/update-strategy.js';
import { findCondition } from '../src/api/workspace-conditions.js';
import { UpdateReason } from '../src/controllers/workspace/update-plan.js';
import { isPodReady } from '../src/controllers/workspace/pod-problems.js';
import { gapsWithin, type ReadySample } from '../src/simcluster/availability.js';
import type { NodePool } from '../src/simcluster/nodes.js';
import { workspaceName, type WorkspacePlan } from './plan.js';

/** What `--scenario update` was asked for (the --json document's `update`). */
export interface UpdateScenarioOptions {
  /** The model-load simulation: a pod whose weights claim holds no loaded weights (or an emptyDir) loads this long. */
  coldLoadSeconds: number;
  /** A pod restarted on weights claims that held loaded weights. */
  warmLoadSeconds: number;
  /** A second matching node the surge can use. */
  spareNode: boolean;
  /** Updates per controller (kaito-ts), and per KAITO controller (each one costs a whole cold load). */
  repeat: number;
  kaitoRepeat: number;
  /** kaito-ts's `kaito-ts.io/update-strategy` annotation on the workspace; unset: the operator's default. */
  strategy?: UpdateStrategy;
}

export const UPDATE_PRESET = 'phi-4-mini-instruct';
/** An NVMe SKU (Standard_NC24ads_A100_v4): kaito-ts's primary restarts warm on its own weights claim. */
export const UPDATE_POOL = 'a100';
export const UPDATE_ADAPTER = { source: { name: 'support-bot', image: 'example.com/adapters/support-bot:1' } };
/** After an update is done, the window stays open this long so that a late drop still counts. */
export const UPDATE_SETTLE_MS = 5_000;

/** The workspace of the scenario, the same for every controller. */
export function updatePlan(pools: readonly NodePool[]): WorkspacePlan {
  const pool = pools.find((p) => p.name === UPDATE_POOL);
  if (!pool) throw new Error(`the node file has no pool "${UPDATE_POOL}" (needed by --scenario update)`);
  return { name: workspaceName(0), pool: pool.name, preset: UPDATE_PRESET, instanceType: pool.instanceType, nvme: pool.nvme !== undefined };
}

/** The bed: the workspace's node and, unless `spareNode` is false, a second one of the same pool; nothing else. */
export function updatePools(base: readonly NodePool[], spareNode: boolean): NodePool[] {
  return base.map((p) => ({ ...p, count: p.name === UPDATE_POOL ? (spareNode ? 2 : 1) : 0 }));
}

/** Run `run` (1-based): odd runs add the adapter, even runs remove it again. The merge patch of the workspace. */
export function adapterChange(run: number): { change: 'add adapter' | 'remove adapter'; patch: { inference: { adapters: unknown } } } {
  return run % 2 === 1
    ? { change: 'add adapter', patch: { inference: { adapters: [UPDATE_ADAPTER] } } }
    : { change: 'remove adapter', patch: { inference: { adapters: null } } };
}

const REVISION_LABEL = 'controller-revision-hash';

export interface PodReadyEvent {
  pod: string;
  uid: string;
  revision?: string;
  atMs: number;
}

export interface ReasonEvent {
  status: string;
  reason: string;
  atMs: number;
}

interface PrimaryState {
  generation: number;
  observedGeneration: number;
  replicas: number;
  readyReplicas: number;
  updatedReplicas: number;
  currentRevision?: string;
  updateRevision?: string;
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** kaito-ts's surge pod of workspace `ws`: `<ws>-s<hash5>-0`. */
export function isSurgePod(ws: string, pod: string): boolean {
  return new RegExp(`^${escape(ws)}-s[0-9a-f]{5}-0$`).test(pod);
}

/**
 * The state of one workspace's objects as the watches deliver them, and the events of the current run
 * (from `begin`). `reportsUpdating`: the controller writes kaito-ts's Updating condition (KAITO does not).
 */
export class UpdateTracker {
  private primary: PrimaryState | undefined;
  private readonly surgeSets = new Set<string>();
  private readonly pods = new Map<string, { uid: string; ready: boolean; revision?: string }>();
  private readonly readyUids = new Set<string>();
  private updating: { status: string; reason: string; lastTransitionMs: number } | undefined;
  private startMs: number | undefined;
  private baseRevision: string | undefined;
  private sawActive = false;
  private readyEvents: PodReadyEvent[] = [];
  private reasonEvents: ReasonEvent[] = [];

  constructor(
    readonly workspace: string,
    private readonly reportsUpdating: boolean,
  ) {}

  private get primaryPod(): string {
    return `${this.workspace}-0`;
  }

  onWorkspace(ws: Workspace, atMs: number): void {
    if (ws.metadata.name !== this.workspace) return;
    const c = findCondition(ws.status?.conditions, CONDITION_UPDATING);
    if (!c) return;
    const before = this.updating;
    this.updating = { status: c.status, reason: c.reason ?? '', lastTransitionMs: Date.parse(c.lastTransitionTime ?? '') || 0 };
    if (before?.status === c.status && before.reason === this.updating.reason) return;
    if (this.startMs === undefined) return;
    this.reasonEvents.push({ status: c.status, reason: this.updating.reason, atMs });
    if (c.status === 'True' || this.updating.reason !== UpdateReason.CutoverComplete) this.sawActive = true;
  }

  onStatefulSet(type: string, sts: V1StatefulSet): void {
    const name = sts.metadata?.name ?? '';
    const gone = type === 'DELETED';
    if (sts.metadata?.labels?.[LABEL_SURGE] !== undefined) {
      if (gone) this.surgeSets.delete(name);
      else this.surgeSets.add(name);
      return;
    }
    if (name !== this.workspace) return;
    if (gone) {
      this.primary = undefined;
      return;
    }
    const s = sts.status;
    this.primary = {
      generation: sts.metadata?.generation ?? 0,
      observedGeneration: s?.observedGeneration ?? 0,
      replicas: sts.spec?.replicas ?? 1,
      readyReplicas: s?.readyReplicas ?? 0,
      updatedReplicas: s?.updatedReplicas ?? 0,
      ...(s?.currentRevision ? { currentRevision: s.currentRevision } : {}),
      ...(s?.updateRevision ? { updateRevision: s.updateRevision } : {}),
    };
  }

  onPod(type: string, pod: V1Pod, atMs: number): void {
    const name = pod.metadata?.name ?? '';
    const uid = pod.metadata?.uid ?? '';
    if (type === 'DELETED') {
      if (this.pods.get(name)?.uid === uid) this.pods.delete(name);
      return;
    }
    const ready = isPodReady(pod);
    const revision = pod.metadata?.labels?.[REVISION_LABEL];
    this.pods.set(name, { uid, ready, ...(revision ? { revision } : {}) });
    if (!ready || this.readyUids.has(uid)) return;
    this.readyUids.add(uid);
    if (this.startMs !== undefined) this.readyEvents.push({ pod: name, uid, ...(revision ? { revision } : {}), atMs });
  }

  /** The spec write of a run is about to be sent at `startMs`: the run's events start here. */
  begin(startMs: number): void {
    this.startMs = startMs;
    this.baseRevision = this.primary?.updateRevision;
    this.sawActive = false;
    this.readyEvents = [];
    this.reasonEvents = [];
  }

  /** Pods that turned Ready since `begin`, and kaito-ts's Updating reasons (repeats folded). */
  events(): { podsReady: PodReadyEvent[]; reasons: ReasonEvent[] } {
    return { podsReady: this.readyEvents.map((e) => ({ ...e })), reasons: this.reasonEvents.map((e) => ({ ...e })) };
  }

  private rolledOut(): string | undefined {
    const p = this.primary;
    if (!p) return `no StatefulSet ${this.workspace}`;
    if (p.observedGeneration < p.generation) return `StatefulSet generation ${p.generation} not observed yet`;
    if (!p.updateRevision || p.currentRevision !== p.updateRevision)
      return `StatefulSet rolling out (${p.currentRevision ?? '?'} → ${p.updateRevision ?? '?'})`;
    if (p.updatedReplicas < p.replicas || p.readyReplicas < p.replicas)
      return `StatefulSet ${p.readyReplicas}/${p.replicas} ready, ${p.updatedReplicas} updated`;
    const pod = this.pods.get(this.primaryPod);
    if (!pod?.ready) return `pod ${this.primaryPod} not Ready`;
    if (pod.revision !== p.updateRevision) return `pod ${this.primaryPod} at revision ${pod.revision ?? '?'}, not ${p.updateRevision}`;
    return undefined;
  }

  private servesAlone(serving: readonly string[]): string | undefined {
    return serving.length === 1 && serving[0] === this.primaryPod ? undefined : `serving: ${serving.join(', ') || 'nothing'}`;
  }

  /** Why the workspace is not at rest (serving from `<ws>-0` alone, rolled out, no surge, no update under way); undefined when it is. */
  steady(serving: readonly string[]): string | undefined {
    if (this.surgeSets.size > 0) return `surge StatefulSet ${[...this.surgeSets].join(', ')} still there`;
    if (this.reportsUpdating && this.updating?.status === 'True') return `Updating is ${this.updating.reason}`;
    return this.rolledOut() ?? this.servesAlone(serving);
  }

  /**
   * Why the run's update is not done yet; undefined once the new template serves from `<ws>-0` and
   * nothing else is left: the primary at a new revision, rolled out, its pod Ready at that revision and
   * the only one serving, no surge StatefulSet, and (kaito-ts) Updating back at CutoverComplete after
   * this run's write.
   */
  missing(serving: readonly string[]): string | undefined {
    if (this.startMs === undefined) return 'no update begun';
    if (this.reportsUpdating) {
      const u = this.updating;
      // The transition time has whole seconds; a condition that changed within this run's second counts.
      const sinceStart = !!u && u.lastTransitionMs >= Math.floor(this.startMs / 1000) * 1000;
      if (!u || u.reason !== UpdateReason.CutoverComplete || u.status !== 'False' || !(this.sawActive || sinceStart))
        return `Updating ${u ? `${u.status} ${u.reason}` : 'not reported'}`;
    }
    if (!this.primary?.updateRevision || this.primary.updateRevision === this.baseRevision) return 'StatefulSet has no new revision yet';
    if (this.surgeSets.size > 0) return `surge StatefulSet ${[...this.surgeSets].join(', ')} still there`;
    return this.rolledOut() ?? this.servesAlone(serving);
  }
}

export interface UpdateGap {
  /** Seconds after the spec write. */
  fromSeconds: number;
  ms: number;
  /** Still open when the window closed. */
  open?: true;
}

/** One update, as the --json document keeps it. */
export interface UpdateRun {
  run: number;
  change: string;
  /** Sum of the gaps (no serving endpoint) from the spec write to the end of the window (done + UPDATE_SETTLE_MS). */
  unavailableMs: number;
  gaps: UpdateGap[];
  /** Spec write → the new template serves from `<ws>-0` alone and nothing else is left; null: not within the timeout. */
  totalSeconds: number | null;
  /** kaito-ts: surge pod Ready → the EndpointSlice lists it serving; null: no surge served. */
  cutoverMs?: number | null;
  /** The new `<ws>-0` Ready → the EndpointSlice lists it serving; null: not seen. */
  primaryServingMs: number | null;
  /** kaito-ts: `surge` when a surge pod served, else `restart in place`. */
  path?: 'surge' | 'restart in place';
  /** The serving pods from the write to the end of the window, each change of the set: `a+b` for two, `none` for a gap. */
  servedBy: string[];
  /** kaito-ts: the Updating reasons after the write, seconds after it. */
  steps?: { reason: string; atSeconds: number }[];
}

export interface UpdateObservation {
  run: number;
  change: string;
  workspace: string;
  /** kaito-ts (reports Updating, may surge) or a KAITO release. */
  surges: boolean;
  startMs: number;
  /** When the update was first seen done; undefined: timed out. */
  doneAtMs?: number;
  /** The end of the window the gaps are counted in. */
  endMs: number;
  samples: readonly ReadySample[];
  podsReady: readonly PodReadyEvent[];
  reasons: readonly ReasonEvent[];
}

const seconds = (ms: number): number => Math.round(ms / 100) / 10;
/** Two watches (pods, EndpointSlices) may deliver a pair slightly out of order: that latency counts as 0. */
const latency = (fromMs: number | undefined, toMs: number | undefined): number | null =>
  fromMs === undefined || toMs === undefined ? null : Math.max(0, Math.round(toMs - fromMs));

/** The figures of one update from what was observed. */
export function measureUpdate(o: UpdateObservation): UpdateRun {
  const inWindow = o.samples.filter((s) => s.atMs > o.startMs && s.atMs <= o.endMs);
  const gaps = gapsWithin(o.samples, o.startMs, o.endMs);
  const atStart = o.samples.filter((s) => s.atMs <= o.startMs).at(-1);
  const sets = [atStart?.pods ?? [], ...inWindow.map((s) => s.pods)].map((pods) => (pods.length > 0 ? pods.join('+') : 'none'));
  const servedBy = sets.filter((x, i) => i === 0 || x !== sets[i - 1]);
  const primary = `${o.workspace}-0`;
  const until = o.doneAtMs ?? o.endMs;
  // The new primary: the last pod <ws>-0 that turned Ready before the update was done; it serves from the
  // last sample (up to then) where <ws>-0 came back after one without it.
  const newPrimary = o.podsReady.filter((e) => e.pod === primary && e.atMs <= until).at(-1);
  let back: number | undefined;
  let had = atStart?.pods.includes(primary) ?? false;
  for (const s of inWindow.filter((x) => x.atMs <= until)) {
    const has = s.pods.includes(primary);
    if (has && !had) back = s.atMs;
    had = has;
  }
  const run: UpdateRun = {
    run: o.run,
    change: o.change,
    unavailableMs: Math.round(gaps.reduce((sum, g) => sum + g.ms, 0)),
    gaps: gaps.map((g) => ({ fromSeconds: seconds(g.fromMs - o.startMs), ms: Math.round(g.ms), ...(g.toMs === undefined ? { open: true as const } : {}) })),
    totalSeconds: o.doneAtMs === undefined ? null : seconds(o.doneAtMs - o.startMs),
    primaryServingMs: latency(newPrimary?.atMs, back),
    servedBy,
  };
  if (!o.surges) return run;
  const surgePod = inWindow.flatMap((x) => x.pods).find((p) => isSurgePod(o.workspace, p));
  const surgeReady = surgePod ? o.podsReady.find((e) => e.pod === surgePod) : undefined;
  const surgeServing = surgePod ? inWindow.find((s) => s.pods.includes(surgePod))?.atMs : undefined;
  return {
    ...run,
    cutoverMs: latency(surgeReady?.atMs, surgeServing),
    path: surgePod ? 'surge' : 'restart in place',
    steps: o.reasons.map((r) => ({ reason: r.reason, atSeconds: seconds(r.atMs - o.startMs) })),
  };
}

export interface MinMedianMax {
  min: number;
  median: number;
  max: number;
}

function minMedianMax(values: readonly number[]): MinMedianMax | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  const median = s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
  const r = (v: number): number => Math.round(v * 10) / 10;
  return { min: r(s[0] as number), median: r(median), max: r(s[s.length - 1] as number) };
}

export interface UpdateSummary {
  runs: number;
  /** Runs that were done within the timeout. */
  completed: number;
  zeroGapRuns: number;
  unavailableMs: MinMedianMax | null;
  gapCount: MinMedianMax | null;
  /** Over the completed runs. */
  totalSeconds: MinMedianMax | null;
  /** kaito-ts: over the runs in which a surge served. */
  cutoverMs?: MinMedianMax | null;
  primaryServingMs: MinMedianMax | null;
}

export interface UpdateFigures {
  runs: UpdateRun[];
  summary: UpdateSummary;
}

const present = <T>(v: T | null | undefined): v is T => v !== null && v !== undefined;

export function summarizeUpdates(runs: readonly UpdateRun[]): UpdateSummary {
  const surges = runs.some((r) => r.path !== undefined);
  return {
    runs: runs.length,
    completed: runs.filter((r) => r.totalSeconds !== null).length,
    zeroGapRuns: runs.filter((r) => r.gaps.length === 0).length,
    unavailableMs: minMedianMax(runs.map((r) => r.unavailableMs)),
    gapCount: minMedianMax(runs.map((r) => r.gaps.length)),
    totalSeconds: minMedianMax(runs.map((r) => r.totalSeconds).filter(present)),
    ...(surges ? { cutoverMs: minMedianMax(runs.map((r) => r.cutoverMs).filter(present)) } : {}),
    primaryServingMs: minMedianMax(runs.map((r) => r.primaryServingMs).filter(present)),
  };
}

export function updateFigures(runs: UpdateRun[]): UpdateFigures {
  return { runs, summary: summarizeUpdates(runs) };
}

const triple = (m: MinMedianMax | null | undefined): string => (m ? `${m.min} / ${m.median} / ${m.max}` : '-');

/** The scenario in a line: "phi-4-mini-instruct on a100, cold 120 s, warm 20 s, a spare node, 5 updates (KAITO 2)". */
export function updateSettingsLine(u: UpdateScenarioOptions): string {
  const repeats = u.kaitoRepeat === u.repeat ? `${u.repeat}` : `${u.repeat} (KAITO ${u.kaitoRepeat})`;
  return (
    `${UPDATE_PRESET} on ${UPDATE_POOL}, cold load ${u.coldLoadSeconds}s, warm load ${u.warmLoadSeconds}s, ` +
    `${u.spareNode ? 'a spare node' : 'no spare node'}, ${repeats} update(s) per controller${u.strategy ? `, kaito-ts strategy ${u.strategy}` : ''}`
  );
}

/** The summary line of one controller: "5 of 5 runs with zero gap; unavailable ms min/median/max 0 / 0 / 0; …". */
export function updateSummaryLine(s: UpdateSummary): string {
  return (
    `runs with zero gap: ${s.zeroGapRuns} of ${s.runs}` +
    (s.completed < s.runs ? ` (${s.runs - s.completed} not done within the timeout)` : '') +
    `; unavailable ms min/median/max ${triple(s.unavailableMs)} (gaps ${triple(s.gapCount)})` +
    `; total update s ${triple(s.totalSeconds)}` +
    (s.cutoverMs !== undefined ? `; cut-over ms ${triple(s.cutoverMs)}` : '') +
    `; new <ws>-0 Ready → serving ms ${triple(s.primaryServingMs)}`
  );
}

/** One line per run for the log and the printed table. */
export function updateRunLine(r: UpdateRun): string {
  const gaps = r.gaps.map((g) => `${g.ms} ms at ${g.fromSeconds}s${g.open ? ' (open)' : ''}`).join(', ');
  return (
    `run ${r.run} (${r.change}): unavailable ${r.unavailableMs} ms in ${r.gaps.length} gap(s)${gaps ? ` [${gaps}]` : ''}` +
    `, total ${r.totalSeconds === null ? 'timeout' : `${r.totalSeconds}s`}` +
    (r.path ? `, ${r.path}` : '') +
    (r.cutoverMs !== undefined ? `, cut-over ${r.cutoverMs === null ? '-' : `${r.cutoverMs} ms`}` : '') +
    `, served by ${r.servedBy.join(' → ') || 'nothing'}` +
    (r.steps && r.steps.length > 0 ? `; Updating ${r.steps.map((s) => `${s.reason} ${s.atSeconds}s`).join(' → ')}` : '')
  );
}

/** The Markdown tables of update runs: one row per controller, then one per run. */
export function updateMarkdown(docs: { label?: string; update?: UpdateScenarioOptions; results: { controller: string; update?: UpdateFigures }[] }[]): string {
  const withUpdates = docs.filter((d) => d.update && d.results.some((r) => r.update));
  if (withUpdates.length === 0) return '';
  const labelled = withUpdates.some((d) => d.label);
  const l = (d: { label?: string }): string => (labelled ? ` ${d.label ?? ''} |` : '');
  const out = [
    `|${labelled ? ' run |' : ''} controller | spare node | cold / warm (s) | runs with zero gap | unavailable (ms) min / median / max | gaps | total update (s) min / median / max | cut-over (ms) min / median / max | new pod Ready → serving (ms) |`,
    `|${labelled ? '---|' : ''}---|---|---|---|---|---|---|---|---|`,
  ];
  const runs = [
    `|${labelled ? ' run |' : ''} controller | # | change | unavailable (ms) | gaps | total (s) | path | cut-over (ms) | served by |`,
    `|${labelled ? '---|' : ''}---|---|---|---|---|---|---|---|---|`,
  ];
  for (const d of withUpdates) {
    const u = d.update as UpdateScenarioOptions;
    for (const r of d.results) {
      const f = r.update;
      if (!f) continue;
      const s = f.summary;
      out.push(
        `|${l(d)} ${r.controller} | ${u.spareNode ? 'yes' : 'no'} | ${u.coldLoadSeconds} / ${u.warmLoadSeconds} | ${s.zeroGapRuns} of ${s.runs} | ${triple(s.unavailableMs)} | ${triple(s.gapCount)} | ${triple(s.totalSeconds)} | ${triple(s.cutoverMs)} | ${triple(s.primaryServingMs)} |`,
      );
      for (const x of f.runs) {
        runs.push(
          `|${l(d)} ${r.controller} | ${x.run} | ${x.change} | ${x.unavailableMs} | ${x.gaps.length} | ${x.totalSeconds ?? 'timeout'} | ${x.path ?? 'rolling update'} | ${x.cutoverMs ?? '-'} | ${x.servedBy.join(' → ')} |`,
        );
      }
    }
  }
  return `${out.join('\n')}\n\n${runs.join('\n')}\n`;
}
