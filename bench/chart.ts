// SVG line charts against N, one line per controller: time to all ready, and what a controller costs
// (peak RSS, CPU per 100 workspaces). Pure: documents in, SVG text out.
import type { BenchDocument } from './results.js';

export interface Series {
  controller: string;
  /** [n, seconds] sorted by n; runs that timed out are left out. */
  points: [number, number][];
}

/** A run document, optionally labelled (the label is appended to the controller's name in the legend). */
export type LabelledDocument = BenchDocument & { label?: string };

/** One series per controller (and label): `pick` of each run; runs where it is null are left out. */
export function seriesOf(docs: LabelledDocument[], pick: (r: BenchDocument['results'][number], n: number) => number | null): Series[] {
  const by = new Map<string, [number, number][]>();
  for (const d of docs) {
    for (const r of d.results) {
      const key = d.label ? `${r.controller} (${d.label})` : r.controller;
      const pts = by.get(key) ?? [];
      const v = pick(r, d.n);
      if (v !== null) pts.push([d.n, v]);
      by.set(key, pts);
    }
  }
  return [...by].map(([controller, points]) => ({ controller, points: points.sort((a, b) => a[0] - b[0]) }));
}

export function readySeries(docs: LabelledDocument[]): Series[] {
  return seriesOf(docs, (r) => r.allReadySeconds);
}

/** A "nice" upper bound for an axis (1, 2 or 5 × 10^k at or above max). */
export function niceCeiling(max: number): number {
  if (max <= 0) return 1;
  const mag = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 5, 10]) if (m * mag >= max) return m * mag;
  return 10 * mag;
}

export const COLORS = ['#0072b2', '#d55e00', '#009e73', '#cc79a7'];

export function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function readyChartSvg(docs: LabelledDocument[], title = 'Time until every workspace is InferenceReady'): string {
  return svgDocument(640, 400, [lineChart(readySeries(docs), { title, yLabel: 'seconds to all ready', unit: 's', width: 640, height: 400 })]);
}

/** What a controller costs as N grows: peak RSS, and CPU seconds per 100 workspaces, side by side. */
export function costChartSvg(docs: LabelledDocument[]): string {
  const rss = seriesOf(docs, (r) => (r.peakRssMiB > 0 ? r.peakRssMiB : null));
  const cpu = seriesOf(docs, (r, n) => (r.cpuSeconds > 0 && n > 0 ? Math.round((r.cpuSeconds / n) * 1000) / 10 : null));
  const size = { width: 480, height: 400 };
  return svgDocument(960, 400, [
    lineChart(rss, { title: 'Peak RSS (MiB)', yLabel: 'MiB', unit: ' MiB', ...size }),
    `<g transform="translate(480 0)">\n${lineChart(cpu, { title: 'CPU seconds per 100 workspaces', yLabel: 'CPU s / 100 workspaces', unit: ' CPU s', ...size })}\n</g>`,
  ]);
}

function svgDocument(width: number, height: number, parts: string[]): string {
  return (
    [
      `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
      `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
      ...parts,
      '</svg>',
    ].join('\n') + '\n'
  );
}

/** The SVG elements of one line chart against N, at the origin. */
function lineChart(series: Series[], o: { title: string; yLabel: string; unit: string; width: number; height: number }): string {
  const W = o.width;
  const H = o.height;
  const m = { left: 64, right: 24, top: 40, bottom: 56 };
  const pw = W - m.left - m.right;
  const ph = H - m.top - m.bottom;
  const allPts = series.flatMap((s) => s.points);
  const xMax = niceCeiling(Math.max(1, ...allPts.map((p) => p[0])));
  const yMax = niceCeiling(Math.max(1, ...allPts.map((p) => p[1])));
  const x = (n: number): number => m.left + (n / xMax) * pw;
  const y = (s: number): number => m.top + ph - (s / yMax) * ph;
  const f = (v: number): string => v.toFixed(1);
  const out: string[] = [`<text x="${W / 2}" y="22" text-anchor="middle" font-size="15">${esc(o.title)}</text>`];
  for (let i = 0; i <= 5; i++) {
    const yv = (yMax * i) / 5;
    const xv = (xMax * i) / 5;
    out.push(`<line x1="${m.left}" x2="${m.left + pw}" y1="${f(y(yv))}" y2="${f(y(yv))}" stroke="#e0e0e0"/>`);
    out.push(`<text x="${m.left - 8}" y="${f(y(yv) + 4)}" text-anchor="end">${+yv.toFixed(2)}</text>`);
    out.push(`<text x="${f(x(xv))}" y="${m.top + ph + 18}" text-anchor="middle">${+xv.toFixed(2)}</text>`);
  }
  out.push(`<line x1="${m.left}" x2="${m.left}" y1="${m.top}" y2="${m.top + ph}" stroke="#333"/>`);
  out.push(`<line x1="${m.left}" x2="${m.left + pw}" y1="${m.top + ph}" y2="${m.top + ph}" stroke="#333"/>`);
  out.push(`<text x="${m.left + pw / 2}" y="${H - 14}" text-anchor="middle">workspaces (N)</text>`);
  out.push(`<text transform="translate(16 ${m.top + ph / 2}) rotate(-90)" text-anchor="middle">${esc(o.yLabel)}</text>`);
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length] ?? '#000';
    if (s.points.length > 1) {
      out.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${s.points.map(([n, v]) => `${f(x(n))},${f(y(v))}`).join(' ')}"/>`);
    }
    for (const [n, v] of s.points) {
      out.push(`<circle cx="${f(x(n))}" cy="${f(y(v))}" r="4" fill="${color}"><title>${esc(s.controller)}: N=${n}, ${v}${esc(o.unit)}</title></circle>`);
      out.push(`<text x="${f(x(n) + 6)}" y="${f(y(v) - 6)}" fill="${color}">${v}</text>`);
    }
    out.push(`<rect x="${m.left + 12}" y="${m.top + 8 + i * 18}" width="12" height="12" fill="${color}"/>`);
    out.push(`<text x="${m.left + 30}" y="${m.top + 18 + i * 18}">${esc(s.controller)}</text>`);
  });
  return out.join('\n');
}
