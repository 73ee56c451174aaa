// SVG of the per-workspace timelines: for each controller of each run, a step chart of how many
// workspaces had reached each stage, against seconds since the first create. Pure: documents in, SVG out.
import { COLORS, esc, niceCeiling, type LabelledDocument } from './chart.js';
import { TIMELINE_STAGES } from './timeline.js';

/** The times (ascending) at which workspaces reached stage number `i`, over one result's workspaces. */
export function stageTimes(workspaces: Record<string, (number | null)[]>, i: number): number[] {
  return Object.values(workspaces)
    .flatMap((w) => (typeof w[i] === 'number' ? [w[i]] : []))
    .sort((a, b) => a - b);
}

const STAGE_COLORS = [...COLORS, '#e69f00', '#56b4e9', '#000000'];

export function timelineChartSvg(docs: LabelledDocument[]): string {
  const panels = docs.flatMap((d) =>
    d.results
      .filter((r) => r.timeline)
      .map((r) => ({ title: `${r.controller}, N = ${d.n}${d.label ? ` (${d.label})` : ''}`, n: d.n, ws: r.timeline?.workspaces ?? {} })),
  );
  const W = 720;
  const PH = 300;
  const m = { left: 64, right: 150, top: 36, bottom: 44 };
  const pw = W - m.left - m.right;
  const ph = PH - m.top - m.bottom;
  const H = Math.max(1, panels.length) * PH;
  const xMax = niceCeiling(Math.max(1, ...panels.flatMap((p) => Object.values(p.ws).flatMap((w) => w.filter((v): v is number => v !== null)))));
  const f = (v: number): string => v.toFixed(1);
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="#ffffff"/>`,
  ];
  panels.forEach((p, k) => {
    const top = k * PH + m.top;
    const x = (s: number): number => m.left + (s / xMax) * pw;
    const y = (count: number): number => top + ph - (count / Math.max(1, p.n)) * ph;
    out.push(
      `<text x="${m.left + pw / 2}" y="${top - 14}" text-anchor="middle" font-size="14">${esc(`Workspaces that reached each stage: ${p.title}`)}</text>`,
    );
    for (let i = 0; i <= 5; i++) {
      const sv = (xMax * i) / 5;
      const cv = (p.n * i) / 5;
      out.push(`<line x1="${m.left}" x2="${m.left + pw}" y1="${f(y(cv))}" y2="${f(y(cv))}" stroke="#e0e0e0"/>`);
      out.push(`<text x="${m.left - 8}" y="${f(y(cv) + 4)}" text-anchor="end">${+cv.toFixed(1)}</text>`);
      out.push(`<text x="${f(x(sv))}" y="${top + ph + 18}" text-anchor="middle">${+sv.toFixed(2)}</text>`);
    }
    out.push(`<line x1="${m.left}" x2="${m.left}" y1="${top}" y2="${top + ph}" stroke="#333"/>`);
    out.push(`<line x1="${m.left}" x2="${m.left + pw}" y1="${top + ph}" y2="${top + ph}" stroke="#333"/>`);
    out.push(`<text x="${m.left + pw / 2}" y="${top + ph + 36}" text-anchor="middle">seconds since the first create</text>`);
    TIMELINE_STAGES.forEach((stage, i) => {
      const color = STAGE_COLORS[i % STAGE_COLORS.length] ?? '#000';
      const times = stageTimes(p.ws, i);
      out.push(`<rect x="${m.left + pw + 12}" y="${top + i * 18}" width="12" height="12" fill="${color}"/>`);
      out.push(`<text x="${m.left + pw + 30}" y="${top + 10 + i * 18}">${stage}${times.length ? '' : ' (n/a)'}</text>`);
      if (times.length === 0) return;
      // A step up at each workspace's time: horizontal, then vertical.
      const pts = [`${f(x(0))},${f(y(0))}`];
      times.forEach((t, c) => pts.push(`${f(x(t))},${f(y(c))}`, `${f(x(t))},${f(y(c + 1))}`));
      out.push(
        `<polyline fill="none" stroke="${color}" stroke-width="1.5" points="${pts.join(' ')}"><title>${stage}: last at ${times[times.length - 1]}s</title></polyline>`,
      );
    });
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}
