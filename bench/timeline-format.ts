// The timeline's percentiles as text (bench output) and Markdown (report.js). Pure.
import type { BenchDocument, ControllerResult } from './results.js';
import type { Spread } from './spread.js';
import { TIMELINE_STAGES, TIMELINE_STAGE_MEANING, type TimelineFigures, type TimelineStage } from './timeline.js';

function cell(v: Spread | null, stage: TimelineStage): string {
  if (v) return `${v.p50} / ${v.p90} / ${v.p99} / ${v.max}`;
  return stage === 'claimBound' ? 'n/a' : '-';
}

/** One controller's stages: seconds since the first create, and the step from the stage before, p50 / p90 / p99 / max. */
export function timelineText(controller: string, t: TimelineFigures): string {
  const head = ['stage', 'at s since first create', 'step s from stage before', 'meaning'];
  const rows = TIMELINE_STAGES.map((s) => [s, cell(t.stages[s], s), cell(t.steps[s], s), TIMELINE_STAGE_MEANING[s]]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string => `  ${cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ')}`;
  return [`${controller} timeline (p50 / p90 / p99 / max):`, line(head), ...rows.map(line)].join('\n') + '\n';
}

/** Every timeline of the documents as Markdown, one row per run, controller and stage; empty when none has one. */
export function timelineMarkdown(docs: (BenchDocument & { label?: string })[]): string {
  const runs = docs.flatMap((d) =>
    d.results.filter((r): r is ControllerResult & { timeline: TimelineFigures } => r.timeline !== undefined).map((r) => ({ d, r })),
  );
  if (runs.length === 0) return '';
  const out = ['| run | controller | stage | at (s) p50 / p90 / p99 / max | step (s) p50 / p90 / p99 / max |', '|---|---|---|---|---|'];
  for (const { d, r } of runs) {
    for (const s of TIMELINE_STAGES)
      out.push(`| ${d.label ?? `N = ${d.n}`} | ${r.controller} | ${s} | ${cell(r.timeline.stages[s], s)} | ${cell(r.timeline.steps[s], s)} |`);
  }
  return out.join('\n') + '\n';
}
