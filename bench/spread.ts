// Percentiles of a set of per-workspace seconds, shared by the timeline and the NAP stage figures. Pure.

export interface Spread {
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentile of ascending `sorted` (q in 0..1). */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) throw new Error('percentile of nothing');
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1] as number;
}

export function spread(values: readonly number[]): Spread | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const r = (v: number): number => Math.round(v * 10) / 10;
  return { p50: r(percentile(s, 0.5)), p90: r(percentile(s, 0.9)), p99: r(percentile(s, 0.99)), max: r(s[s.length - 1] as number) };
}
