// The result of one controller's run, the --json document, the printed table, and the volume check. Pure.
import type { V1StatefulSet } from '@kubernetes/client-node';
import type { ControllerId, VolumeKind } from './controllers.js';

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
}

export interface BenchDocument {
  n: number;
  results: ControllerResult[];
}

/** Exactly the documented --json shape (key order included), nothing else. */
export function benchDocument(n: number, results: ControllerResult[]): BenchDocument {
  return {
    n,
    results: results.map((r) => ({
      controller: r.controller,
      allStatefulSetsSeconds: r.allStatefulSetsSeconds,
      allReadySeconds: r.allReadySeconds,
      peakRssMiB: r.peakRssMiB,
      cpuSeconds: r.cpuSeconds,
      requestsByVerb: sortedCounts(r.requestsByVerb),
      writesPerIdleMinute: r.writesPerIdleMinute,
      correct: r.correct,
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
    cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ').trimEnd();
  return [`N = ${doc.n}`, line(head), ...rows.map(line)].join('\n') + '\n';
}

/** The same results as a Markdown table (docs/benchmarks.md); a document's label gets its own column. */
export function markdownTable(docs: (BenchDocument & { label?: string })[]): string {
  const labelled = docs.some((d) => d.label);
  const out = [
    `|${labelled ? ' limits |' : ''} N | controller | all StatefulSets (s) | all ready (s) | peak RSS (MiB) | CPU (s) | writes / idle min | correct | requests by verb |`,
    `|${labelled ? '---|' : ''}---|---|---|---|---|---|---|---|---|`,
  ];
  for (const d of [...docs].sort((a, b) => (a.label ?? '').localeCompare(b.label ?? '', undefined, { numeric: true }) || a.n - b.n)) {
    for (const r of d.results) {
      out.push(`|${labelled ? ` ${d.label ?? ''} |` : ''} ${d.n} | ${r.controller} | ${fmt(r.allStatefulSetsSeconds)} | ${fmt(r.allReadySeconds)} | ${r.peakRssMiB.toFixed(0)} | ${r.cpuSeconds.toFixed(1)} | ${r.writesPerIdleMinute} | ${r.correct ? 'yes' : 'no'} | ${verbs(r.requestsByVerb)} |`);
    }
  }
  return out.join('\n') + '\n';
}
