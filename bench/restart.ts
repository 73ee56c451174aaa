// `--restart` (create scenario): once the N workspaces are converged and the idle window is over, the
// controller is stopped and started again over them, as after an upgrade or a lost leader. What it costs:
// time until its first pass and until every workspace had one, the writes it makes (0 is right: nothing
// changed), its memory and CPU. Pure: the caller scrapes the metrics endpoint and the counting proxy.

/** Figures of one restart over `workspaces` converged workspaces (seconds since the new process was spawned). */
export interface RestartFigures {
  workspaces: number;
  /** The metrics endpoint first answered (the process is up). */
  metricsUpSeconds: number | null;
  /** The readiness probe first answered 200. */
  readySeconds: number | null;
  /** The workspace controller's first pass (its caches synced). */
  firstPassSeconds: number | null;
  /** The workspace controller had made at least `workspaces` passes: every workspace looked at once. */
  allPassesSeconds: number | null;
  /** Writes from the restart until the controller was quiet, then in the idle window (per minute). */
  writesToSettled: number;
  writesPerIdleMinute: number;
  /** The writes to settled by `verb group/resource` (empty when there were none). */
  writesByResource: Record<string, number>;
  peakRssMiB: number;
  cpuSeconds: number;
}

/**
 * Passes of the workspace controller so far: the sum over results of `controller_runtime_reconcile_total`
 * with controller="workspace", as both kaito-ts and controller-runtime (KAITO) expose it.
 */
export function workspacePasses(metricsText: string, controller = 'workspace'): number {
  const ours = new RegExp(`(^|,)controller="${controller}"`);
  let total = 0;
  for (const line of metricsText.split('\n')) {
    if (!line.startsWith('controller_runtime_reconcile_total{')) continue;
    const close = line.lastIndexOf('}');
    const labels = line.slice(line.indexOf('{') + 1, close);
    if (!ours.test(labels)) continue;
    const value = Number(
      line
        .slice(close + 1)
        .trim()
        .split(/\s+/)[0],
    );
    if (Number.isFinite(value)) total += value;
  }
  return total;
}

/** When each milestone was first seen, from successive scrapes. */
export class RestartClock {
  metricsUpAt: number | undefined;
  firstPassAt: number | undefined;
  allPassesAt: number | undefined;

  constructor(readonly workspaces: number) {}

  /** One scrape at `at` seconds: the metrics text, or undefined when the endpoint did not answer. */
  observe(at: number, metricsText: string | undefined): void {
    if (metricsText === undefined) return;
    this.metricsUpAt ??= at;
    const passes = workspacePasses(metricsText);
    if (passes >= 1) this.firstPassAt ??= at;
    if (passes >= this.workspaces) this.allPassesAt ??= at;
  }

  done(): boolean {
    return this.allPassesAt !== undefined;
  }
}

const r2 = (v: number | undefined): number | null => (v === undefined ? null : Math.round(v * 100) / 100);

export function restartFigures(
  clock: RestartClock,
  readyAt: number | undefined,
  writes: { toSettled: number; perIdleMinute: number; byResource: Record<string, number> },
  proc: { peakRssMiB: number; cpuSeconds: number },
): RestartFigures {
  return {
    workspaces: clock.workspaces,
    metricsUpSeconds: r2(clock.metricsUpAt),
    readySeconds: r2(readyAt),
    firstPassSeconds: r2(clock.firstPassAt),
    allPassesSeconds: r2(clock.allPassesAt),
    writesToSettled: writes.toSettled,
    writesPerIdleMinute: writes.perIdleMinute,
    writesByResource: writes.byResource,
    ...proc,
  };
}

const s = (v: number | null): string => (v === null ? '-' : `${v}`);

export function restartSummaryLine(f: RestartFigures): string {
  const by = Object.entries(f.writesByResource)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  return (
    `restart over ${f.workspaces} converged workspaces: metrics up ${s(f.metricsUpSeconds)}s, ready ${s(f.readySeconds)}s, ` +
    `first pass ${s(f.firstPassSeconds)}s, ${f.workspaces} passes ${s(f.allPassesSeconds)}s; ${f.writesToSettled} writes until quiet` +
    `${by ? ` (${by})` : ''}, ${f.writesPerIdleMinute} per idle minute; peak RSS ${f.peakRssMiB} MiB, CPU ${f.cpuSeconds} s`
  );
}

interface DocLike {
  n: number;
  label?: string;
  results: { controller: string; restart?: RestartFigures }[];
}

/** The Markdown table of restart runs: one row per controller. */
export function restartMarkdown(docs: DocLike[]): string {
  const rows = docs.flatMap((d) =>
    d.results.flatMap((r) =>
      r.restart
        ? [
            `| ${d.n} | ${r.controller} | ${s(r.restart.metricsUpSeconds)} | ${s(r.restart.firstPassSeconds)} | ${s(r.restart.allPassesSeconds)} | ${r.restart.writesToSettled} | ${r.restart.writesPerIdleMinute} | ${r.restart.peakRssMiB} | ${r.restart.cpuSeconds} |`,
          ]
        : [],
    ),
  );
  if (rows.length === 0) return '';
  return [
    '| N | controller | process up (s) | first pass (s) | every workspace passed (s) | writes until quiet | writes / idle min | peak RSS (MiB) | CPU (s) |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
