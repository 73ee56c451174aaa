// `node dist/bench/report.js FILE...`: reads --json files of several runs and prints the Markdown table
// for docs/benchmarks.md; with --svg OUT also writes the time-to-all-ready chart, with --timeline-svg OUT
// the per-workspace stage chart, with --cost the peak RSS and CPU per 100 workspaces (--cost-svg OUT: as a
// chart). Documents of --scenario update also get their update tables, those of --scenario inferenceset
// their scale tables (and, with --scale-probes, the first-child percentiles), those of --restart their
// restart table.
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { costChartSvg, readyChartSvg } from './chart.js';
import { inferenceSetMarkdown } from './inferenceset.js';
import { costTable, markdownTable, karpenterStageTable, napStageTable, parseBenchDocument } from './results.js';
import { restartMarkdown } from './restart.js';
import { scaleProbeMarkdown } from './scale-probes.js';
import { timelineChartSvg } from './timeline-chart.js';
import { timelineMarkdown } from './timeline-format.js';
import { updateMarkdown } from './update.js';

function main(argv: string[]): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      svg: { type: 'string' },
      title: { type: 'string' },
      'timeline-svg': { type: 'string' },
      'cost-svg': { type: 'string' },
      cost: { type: 'boolean' },
    },
  });
  if (positionals.length === 0) {
    process.stderr.write(
      'usage: node dist/bench/report.js [--svg OUT.svg [--title TEXT]] [--timeline-svg OUT.svg] [--cost] [--cost-svg OUT.svg] [LABEL=]RESULT.json...\n',
    );
    return 2;
  }
  // LABEL=FILE labels a run (e.g. its client limits) in the chart legend.
  const docs = positionals.map((arg) => {
    const eq = arg.indexOf('=');
    const [label, file] = eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [undefined, arg];
    return { ...parseBenchDocument(readFileSync(file, 'utf8'), file), ...(label ? { label } : {}) };
  });
  process.stdout.write(markdownTable(docs));
  const stages = napStageTable(docs);
  if (stages) process.stdout.write(`\nNode auto-provisioning stages, seconds p50 / p90 / max:\n\n${stages}`);
  const karpenterStages = karpenterStageTable(docs);
  if (karpenterStages) process.stdout.write(`\nKarpenter NodePool stages, seconds p50 / p90 / max:\n\n${karpenterStages}`);
  const updates = updateMarkdown(docs);
  if (updates) process.stdout.write(`\nUpdates of a serving workspace (unavailable: no serving endpoint; cut-over: surge pod Ready → serving):\n\n${updates}`);
  const scales = inferenceSetMarkdown(docs);
  if (scales) process.stdout.write(`\nInferenceSet scale 0 → N (seconds since the scale write; floor: load + own writes / QPS):\n\n${scales}`);
  const restarts = restartMarkdown(docs);
  if (restarts) process.stdout.write(`\nRestart over the converged workspaces (--restart; seconds since the new process was spawned):\n\n${restarts}`);
  const probes = scaleProbeMarkdown(docs);
  if (probes) process.stdout.write(`\nInferenceSet scale 0 → 1, K times (ms from the scale write to the new child first seen by a watch):\n\n${probes}`);
  const timeline = timelineMarkdown(docs);
  if (timeline) process.stdout.write(`\nPer-workspace timeline, seconds p50 / p90 / p99 / max:\n\n${timeline}`);
  if (values.cost) process.stdout.write(`\nCost as work grows (one run per row):\n\n${costTable(docs)}`);
  if (values['cost-svg']) writeFileSync(values['cost-svg'], costChartSvg(docs));
  if (values['timeline-svg']) writeFileSync(values['timeline-svg'], timelineChartSvg(docs));
  if (values.svg) writeFileSync(values.svg, values.title ? readyChartSvg(docs, values.title) : readyChartSvg(docs));
  return 0;
}

try {
  process.exitCode = main(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`report: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 2;
}
