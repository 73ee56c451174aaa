import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { costChartSvg, niceCeiling, readyChartSvg, readySeries } from '../../../bench/chart.js';
import type { BenchDocument } from '../../../bench/results.js';

function doc(n: number, ts: number | null, kaito: number | null): BenchDocument {
  const r = (controller: 'kaito-ts' | 'kaito-v0.8.0', allReadySeconds: number | null) => ({
    controller,
    allStatefulSetsSeconds: null,
    allReadySeconds,
    peakRssMiB: 0,
    cpuSeconds: 0,
    requestsByVerb: {},
    writesPerIdleMinute: 0,
    correct: true,
  });
  return { n, results: [r('kaito-ts', ts), r('kaito-v0.8.0', kaito)] };
}

describe('readySeries', () => {
  it('groups by controller, sorts by N and leaves out timeouts', () => {
    assert.deepEqual(readySeries([doc(200, 8, 80), doc(50, 3, 20), doc(500, 15, null)]), [
      {
        controller: 'kaito-ts',
        points: [
          [50, 3],
          [200, 8],
          [500, 15],
        ],
      },
      {
        controller: 'kaito-v0.8.0',
        points: [
          [50, 20],
          [200, 80],
        ],
      },
    ]);
  });
});

describe('niceCeiling', () => {
  const cases: Array<[number, number]> = [
    [0, 1],
    [1, 1],
    [3, 5],
    [7.5, 10],
    [20, 20],
    [21, 50],
    [420, 500],
    [1000, 1000],
    [1001, 2000],
  ];
  for (const [max, want] of cases) it(`${max} → ${want}`, () => assert.equal(niceCeiling(max), want));
});

describe('readyChartSvg', () => {
  const svg = readyChartSvg([doc(50, 3, 20), doc(200, 8, 80), doc(500, 15, 210)]);
  it('is one well-formed svg element', () => {
    assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="640" height="400"/);
    assert.ok(svg.trimEnd().endsWith('</svg>'));
    assert.equal(svg.match(/<svg/g)?.length, 1);
  });
  it('draws one line and three points per controller, with a legend', () => {
    assert.equal(svg.match(/<polyline/g)?.length, 2);
    assert.equal(svg.match(/<circle/g)?.length, 6);
    assert.match(svg, />kaito-ts<\/text>/);
    assert.match(svg, />kaito-v0\.8\.0<\/text>/);
    assert.match(svg, /<title>kaito-v0\.8\.0: N=500, 210s<\/title>/);
  });
  it('places points on the axes scale (x to 500, y to 500)', () => {
    // Plot area: x from 64 to 616 (552 px), y from 40 to 344 (304 px).
    assert.match(svg, /<circle cx="616\.0" cy="216\.3" r="4"/); // N=500, 210 s: 344 − 210/500 × 304 = 216.32
    assert.match(svg, /<circle cx="119\.2" cy="342\.2" r="4"/); // N=50, 3 s
  });
  it('escapes names', () => {
    const odd: BenchDocument = { n: 1, results: [{ ...doc(1, 1, 1).results[0]!, controller: 'a<b' as never }] };
    assert.match(readyChartSvg([odd]), /a&lt;b/);
  });
});

describe('labelled documents', () => {
  it('keep one series per controller and label', () => {
    const series = readySeries([
      { ...doc(50, 3, 20), label: '30/50' },
      { ...doc(50, 2, 19), label: '500/1000' },
      { ...doc(200, 8, 80), label: '30/50' },
    ]);
    assert.deepEqual(
      series.map((s) => [s.controller, s.points.length]),
      [
        ['kaito-ts (30/50)', 2],
        ['kaito-v0.8.0 (30/50)', 2],
        ['kaito-ts (500/1000)', 1],
        ['kaito-v0.8.0 (500/1000)', 1],
      ],
    );
  });
});

describe('costChartSvg', () => {
  const withCost = (n: number, rss: number, cpu: number, kaitoRss: number, kaitoCpu: number): BenchDocument => {
    const d = doc(n, 1, 2);
    return {
      ...d,
      results: [
        { ...d.results[0]!, peakRssMiB: rss, cpuSeconds: cpu },
        { ...d.results[1]!, peakRssMiB: kaitoRss, cpuSeconds: kaitoCpu },
      ],
    };
  };
  const svg = costChartSvg([withCost(50, 64.5, 3.1, 62.3, 2.1), withCost(500, 94.5, 24.4, 101.4, 34.1)]);
  it('two panels in one svg: peak RSS and CPU per 100 workspaces', () => {
    assert.equal(svg.match(/<svg/g)?.length, 1);
    assert.match(svg, /width="960"/);
    assert.match(svg, />Peak RSS \(MiB\)</);
    assert.match(svg, />CPU seconds per 100 workspaces</);
    assert.equal(svg.match(/<polyline/g)?.length, 4);
  });
  it('CPU is per 100 workspaces of the run', () => {
    assert.match(svg, /<title>kaito-ts: N=50, 6\.2 CPU s<\/title>/); // 3.1 s / 50 × 100
    assert.match(svg, /<title>kaito-v0\.8\.0: N=500, 6\.8 CPU s<\/title>/); // 34.1 / 500 × 100 = 6.82
    assert.match(svg, /<title>kaito-v0\.8\.0: N=500, 101\.4 MiB<\/title>/);
  });
});
