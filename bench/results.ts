// The result of one controller's run, the --json document, the printed table, and the volume check. Pure.
import type { V1StatefulSet } from '@kubernetes/client-node';
import type { ControllerId, VolumeKind } from './controllers.js';
import {
  compareInferenceSet,
  inferenceSetSettingsLine,
  inferenceSetSummaryLine,
  writesLine,
  type InferenceSetFigures,
  type InferenceSetScenarioOptions,
} from './inferenceset.js';
import { KARPENTER_STAGES, karpenterStageSummary, karpenterSummary, type KarpenterFigures } from './karpenter.js';
import { NAP_STAGES, type NapFigures } from './nap.js';
import { scaleProbeLine } from './scale-probes.js';
import type { TimelineFigures } from './timeline.js';
import { timelineText } from './timeline-format.js';
import { updateRunLine, updateSettingsLine, updateSummaryLine, type UpdateFigures, type UpdateScenarioOptions } from './update.js';
import type { RestartFigures } from './restart.js';

export interface ControllerResult {
  controller: ControllerId;
  /** Seconds from the first workspace create until every StatefulSet exists (null: not within the timeout). */
  allStatefulSetsSeconds: number | null;
  /** Seconds from the first workspace create until every workspace is InferenceReady=True. */
  allReadySeconds: number | null;
  peakRssMiB: number;
  cpuSeconds: number;
  requestsByVerb: Record<string, number>;
  writesPerIdleMinute: number;
  correct: boolean;
  /** Node auto-provisioning runs only. */
  nap?: NapFigures;
  /** Karpenter NodePool mode runs only. */
  karpenter?: KarpenterFigures;
  /** When each workspace reached each stage on its way to InferenceReady. */
  timeline?: TimelineFigures;
  /** --scenario update: every update of the serving workspace and their summary. */
  update?: UpdateFigures;
  /** --scenario inferenceset: the scale from 0 to N (all StatefulSets / all ready are then seconds since the scale write). */
  inferenceSet?: InferenceSetFigures;
  /** kaito-ts: the git commit of the code started (`-dirty` when tracked files differed). */
  codeCommit?: string;
  /** --hf-models: requests the fake Hugging Face endpoint answered for this controller. */
  hub?: HubFigures;
  /** --restart: the controller started again over its converged workspaces. */
  restart?: RestartFigures;
}

export interface HubFigures {
  /** Workspaces that named a Hugging Face id (one repo each). */
  models: number;
  /** From the first create until the idle window starts. */
  requestsToIdle: number;
  requestsPerIdleMinute: number;
}

export function hubSummary(h: HubFigures): string {
  return `Hugging Face endpoint: ${h.models} models, ${h.requestsToIdle} requests until idle (${(h.requestsToIdle / Math.max(1, h.models)).toFixed(1)} per model), ${h.requestsPerIdleMinute} per idle minute`;
}

/** The delays of a node auto-provisioning run, in seconds. */
export interface NapSettings {
  provisionDelaySeconds: number;
  devicePluginDelaySeconds: number;
  podReadyDelaySeconds: number;
}

/** The delays of a Karpenter-mode run, in seconds. */
export interface KarpenterSettings {
  /** The KWOKNodeClass's nodeRegistrationDelay: NodeClaim launched → Node created. */
  registrationDelaySeconds: number;
  devicePluginDelaySeconds: number;
  podReadyDelaySeconds: number;
}

export interface BenchDocument {
  n: number;
  /** Present for node auto-provisioning and Karpenter runs (bring-your-own documents have none of these). */
  mode?: 'nap' | 'karpenter';
  nap?: NapSettings;
  karpenter?: KarpenterSettings;
  /** Present for --scenario update runs (`n` is then 1: one workspace per controller) and inferenceset runs (`n`: the replicas). */
  scenario?: 'update' | 'inferenceset';
  update?: UpdateScenarioOptions;
  inferenceSet?: InferenceSetScenarioOptions;
  results: ControllerResult[];
}

/** Exactly the documented --json shape (key order included), nothing else. */
export function benchDocument(
  n: number,
  results: ControllerResult[],
  nap?: NapSettings,
  karpenter?: KarpenterSettings,
  update?: UpdateScenarioOptions,
  inferenceSet?: InferenceSetScenarioOptions,
): BenchDocument {
  return {
    n,
    ...(nap ? { mode: 'nap' as const, nap: { ...nap } } : {}),
    ...(karpenter ? { mode: 'karpenter' as const, karpenter: { ...karpenter } } : {}),
    ...(update ? { scenario: 'update' as const, update: { ...update } } : {}),
    ...(inferenceSet ? { scenario: 'inferenceset' as const, inferenceSet: { ...inferenceSet } } : {}),
    results: results.map((r) => ({
      controller: r.controller,
      allStatefulSetsSeconds: r.allStatefulSetsSeconds,
      allReadySeconds: r.allReadySeconds,
      peakRssMiB: r.peakRssMiB,
      cpuSeconds: r.cpuSeconds,
      requestsByVerb: sortedCounts(r.requestsByVerb),
      writesPerIdleMinute: r.writesPerIdleMinute,
      correct: r.correct,
      ...(r.nap ? { nap: r.nap } : {}),
      ...(r.karpenter ? { karpenter: r.karpenter } : {}),
      ...(r.timeline ? { timeline: r.timeline } : {}),
      ...(r.update ? { update: r.update } : {}),
      ...(r.inferenceSet ? { inferenceSet: r.inferenceSet } : {}),
      ...(r.codeCommit ? { codeCommit: r.codeCommit } : {}),
      ...(r.hub ? { hub: r.hub } : {}),
      ...(r.restart ? { restart: r.restart } : {}),
    })),
  };
}

/** Reads a --json file back, refusing anything that is not that shape. */
export function parseBenchDocument(text: string, source = 'bench result'): BenchDocument {
  const doc = JSON.parse(text) as Partial<BenchDocument>;
  if (!doc || !Number.isInteger(doc.n) || !Array.isArray(doc.results)) throw new Error(`${source}: expected {"n": N, "results": [...]}`);
  for (const r of doc.results) {
    if (typeof r?.controller !== 'string') throw new Error(`${source}: a result has no controller`);
  }
  return doc as BenchDocument;
}

const VERB_ORDER = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];

export function sortedCounts(byVerb: Record<string, number>): Record<string, number> {
  const rank = (v: string): number => (VERB_ORDER.includes(v) ? VERB_ORDER.indexOf(v) : VERB_ORDER.length);
  return Object.fromEntries(Object.entries(byVerb).sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b)));
}

const MODEL_WEIGHTS_VOLUME = 'model-weights-volume';

/** The model-weights volume of a StatefulSet: a claim template (local NVMe), a pod emptyDir, or none. */
export function volumeKindOf(sts: V1StatefulSet): VolumeKind {
  if (sts.spec?.volumeClaimTemplates?.some((t) => t.metadata?.name === MODEL_WEIGHTS_VOLUME)) return 'nvme';
  const v = sts.spec?.template.spec?.volumes?.find((x) => x.name === MODEL_WEIGHTS_VOLUME);
  return v?.emptyDir ? 'emptyDir' : 'none';
}

export interface VolumeCheck {
  ok: boolean;
  /** One line per workspace that is wrong (missing StatefulSet or wrong volume kind). */
  problems: string[];
  /** How many workspaces got each kind. */
  kinds: Record<string, number>;
}

export function checkVolumes(expected: Map<string, VolumeKind>, actual: Map<string, VolumeKind>): VolumeCheck {
  const problems: string[] = [];
  const kinds: Record<string, number> = {};
  for (const [name, want] of expected) {
    const got = actual.get(name);
    if (got === undefined) {
      problems.push(`${name}: no StatefulSet`);
      continue;
    }
    kinds[got] = (kinds[got] ?? 0) + 1;
    if (got !== want) problems.push(`${name}: ${got}, expected ${want}`);
  }
  return { ok: problems.length === 0, problems, kinds };
}

function fmt(v: number | null, digits = 1): string {
  return v === null ? 'timeout' : v.toFixed(digits);
}

function verbs(byVerb: Record<string, number>): string {
  return Object.entries(sortedCounts(byVerb))
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
}

/** A fixed-width text table, one row per controller. */
export function formatTable(doc: BenchDocument): string {
  const head = ['controller', 'all StatefulSets s', 'all ready s', 'peak RSS MiB', 'CPU s', 'writes/idle min', 'correct', 'requests by verb'];
  const rows = doc.results.map((r) => [
    r.controller,
    fmt(r.allStatefulSetsSeconds),
    fmt(r.allReadySeconds),
    r.peakRssMiB.toFixed(0),
    r.cpuSeconds.toFixed(1),
    String(r.writesPerIdleMinute),
    r.correct ? 'yes' : 'NO',
    verbs(r.requestsByVerb),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const title = doc.nap
    ? `N = ${doc.n}, node auto-provisioning (provision ${doc.nap.provisionDelaySeconds}s, device plugin ${doc.nap.devicePluginDelaySeconds}s, pod ready ${doc.nap.podReadyDelaySeconds}s)`
    : doc.karpenter
      ? `N = ${doc.n}, Karpenter NodePools (node registration ${doc.karpenter.registrationDelaySeconds}s, device plugin ${doc.karpenter.devicePluginDelaySeconds}s, pod ready ${doc.karpenter.podReadyDelaySeconds}s)`
      : doc.update
        ? `update scenario: ${updateSettingsLine(doc.update)} (all StatefulSets / all ready: the first create)`
        : doc.inferenceSet
          ? `inferenceset scenario: ${inferenceSetSettingsLine(doc.inferenceSet)} (all StatefulSets / all ready: seconds since the scale write)`
          : `N = ${doc.n}`;
  const napLines = doc.results.flatMap((r) => [
    ...(r.hub ? [`${r.controller}: ${hubSummary(r.hub)}`] : []),
    ...(r.nap ? [`${r.controller}: ${napSummary(r.nap)}`, `  stages p50/p90/max s: ${stageSummary(r.nap)}`] : []),
    ...(r.karpenter ? [`${r.controller}: ${karpenterSummary(r.karpenter)}`, `  stages p50/p90/max s: ${karpenterStageSummary(r.karpenter)}`] : []),
    ...(r.update ? [`${r.controller}: ${updateSummaryLine(r.update.summary)}`, ...r.update.runs.map((x) => `  ${updateRunLine(x)}`)] : []),
    ...(r.inferenceSet
      ? [
          `${r.controller}: ${inferenceSetSummaryLine(r.inferenceSet)}`,
          ...(r.inferenceSet.writes ? [`  writes scale → Ready: ${writesLine(r.inferenceSet.writes.toReadyByResource)}`] : []),
          ...(r.inferenceSet.scaleProbes ? [`  ${scaleProbeLine(r.inferenceSet.scaleProbes)}`] : []),
        ]
      : []),
  ]);
  if (doc.inferenceSet) {
    const cmp = compareInferenceSet(doc);
    for (const v of cmp.verdicts)
      napLines.push(
        `${v.controller}: all Ready ${v.allReadySeconds ?? '-'}s, floor ${v.floorSeconds ?? '-'}s (load + own writes / QPS), ${v.overFloor ?? '-'}× the floor`,
      );
    if (cmp.ratioKaitoToKaitoTs !== null) napLines.push(`KAITO v0.12.0 / kaito-ts, all Ready: ${cmp.ratioKaitoToKaitoTs}×`);
  }
  const timelines = doc.results.flatMap((r) => (r.timeline ? [timelineText(r.controller, r.timeline)] : []));
  return [title, line(head), ...rows.map(line), ...napLines].join('\n') + '\n' + timelines.join('');
}

/** Claims per workspace and what the controller left behind, e.g. "50 NodeClaims (1–1 per workspace), 50 nodes; left 0 claims, 0 nodes". */
export function napSummary(f: NapFigures): string {
  const per = f.claimsPerWorkspace;
  const left = f.leftAfterCleanup ? `left ${f.leftAfterCleanup.nodeClaims} claims, ${f.leftAfterCleanup.nodes} nodes` : 'left: not measured';
  const sent = f.createRequests
    ? ` (create requests by status: ${
        Object.entries(f.createRequests)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ') || 'none'
      })`
    : '';
  return `${f.nodeClaimsCreated} NodeClaims (${per.min === per.max ? per.min : `${per.min}–${per.max}`} per workspace)${sent}, ${f.nodesCreated} nodes; ${left}`;
}

export function stageSummary(f: NapFigures): string {
  return NAP_STAGES.map((s) => {
    const v = f.stages[s];
    return `${s} ${v ? `${v.p50}/${v.p90}/${v.max}` : '-'}`;
  }).join(', ');
}

/** The same results as a Markdown table (docs/benchmarks.md); a document's label gets its own column, NAP runs two more. */
export function markdownTable(docs: (BenchDocument & { label?: string })[]): string {
  const labelled = docs.some((d) => d.label);
  const nap = docs.some((d) => d.results.some((r) => r.nap));
  const karp = docs.some((d) => d.results.some((r) => r.karpenter));
  const out = [
    `|${labelled ? ' limits |' : ''} N | controller | all StatefulSets (s) | all ready (s) | peak RSS (MiB) | CPU (s) | writes / idle min | correct |${nap ? ' NodeClaims / workspace | left after cleanup (claims, nodes) |' : ''}${karp ? ' NodePools / workspace (replicas) | NodeClaims, nodes | left after cleanup (pools, claims, nodes) |' : ''} requests by verb |`,
    `|${labelled ? '---|' : ''}---|---|---|---|---|---|---|---|${nap ? '---|---|' : ''}${karp ? '---|---|---|' : ''}---|`,
  ];
  for (const d of sortedDocs(docs)) {
    for (const r of d.results) {
      const napCells = nap
        ? ` ${r.nap ? perWorkspace(r.nap) : ''} | ${r.nap?.leftAfterCleanup ? `${r.nap.leftAfterCleanup.nodeClaims}, ${r.nap.leftAfterCleanup.nodes}` : ''} |`
        : '';
      const k = r.karpenter;
      const karpCells = karp
        ? k
          ? ` ${range(k.nodePoolsPerWorkspace)} (${range(k.replicas)}) | ${k.nodeClaimsCreated}, ${k.nodesCreated} | ${k.leftAfterCleanup ? `${k.leftAfterCleanup.nodePools}, ${k.leftAfterCleanup.nodeClaims}, ${k.leftAfterCleanup.nodes}` : ''} |`
          : ' | | |'
        : '';
      out.push(
        `|${labelled ? ` ${d.label ?? ''} |` : ''} ${d.n} | ${r.controller} | ${fmt(r.allStatefulSetsSeconds)} | ${fmt(r.allReadySeconds)} | ${r.peakRssMiB.toFixed(0)} | ${r.cpuSeconds.toFixed(1)} | ${r.writesPerIdleMinute} | ${r.correct ? 'yes' : 'no'} |${napCells}${karpCells} ${verbs(r.requestsByVerb)} |`,
      );
    }
  }
  return out.join('\n') + '\n';
}

/** Cost as work grows: peak RSS and CPU per run, and both per 100 workspaces of the run, sorted by N. */
export function costTable(docs: (BenchDocument & { label?: string })[]): string {
  const labelled = docs.some((d) => d.label);
  const per100 = (v: number, n: number): string => (n > 0 ? ((v / n) * 100).toFixed(1) : '-');
  const out = [
    `|${labelled ? ' run |' : ''} N | controller | peak RSS (MiB) | peak RSS per 100 workspaces (MiB) | CPU (s) | CPU per 100 workspaces (s) |`,
    `|${labelled ? '---|' : ''}---|---|---|---|---|---|`,
  ];
  for (const d of [...docs].sort((a, b) => a.n - b.n || (a.label ?? '').localeCompare(b.label ?? '')))
    for (const r of d.results)
      out.push(
        `|${labelled ? ` ${d.label ?? ''} |` : ''} ${d.n} | ${r.controller} | ${r.peakRssMiB.toFixed(1)} | ${per100(r.peakRssMiB, d.n)} | ${r.cpuSeconds.toFixed(1)} | ${per100(r.cpuSeconds, d.n)} |`,
      );
  return out.join('\n') + '\n';
}

function sortedDocs<T extends BenchDocument & { label?: string }>(docs: T[]): T[] {
  return [...docs].sort((a, b) => (a.label ?? '').localeCompare(b.label ?? '', undefined, { numeric: true }) || a.n - b.n);
}

const range = (p: { min: number; max: number }): string => (p.min === p.max ? String(p.min) : `${p.min}–${p.max}`);

/** "1" when every workspace got one claim, else "mean (min–max)". */
function perWorkspace(f: NapFigures): string {
  const p = f.claimsPerWorkspace;
  return p.min === p.max ? String(p.min) : `${p.mean} (${p.min}–${p.max})`;
}

/** Per-stage p50 / p90 / max seconds of NAP runs as a Markdown table; empty when no run has them. */
export function napStageTable(docs: (BenchDocument & { label?: string })[]): string {
  const rows = sortedDocs(docs).flatMap((d) => d.results.filter((r) => r.nap).map((r) => ({ d, r, f: r.nap as NapFigures })));
  if (rows.length === 0) return '';
  const labelled = docs.some((d) => d.label);
  const out = [
    `|${labelled ? ' run |' : ''} N | controller | ${NAP_STAGES.join(' | ')} |`,
    `|${labelled ? '---|' : ''}---|---|${NAP_STAGES.map(() => '---|').join('')}`,
  ];
  for (const { d, r, f } of rows) {
    out.push(
      `|${labelled ? ` ${d.label ?? ''} |` : ''} ${d.n} | ${r.controller} | ${NAP_STAGES.map((s) => {
        const v = f.stages[s];
        return v ? `${v.p50} / ${v.p90} / ${v.max}` : '-';
      }).join(' | ')} |`,
    );
  }
  return out.join('\n') + '\n';
}

/** Per-stage p50 / p90 / max seconds of Karpenter-mode runs as a Markdown table; empty when no run has them. */
export function karpenterStageTable(docs: (BenchDocument & { label?: string })[]): string {
  const rows = sortedDocs(docs).flatMap((d) => d.results.filter((r) => r.karpenter).map((r) => ({ d, r, f: r.karpenter as KarpenterFigures })));
  if (rows.length === 0) return '';
  const labelled = docs.some((d) => d.label);
  const out = [
    `|${labelled ? ' run |' : ''} N | controller | ${KARPENTER_STAGES.join(' | ')} |`,
    `|${labelled ? '---|' : ''}---|---|${KARPENTER_STAGES.map(() => '---|').join('')}`,
  ];
  for (const { d, r, f } of rows) {
    out.push(
      `|${labelled ? ` ${d.label ?? ''} |` : ''} ${d.n} | ${r.controller} | ${KARPENTER_STAGES.map((s) => {
        const v = f.stages[s];
        return v ? `${v.p50} / ${v.p90} / ${v.max}` : '-';
      }).join(' | ')} |`,
    );
  }
  return out.join('\n') + '\n';
}
