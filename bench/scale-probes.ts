// Issue #20's "the first child exists within 1 s of the scale write (p99)" as a true percentile
// (`--scenario inferenceset --scale-probes K`, docs/benchmarks.md "InferenceSet: scale 0 → 20"): K cycles
// of one scale write 0 → 1, the time until the bench's watch first sees the new child Workspace, then back
// to 0 with nothing of that child left. Pure: the caller feeds the watch's children with their times (ms).
import type { Workspace } from '../src/api/types.js';
import { parentOf } from './inferenceset.js';
import { spread, type Spread } from './spread.js';

/** The issue's target for the first child, in ms. */
export const FIRST_CHILD_TARGET_MS = 1000;

/** `results[].inferenceSet.scaleProbes` of the --json document. */
export interface ScaleProbeFigures {
  /** K: the scale writes 0 → 1 sent. */
  probes: number;
  /** Scale write → the new child first seen, ms, over the K probes. */
  firstChildMs: Spread;
  /** Probes whose child came later than FIRST_CHILD_TARGET_MS. */
  overTarget: number;
  /** New children seen over all probes: K when every write 0 → 1 made exactly one. */
  childrenCreated: number;
  /** Every sample in probe order, ms (0.1 ms). */
  samplesMs: number[];
}

const tenthMs = (ms: number): number => Math.round(ms * 10) / 10;

/**
 * The set's children as the watch delivers them (times in ms on one clock), one probe at a time. A child
 * seen before is never a probe's child again: a restarted watch replays every object as ADDED.
 */
export class ScaleProbeTracker {
  private readonly seen = new Set<string>();
  private readonly samples: number[] = [];
  private probeStart: number | undefined;
  private current: number | undefined;
  private created = 0;

  constructor(readonly setName: string) {}

  /** The scale write 0 → 1 is about to be sent at `at`. */
  start(at: number): void {
    this.probeStart = at;
    this.current = undefined;
  }

  onChild(ws: Pick<Workspace, 'metadata'>, at: number): void {
    const name = ws.metadata.name;
    if (!name || parentOf(ws) !== this.setName || this.seen.has(name)) return;
    this.seen.add(name);
    if (this.probeStart === undefined) return;
    this.created++;
    if (this.current !== undefined) return;
    this.current = tenthMs(at - this.probeStart);
    this.samples.push(this.current);
  }

  /** The running probe's sample (ms), once its child was seen. */
  sample(): number | undefined {
    return this.current;
  }

  figures(): ScaleProbeFigures | undefined {
    return scaleProbeFigures(this.samples, this.created);
  }
}

export function scaleProbeFigures(samplesMs: readonly number[], childrenCreated: number): ScaleProbeFigures | undefined {
  const firstChildMs = spread(samplesMs);
  if (!firstChildMs) return undefined;
  return {
    probes: samplesMs.length,
    firstChildMs,
    overTarget: samplesMs.filter((ms) => ms > FIRST_CHILD_TARGET_MS).length,
    childrenCreated,
    samplesMs: [...samplesMs],
  };
}

const quad = (v: Spread): string => `${v.p50} / ${v.p90} / ${v.p99} / ${v.max}`;

/** One controller's probes in a line. */
export function scaleProbeLine(f: ScaleProbeFigures): string {
  return (
    `${f.probes} scale writes 0 → 1: first child p50/p90/p99/max ${quad(f.firstChildMs)} ms, ` +
    `${f.overTarget} over ${FIRST_CHILD_TARGET_MS / 1000} s, ${f.childrenCreated} children for ${f.probes} writes`
  );
}

interface DocLike {
  label?: string;
  results: { controller: string; inferenceSet?: { scaleProbes?: ScaleProbeFigures } }[];
}

/** The Markdown table of the probes, one row per controller that ran them; '' when none did. */
export function scaleProbeMarkdown(docs: DocLike[]): string {
  const rows = docs.flatMap((d) => d.results.flatMap((r) => (r.inferenceSet?.scaleProbes ? [{ d, r, f: r.inferenceSet.scaleProbes }] : [])));
  if (rows.length === 0) return '';
  const labelled = rows.some(({ d }) => d.label);
  const out = [
    `|${labelled ? ' run |' : ''} controller | scale writes 0 → 1 (K) | first child p50 / p90 / p99 / max (ms) | over ${FIRST_CHILD_TARGET_MS / 1000} s | children created |`,
    `|${labelled ? '---|' : ''}---|---|---|---|---|`,
  ];
  for (const { d, r, f } of rows)
    out.push(`|${labelled ? ` ${d.label ?? ''} |` : ''} ${r.controller} | ${f.probes} | ${quad(f.firstChildMs)} | ${f.overTarget} | ${f.childrenCreated} |`);
  return `${out.join('\n')}\n`;
}
