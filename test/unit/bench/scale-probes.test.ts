// The scale probes' pure parts (bench/scale-probes.ts): which child is a probe's, the percentiles of the
// K samples, the console line and the Markdown table; and how --scale-probes reaches the options, the
// settings line and the --json document.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Workspace } from '../../../src/api/types.js';
import { BenchArgsError, parseBenchArgs } from '../../../bench/args.js';
import { inferenceSetSettingsLine } from '../../../bench/inferenceset.js';
import { benchDocument, formatTable, parseBenchDocument, type ControllerResult } from '../../../bench/results.js';
import { ScaleProbeTracker, scaleProbeFigures, scaleProbeLine, scaleProbeMarkdown, type ScaleProbeFigures } from '../../../bench/scale-probes.js';

const child = (name: string, set = 'bench-set') => ({ metadata: { name, labels: { 'inferenceset.kaito.sh/created-by': set } } }) as unknown as Workspace;

/** One event of the watch, or the start of a probe (`start` at a time). */
type Step = { start: number } | { child: string; at: number; set?: string };

describe('ScaleProbeTracker', () => {
  const cases: { name: string; steps: Step[]; samples: number[]; created: number }[] = [
    {
      name: "a probe's sample is the first new child after its start, to 0.1 ms",
      steps: [{ start: 1000 }, { child: 'bench-set-a', at: 1023.456 }],
      samples: [23.5],
      created: 1,
    },
    {
      name: 'children of the main measurement (seen before any probe) are never a sample, even replayed by a restarted watch',
      steps: [{ child: 'bench-set-old', at: 5 }, { start: 1000 }, { child: 'bench-set-old', at: 1001 }, { child: 'bench-set-b', at: 1040 }],
      samples: [40],
      created: 1,
    },
    {
      name: 'later events of the same child and children of other sets change nothing',
      steps: [
        { start: 0 },
        { child: 'other-x', at: 3, set: 'other' },
        { child: 'bench-set-a', at: 12 },
        { child: 'bench-set-a', at: 400 },
        { start: 2000 },
        { child: 'bench-set-a', at: 2001 },
        { child: 'bench-set-b', at: 2950 },
      ],
      samples: [12, 950],
      created: 2,
    },
    {
      name: 'a second child in one probe (a duplicate) is counted, not sampled',
      steps: [{ start: 0 }, { child: 'bench-set-a', at: 30 }, { child: 'bench-set-b', at: 35 }],
      samples: [30],
      created: 2,
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      const t = new ScaleProbeTracker('bench-set');
      assert.equal(t.sample(), undefined);
      for (const s of c.steps) {
        if ('start' in s) {
          t.start(s.start);
          assert.equal(t.sample(), undefined, 'a new probe has no sample yet');
        } else t.onChild(child(s.child, s.set), s.at);
      }
      assert.equal(t.sample(), c.samples.at(-1));
      assert.deepEqual(t.figures()?.samplesMs, c.samples);
      assert.equal(t.figures()?.childrenCreated, c.created);
    });
  it('has no figures before a probe saw a child', () => {
    const t = new ScaleProbeTracker('bench-set');
    t.onChild(child('bench-set-a'), 1);
    t.start(10);
    assert.equal(t.figures(), undefined);
  });
});

describe('scaleProbeFigures', () => {
  it('p50/p90/p99/max of K samples by nearest rank, and those over 1 s', () => {
    // 100 samples: 1..98 ms, then 1200 and 1500 ms; p99 is the 99th, p90 the 90th.
    const samples = [...Array.from({ length: 98 }, (_, i) => 98 - i), 1500, 1200];
    const f = scaleProbeFigures(samples, 100);
    assert.deepEqual(f && { ...f, samplesMs: f.samplesMs.length }, {
      probes: 100,
      firstChildMs: { p50: 50, p90: 90, p99: 1200, max: 1500 },
      overTarget: 2,
      childrenCreated: 100,
      samplesMs: 100,
    });
    assert.deepEqual(f?.samplesMs.slice(-2), [1500, 1200], 'in probe order');
  });
  it('one sample is every percentile; exactly 1 s is within the target', () => {
    assert.deepEqual(scaleProbeFigures([1000], 1), {
      probes: 1,
      firstChildMs: { p50: 1000, p90: 1000, p99: 1000, max: 1000 },
      overTarget: 0,
      childrenCreated: 1,
      samplesMs: [1000],
    });
    assert.equal(scaleProbeFigures([], 0), undefined);
  });
});

const probes: ScaleProbeFigures = {
  probes: 3,
  firstChildMs: { p50: 21.5, p90: 40, p99: 40, max: 40 },
  overTarget: 0,
  childrenCreated: 3,
  samplesMs: [21.5, 40, 12],
};
const result = (controller: 'kaito-ts' | 'kaito-v0.12.0', scaleProbes?: ScaleProbeFigures): ControllerResult => ({
  controller,
  allStatefulSetsSeconds: 3,
  allReadySeconds: 34,
  peakRssMiB: 65,
  cpuSeconds: 1.5,
  requestsByVerb: { create: 20 },
  writesPerIdleMinute: 0,
  correct: true,
  inferenceSet: {
    replicas: 20,
    firstChildSeconds: 0.03,
    childrenCreated: 20,
    childCreated: { p50: 0.1, p90: 0.2, p99: 0.2, max: 0.2 },
    childInferenceReady: { p50: 32, p90: 33, p99: 34, max: 34 },
    readyReplicasSeconds: 34,
    allChildrenReadySeconds: 34,
    ...(scaleProbes ? { scaleProbes } : {}),
  },
});

describe('the probes in the summary, the --json document and the Markdown table', () => {
  it('prints a line per controller', () => {
    assert.equal(scaleProbeLine(probes), '3 scale writes 0 → 1: first child p50/p90/p99/max 21.5 / 40 / 40 / 40 ms, 0 over 1 s, 3 children for 3 writes');
  });
  const options = { replicas: 20, podReadyDelaySeconds: 30, qps: 30, scaleProbes: 3 };
  const doc = benchDocument(
    20,
    [result('kaito-ts', probes), result('kaito-v0.12.0', { ...probes, overTarget: 1, childrenCreated: 4 })],
    undefined,
    undefined,
    undefined,
    options,
  );
  it('keeps K in the options and the figures in each result, through the --json round trip', () => {
    const back = parseBenchDocument(JSON.stringify(doc));
    assert.equal(back.inferenceSet?.scaleProbes, 3);
    assert.deepEqual(back.results[0]?.inferenceSet?.scaleProbes, probes);
    assert.match(inferenceSetSettingsLine(options), /scale 0 → 20, model load 30s, client QPS 30, then 3 scale writes 0 → 1$/);
    assert.doesNotMatch(inferenceSetSettingsLine({ ...options, scaleProbes: undefined }), /scale writes 0 → 1/);
  });
  it('the console table carries each controller’s probe line', () => {
    const text = formatTable(doc);
    assert.match(text, /\n {2}3 scale writes 0 → 1: first child p50\/p90\/p99\/max 21\.5 \/ 40 \/ 40 \/ 40 ms, 0 over 1 s, 3 children for 3 writes\n/);
    assert.match(text, /1 over 1 s, 4 children for 3 writes/);
  });
  it('the Markdown table has a row per controller that probed, and a run column when runs are labelled', () => {
    assert.equal(
      scaleProbeMarkdown([doc]),
      [
        '| controller | scale writes 0 → 1 (K) | first child p50 / p90 / p99 / max (ms) | over 1 s | children created |',
        '|---|---|---|---|---|',
        '| kaito-ts | 3 | 21.5 / 40 / 40 / 40 | 0 | 3 |',
        '| kaito-v0.12.0 | 3 | 21.5 / 40 / 40 / 40 | 1 | 4 |',
        '',
      ].join('\n'),
    );
    const labelled = scaleProbeMarkdown([{ ...benchDocument(20, [result('kaito-ts', probes), result('kaito-v0.12.0')]), label: 'load 2' }]);
    assert.match(labelled, /^\| run \| controller \|/);
    assert.match(labelled, /\n\| load 2 \| kaito-ts \| 3 \|/);
    assert.doesNotMatch(labelled, /kaito-v0\.12\.0/, 'a result without probes has no row');
    assert.equal(scaleProbeMarkdown([benchDocument(20, [result('kaito-ts')])]), '');
  });
});

describe('--scale-probes', () => {
  const options = (argv: string[]) => {
    const o = parseBenchArgs(argv);
    return o === 'help' ? undefined : o.inferenceSet;
  };
  it('is absent by default, so a run without it is what it was', () => {
    assert.deepEqual(options(['--scenario', 'inferenceset']), { replicas: 20, podReadyDelaySeconds: 30, qps: 30 });
    assert.deepEqual(options(['--scenario', 'inferenceset', '--scale-probes', '0']), { replicas: 20, podReadyDelaySeconds: 30, qps: 30 });
  });
  it('takes K', () => {
    assert.equal(options(['--scenario', 'inferenceset', '--scale-probes', '100'])?.scaleProbes, 100);
  });
  const bad: [string[], RegExp][] = [
    [['--workspaces', '5', '--scale-probes', '3'], /--scale-probes needs --scenario inferenceset/],
    [['--scenario', 'update', '--scale-probes', '3'], /--scale-probes needs --scenario inferenceset/],
    [['--scenario', 'inferenceset', '--scale-probes=-1'], /--scale-probes must be an integer >= 0/],
    [['--scenario', 'inferenceset', '--scale-probes', 'many'], /--scale-probes must be an integer >= 0/],
  ];
  for (const [argv, message] of bad)
    it(`refuses ${JSON.stringify(argv)}`, () => {
      assert.throws(
        () => parseBenchArgs(argv),
        (err: unknown) => err instanceof BenchArgsError && message.test(err.message),
      );
    });
});
