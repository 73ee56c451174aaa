// The InferenceSet scenario's figures (`npm run bench -- --scenario inferenceset`, docs/benchmarks.md
// "InferenceSet: scale 0 → 20"): one InferenceSet per controller, created with replicas 0 on N matching
// bring-your-own GPU nodes, then one write of the scale subresource to N (as `kubectl scale` does). The run
// measures, from watch events, when each child Workspace appeared and turned InferenceReady, when the set's
// status.readyReplicas reached N, and which writes the controller sent meanwhile. Pure: the caller feeds
// objects with their times (seconds since the scale write) and the proxy's counts.
import type { InferenceSet } from '../src/api/inferenceset-types.js';
import { ANNOTATION_DISABLE_BENCHMARK, LABEL_INFERENCESET_CREATED_BY } from '../src/api/labels.js';
import { API_VERSION, type Workspace } from '../src/api/types.js';
import { POOL_LABEL, type NodePool } from '../src/simcluster/nodes.js';
import { isInferenceReady } from './convergence.js';
import { BENCH_LABEL, type WorkspacePlan } from './plan.js';
import type { ScaleProbeFigures } from './scale-probes.js';
import { spread, type Spread } from './spread.js';
import { isWriteVerb } from './verbs.js';

/** What `--scenario inferenceset` was asked for (the --json document's `inferenceSet`). */
export interface InferenceSetScenarioOptions {
  /** The one scale write goes from 0 to this. */
  replicas: number;
  /** The pod-ready delay (kwok): the model load of every child's pod. */
  podReadyDelaySeconds: number;
  /** The client QPS every controller ran with (the floor's write rate). */
  qps: number;
  /** --scale-probes K: scale writes 0 → 1 per controller after the measurement (absent: none). */
  scaleProbes?: number;
}

export const INFERENCESET_NAME = 'bench-set';
export const INFERENCESET_PRESET = 'phi-4-mini-instruct';
/** An NVMe SKU (Standard_NC24ads_A100_v4), one node per child: each child's pod takes its node's GPU. */
export const INFERENCESET_POOL = 'a100';
export const DEFAULT_INFERENCESET_REPLICAS = 20;
/** The issue's figure: a 30 s model load. */
export const DEFAULT_INFERENCESET_LOAD_S = 30;

/** The bed: `replicas` nodes of the A100 pool, one local NVMe volume each; no other node. */
export function inferenceSetPools(base: readonly NodePool[], replicas: number): NodePool[] {
  if (!base.some((p) => p.name === INFERENCESET_POOL)) throw new Error(`the node file has no pool "${INFERENCESET_POOL}" (needed by --scenario inferenceset)`);
  return base.map((p) =>
    p.name === INFERENCESET_POOL ? { ...p, count: replicas, ...(p.nvme ? { nvme: { ...p.nvme, volumes: 1 } } : {}) } : { ...p, count: 0 },
  );
}

/**
 * KAITO v0.12.0's shape (v1beta1, as in its examples): replicas 0, the children's nodes by the pool label,
 * no instanceType (bring-your-own), a preset. The benchmark is switched off with KAITO's own annotation:
 * kwok pods have no logs, so KAITO's post-load benchmark would fail and keep its children from
 * `succeeded` (kaito-ts copies the annotation to the children as KAITO does, and runs no benchmark).
 */
export function inferenceSetManifest(namespace: string, runId: string): InferenceSet {
  return {
    apiVersion: API_VERSION,
    kind: 'InferenceSet',
    metadata: { name: INFERENCESET_NAME, namespace, labels: { [BENCH_LABEL]: runId }, annotations: { [ANNOTATION_DISABLE_BENCHMARK]: 'true' } },
    spec: {
      replicas: 0,
      labelSelector: { matchLabels: { [POOL_LABEL]: INFERENCESET_POOL } },
      template: { inference: { preset: { name: INFERENCESET_PRESET } } },
    },
  };
}

/** The merge patch of the scale subresource that `kubectl scale --replicas=N` sends. */
export function scalePatch(replicas: number): { spec: { replicas: number } } {
  return { spec: { replicas } };
}

/** A child of the set, as the volume check knows workspaces. */
export function childPlan(name: string, pool: NodePool): WorkspacePlan {
  return { name, pool: pool.name, preset: INFERENCESET_PRESET, instanceType: pool.instanceType, nvme: pool.nvme !== undefined };
}

/** The set a Workspace is a child of (KAITO's label), or undefined. */
export function parentOf(ws: Pick<Workspace, 'metadata'>): string | undefined {
  return ws.metadata.labels?.[LABEL_INFERENCESET_CREATED_BY];
}

export interface InferenceSetWrites {
  /** From the controller's start to the scale write: taking the set at 0 in (finalizer, revision, status). */
  beforeScale: number;
  /** From the scale write until `replicas` Ready. */
  toReady: number;
  /** The writes of `toReady` by `verb group/resource` (status codes summed). */
  toReadyByResource: Record<string, number>;
  /** Writes of `toReady` the API server refused (4xx/5xx: conflicts, say), by `verb group/resource status`. */
  refused: Record<string, number>;
}

export interface InferenceSetFigures {
  replicas: number;
  /** Scale write → the first child seen (to 10 ms); null: none. */
  firstChildSeconds: number | null;
  /** Distinct children seen after the scale write (more than `replicas`: duplicates). */
  childrenCreated: number;
  /** Scale write → each child first seen. */
  childCreated: Spread | null;
  /** Scale write → each child first seen InferenceReady=True. */
  childInferenceReady: Spread | null;
  /** Scale write → status.readyReplicas first seen at `replicas`. */
  readyReplicasSeconds: number | null;
  /** Scale write → `replicas` children InferenceReady=True. */
  allChildrenReadySeconds: number | null;
  writes?: InferenceSetWrites;
  /** --scale-probes: the first child after each of K scale writes 0 → 1. */
  scaleProbes?: ScaleProbeFigures;
}

const round1 = (v: number | undefined): number | null => (v === undefined ? null : Math.round(v * 10) / 10);

/**
 * The set and its children as the watches deliver them. Events before `begin` (the scale write) count for
 * nothing but the state; children seen then would be there before the scale and are reported as such.
 */
export class InferenceSetTracker {
  private readonly created = new Map<string, number>();
  private readonly ready = new Map<string, number>();
  private readyReplicasAt: number | undefined;
  private accepted = false;
  private started = false;
  private waiters: (() => void)[] = [];

  constructor(
    readonly name: string,
    readonly replicas: number,
  ) {}

  /** The scale write is about to be sent: times from here on are seconds since it. */
  begin(): void {
    this.started = true;
  }

  onInferenceSet(is: Pick<InferenceSet, 'metadata' | 'status'>, at: number): void {
    if (is.metadata.name !== this.name) return;
    // Taken in at 0: the controller has written its status (KAITO and kaito-ts both set InferenceSetReady).
    if (is.status?.conditions?.some((c) => c.type === 'InferenceSetReady')) this.accepted = true;
    if (this.started && this.readyReplicasAt === undefined && (is.status?.readyReplicas ?? 0) >= this.replicas) {
      this.readyReplicasAt = at;
      this.wake();
    }
  }

  onChild(ws: Pick<Workspace, 'metadata' | 'status'>, at: number): void {
    const name = ws.metadata.name;
    if (!name || parentOf(ws) !== this.name) return;
    if (!this.created.has(name)) this.created.set(name, this.started ? at : 0);
    if (this.started && !this.ready.has(name) && isInferenceReady(ws)) {
      this.ready.set(name, at);
      this.wake();
    }
  }

  /** The controller has written the set's status at least once (before the scale write: the set at 0 taken in). */
  hasAccepted(): boolean {
    return this.accepted;
  }

  /** Every child seen so far, by name. */
  children(): string[] {
    return [...this.created.keys()].sort();
  }

  done(): boolean {
    return this.readyReplicasAt !== undefined && this.ready.size >= this.replicas;
  }

  /** When both held: readyReplicas at `replicas` and `replicas` children InferenceReady. */
  doneAt(): number | undefined {
    if (!this.done()) return undefined;
    return Math.max(this.readyReplicasAt ?? 0, this.allChildrenReadyAt() ?? 0);
  }

  private allChildrenReadyAt(): number | undefined {
    if (this.ready.size < this.replicas) return undefined;
    return [...this.ready.values()].sort((a, b) => a - b)[this.replicas - 1];
  }

  whenDone(): Promise<void> {
    if (this.done()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private wake(): void {
    if (!this.done()) return;
    for (const w of this.waiters) w();
    this.waiters = [];
  }

  progress(): { children: number; ready: number; readyReplicas: boolean } {
    return { children: this.created.size, ready: this.ready.size, readyReplicas: this.readyReplicasAt !== undefined };
  }

  figures(writes?: InferenceSetWrites): InferenceSetFigures {
    const created = [...this.created.values()];
    return {
      replicas: this.replicas,
      firstChildSeconds: created.length > 0 ? Math.round(Math.min(...created) * 100) / 100 : null,
      childrenCreated: created.length,
      childCreated: spread(created),
      childInferenceReady: spread([...this.ready.values()]),
      readyReplicasSeconds: round1(this.readyReplicasAt),
      allChildrenReadySeconds: round1(this.allChildrenReadyAt()),
      ...(writes ? { writes } : {}),
    };
  }
}

/** The writes between two readings of the proxy's `verb group/resource status` counts. */
export function windowWrites(before: Record<string, number>, after: Record<string, number>): Omit<InferenceSetWrites, 'beforeScale'> {
  const byResource: Record<string, number> = {};
  const refused: Record<string, number> = {};
  let total = 0;
  for (const [key, n] of Object.entries(after)) {
    const d = n - (before[key] ?? 0);
    const [verb, resource, status] = key.split(' ');
    if (d <= 0 || !verb || !resource || !isWriteVerb(verb)) continue;
    total += d;
    byResource[`${verb} ${resource}`] = (byResource[`${verb} ${resource}`] ?? 0) + d;
    if (!/^[23]\d\d$/.test(status ?? '')) refused[key] = d;
  }
  const sorted = (m: Record<string, number>) => Object.fromEntries(Object.entries(m).sort(([a, x], [b, y]) => y - x || a.localeCompare(b)));
  return { toReady: total, toReadyByResource: sorted(byResource), refused: sorted(refused) };
}

/** Writes of all verbs in a proxy reading (`verb group/resource status` → count). */
export function writesIn(byVerbAndResource: Record<string, number>): number {
  return Object.entries(byVerbAndResource).reduce((sum, [key, n]) => sum + (isWriteVerb(key.split(' ')[0] ?? '') ? n : 0), 0);
}

/**
 * The issue's floor: the model load plus the time the controller's own writes take at its client QPS
 * (writes from the scale write to all Ready, over the QPS; the burst is not subtracted).
 */
export function floorSeconds(loadSeconds: number, writes: number, qps: number): number {
  return Math.round((loadSeconds + writes / qps) * 10) / 10;
}

interface DocLike {
  label?: string;
  inferenceSet?: InferenceSetScenarioOptions;
  results: { controller: string; allReadySeconds: number | null; inferenceSet?: InferenceSetFigures }[];
}

export interface InferenceSetVerdict {
  controller: string;
  allReadySeconds: number | null;
  floorSeconds: number | null;
  /** allReady / floor. */
  overFloor: number | null;
}

export interface InferenceSetComparison {
  verdicts: InferenceSetVerdict[];
  /** KAITO's all-ready over kaito-ts's, when both ran. */
  ratioKaitoToKaitoTs: number | null;
}

const ratio = (a: number | null | undefined, b: number | null | undefined): number | null =>
  a === null || a === undefined || b === null || b === undefined || b === 0 ? null : Math.round((a / b) * 100) / 100;

/** Each controller against its own floor, and KAITO v0.12.0 against kaito-ts. */
export function compareInferenceSet(doc: DocLike): InferenceSetComparison {
  const load = doc.inferenceSet?.podReadyDelaySeconds ?? 0;
  const qps = doc.inferenceSet?.qps ?? 30;
  const verdicts = doc.results
    .filter((r) => r.inferenceSet)
    .map((r) => {
      const writes = r.inferenceSet?.writes?.toReady;
      const floor = writes === undefined ? null : floorSeconds(load, writes, qps);
      return { controller: r.controller, allReadySeconds: r.allReadySeconds, floorSeconds: floor, overFloor: ratio(r.allReadySeconds, floor) };
    });
  const ours = doc.results.find((r) => r.controller === 'kaito-ts')?.allReadySeconds;
  const kaito = doc.results.find((r) => r.controller === 'kaito-v0.12.0')?.allReadySeconds;
  return { verdicts, ratioKaitoToKaitoTs: ratio(kaito, ours) };
}

const s = (v: number | null | undefined): string => (v === null || v === undefined ? '-' : `${v}`);
const triple = (v: Spread | null): string => (v ? `${v.p50} / ${v.p99} / ${v.max}` : '-');

/** The scenario in a line. */
export function inferenceSetSettingsLine(o: InferenceSetScenarioOptions): string {
  return `InferenceSet ${INFERENCESET_PRESET} on ${o.replicas} × ${INFERENCESET_POOL} (bring-your-own), scale 0 → ${o.replicas}, model load ${o.podReadyDelaySeconds}s, client QPS ${o.qps}${o.scaleProbes ? `, then ${o.scaleProbes} scale writes 0 → 1` : ''}`;
}

/** One controller's figures in a line. */
export function inferenceSetSummaryLine(f: InferenceSetFigures): string {
  const w = f.writes;
  return (
    `first child ${s(f.firstChildSeconds)}s; ${f.childrenCreated} children, created p50/p99/max ${triple(f.childCreated)}s, ` +
    `InferenceReady p50/p99/max ${triple(f.childInferenceReady)}s; readyReplicas = ${f.replicas} at ${s(f.readyReplicasSeconds)}s, ` +
    `all ${f.replicas} children InferenceReady at ${s(f.allChildrenReadySeconds)}s` +
    (w ? `; writes ${w.beforeScale} before the scale write, ${w.toReady} from it to all Ready` : '')
  );
}

/** "create apps/statefulsets 20, patch kaito.sh/workspaces/status 60, …" */
export function writesLine(byResource: Record<string, number>): string {
  return (
    Object.entries(byResource)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ') || 'none'
  );
}

/** The Markdown tables of InferenceSet runs: one row per controller, then the writes by resource. */
export function inferenceSetMarkdown(docs: DocLike[]): string {
  const runs = docs.filter((d) => d.inferenceSet && d.results.some((r) => r.inferenceSet));
  if (runs.length === 0) return '';
  const labelled = runs.some((d) => d.label);
  const l = (d: DocLike): string => (labelled ? ` ${d.label ?? ''} |` : '');
  const out = [
    `|${labelled ? ' run |' : ''} controller | replicas | load (s) | first child (s) | child created p50 / p99 / max (s) | child InferenceReady p50 / p99 / max (s) | readyReplicas = N (s) | all N InferenceReady (s) | writes before scale | writes scale → Ready | floor (s) | over floor |`,
    `|${labelled ? '---|' : ''}---|---|---|---|---|---|---|---|---|---|---|---|`,
  ];
  const writes = [`|${labelled ? ' run |' : ''} controller | writes scale → Ready by resource | refused |`, `|${labelled ? '---|' : ''}---|---|---|`];
  const ratios: string[] = [];
  for (const d of runs) {
    const o = d.inferenceSet as InferenceSetScenarioOptions;
    const cmp = compareInferenceSet(d);
    for (const r of d.results) {
      const f = r.inferenceSet;
      if (!f) continue;
      const v = cmp.verdicts.find((x) => x.controller === r.controller);
      out.push(
        `|${l(d)} ${r.controller} | ${f.replicas} | ${o.podReadyDelaySeconds} | ${s(f.firstChildSeconds)} | ${triple(f.childCreated)} | ${triple(f.childInferenceReady)} | ${s(f.readyReplicasSeconds)} | ${s(f.allChildrenReadySeconds)} | ${s(f.writes?.beforeScale)} | ${s(f.writes?.toReady)} | ${s(v?.floorSeconds)} | ${v?.overFloor === null || v?.overFloor === undefined ? '-' : `${v.overFloor}×`} |`,
      );
      if (f.writes) writes.push(`|${l(d)} ${r.controller} | ${writesLine(f.writes.toReadyByResource)} | ${writesLine(f.writes.refused)} |`);
    }
    if (cmp.ratioKaitoToKaitoTs !== null) ratios.push(`${d.label ? `${d.label}: ` : ''}KAITO v0.12.0 / kaito-ts, all Ready: ${cmp.ratioKaitoToKaitoTs}×`);
  }
  return `${out.join('\n')}\n\n${writes.join('\n')}\n${ratios.length > 0 ? `\n${ratios.join('\n')}\n` : ''}`;
}
