// The update scenario's pure parts (bench/update.ts): the bed, the changes, the tracker's "steady" and
// "done", the figures of one update from a timeline, and the summary over the runs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Pod, V1StatefulSet } from '@kubernetes/client-node';
import type { Workspace } from '../../../src/api/types.js';
import type { ReadySample } from '../../../src/simcluster/availability.js';
import type { NodePool } from '../../../src/simcluster/nodes.js';
import { benchDocument, formatTable, parseBenchDocument, type ControllerResult } from '../../../bench/results.js';
import {
  adapterChange,
  isSurgePod,
  measureUpdate,
  summarizeUpdates,
  updateFigures,
  updateMarkdown,
  updatePlan,
  updatePools,
  UpdateTracker,
  UPDATE_ADAPTER,
  type UpdateObservation,
  type UpdateRun,
  type UpdateScenarioOptions,
} from '../../../bench/update.js';

const WS = 'ws-0000';
const SURGE = 'ws-0000-s1a2b3';
const SURGE_POD = `${SURGE}-0`;

const sts = (name: string, o: { gen?: number; observed?: number; ready?: number; updated?: number; current?: string; update?: string; surge?: boolean } = {}) =>
  ({
    metadata: { name, generation: o.gen ?? 1, ...(o.surge ? { labels: { 'kaito-ts.io/surge': '1a2b3' } } : {}) },
    spec: { replicas: 1 },
    status: {
      replicas: 1,
      observedGeneration: o.observed ?? o.gen ?? 1,
      readyReplicas: o.ready ?? 1,
      updatedReplicas: o.updated ?? 1,
      currentRevision: o.current ?? 'ws-0000-aaa',
      updateRevision: o.update ?? o.current ?? 'ws-0000-aaa',
    },
  }) as V1StatefulSet;

const pod = (name: string, uid: string, ready: boolean, revision = 'ws-0000-aaa') =>
  ({
    metadata: { name, uid, labels: { 'controller-revision-hash': revision } },
    status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  }) as V1Pod;

const ws = (reason?: string, status = 'True', lastTransitionTime = '2026-01-01T00:00:00Z') =>
  ({
    metadata: { name: WS },
    status: reason ? { conditions: [{ type: 'Updating', status, reason, message: '', lastTransitionTime }] } : {},
  }) as unknown as Workspace;

describe('the update bed and changes', () => {
  const pools = [
    { name: 'a100', count: 3, instanceType: 'Standard_NC24ads_A100_v4', nvme: { volumes: 4, size: '1000Gi' } },
    { name: 'a10', count: 2, instanceType: 'Standard_NV36ads_A10_v5' },
  ] as NodePool[];
  it('one phi-4-mini-instruct workspace on the NVMe A100 pool', () => {
    assert.deepEqual(updatePlan(pools), { name: WS, pool: 'a100', preset: 'phi-4-mini-instruct', instanceType: 'Standard_NC24ads_A100_v4', nvme: true });
    assert.throws(() => updatePlan([pools[1]!]), /no pool "a100"/);
  });
  it('two A100 nodes with a spare, one without, no other node', () => {
    assert.deepEqual(
      updatePools(pools, true).map((p) => [p.name, p.count]),
      [
        ['a100', 2],
        ['a10', 0],
      ],
    );
    assert.equal(updatePools(pools, false)[0]?.count, 1);
    assert.deepEqual(updatePools(pools, true)[0]?.nvme, { volumes: 4, size: '1000Gi' });
  });
  it('odd runs add the adapter, even runs remove it', () => {
    assert.deepEqual(adapterChange(1), { change: 'add adapter', patch: { inference: { adapters: [UPDATE_ADAPTER] } } });
    assert.deepEqual(adapterChange(2), { change: 'remove adapter', patch: { inference: { adapters: null } } });
    assert.equal(adapterChange(5).change, 'add adapter');
  });
  it('knows a surge pod by its name', () => {
    assert.equal(isSurgePod(WS, SURGE_POD), true);
    assert.equal(isSurgePod(WS, `${WS}-0`), false);
    assert.equal(isSurgePod(WS, 'ws-0001-s1a2b3-0'), false);
    assert.equal(isSurgePod(WS, `${WS}-s1a2b-0`), false);
  });
});

describe('UpdateTracker', () => {
  const serving = [`${WS}-0`];
  it('kaito-ts: steady, then done only once the surge is gone and Updating is back at CutoverComplete', () => {
    const t = new UpdateTracker(WS, true);
    t.onStatefulSet('ADDED', sts(WS));
    t.onPod('ADDED', pod(`${WS}-0`, 'p1', true), 1);
    assert.equal(t.steady(serving), undefined);
    assert.match(t.steady([]) ?? '', /serving: nothing/);
    assert.match(t.missing(serving) ?? '', /no update begun/);

    t.begin(10_000);
    assert.match(t.missing(serving) ?? '', /Updating not reported/);
    t.onWorkspace(ws('SurgeStarting'), 10_200);
    t.onStatefulSet('ADDED', sts(SURGE, { surge: true }));
    assert.match(t.steady(serving) ?? '', /surge StatefulSet ws-0000-s1a2b3 still there/);
    t.onPod('ADDED', pod(SURGE_POD, 's1', false), 10_500);
    t.onPod('MODIFIED', pod(SURGE_POD, 's1', true), 130_000);
    t.onWorkspace(ws('SurgeReady'), 130_100);
    t.onWorkspace(ws('ServingFromSurge'), 130_300);
    t.onStatefulSet('MODIFIED', sts(WS, { gen: 2, current: 'ws-0000-aaa', update: 'ws-0000-bbb', updated: 0, ready: 0 }));
    t.onPod('DELETED', pod(`${WS}-0`, 'p1', true), 130_400);
    t.onPod('ADDED', pod(`${WS}-0`, 'p2', false, 'ws-0000-bbb'), 130_500);
    assert.match(t.missing([SURGE_POD]) ?? '', /Updating True ServingFromSurge/);
    t.onPod('MODIFIED', pod(`${WS}-0`, 'p2', true, 'ws-0000-bbb'), 151_000);
    t.onStatefulSet('MODIFIED', sts(WS, { gen: 2, current: 'ws-0000-bbb' }));
    t.onWorkspace(ws('PrimaryReady'), 151_100);
    t.onWorkspace(ws('CutoverComplete', 'False'), 151_400);
    assert.match(t.missing(serving) ?? '', /surge StatefulSet ws-0000-s1a2b3 still there/);
    t.onStatefulSet('DELETED', sts(SURGE, { surge: true }));
    assert.match(t.missing([SURGE_POD]) ?? '', /serving: ws-0000-s1a2b3-0/);
    assert.equal(t.missing(serving), undefined);
    assert.equal(t.steady(serving), undefined);
    assert.deepEqual(t.events(), {
      podsReady: [
        { pod: SURGE_POD, uid: 's1', revision: 'ws-0000-aaa', atMs: 130_000 },
        { pod: `${WS}-0`, uid: 'p2', revision: 'ws-0000-bbb', atMs: 151_000 },
      ],
      reasons: [
        { status: 'True', reason: 'SurgeStarting', atMs: 10_200 },
        { status: 'True', reason: 'SurgeReady', atMs: 130_100 },
        { status: 'True', reason: 'ServingFromSurge', atMs: 130_300 },
        { status: 'True', reason: 'PrimaryReady', atMs: 151_100 },
        { status: 'False', reason: 'CutoverComplete', atMs: 151_400 },
      ],
    });
  });
  it("kaito-ts: the previous run's CutoverComplete is not this run's", () => {
    const t = new UpdateTracker(WS, true);
    t.onStatefulSet('ADDED', sts(WS));
    t.onPod('ADDED', pod(`${WS}-0`, 'p1', true), 1);
    t.onWorkspace(ws('CutoverComplete', 'False', '2026-01-01T00:00:00Z'), 2);
    t.begin(Date.parse('2026-01-01T00:05:00Z'));
    // The StatefulSet rolled out (a fast restart), but Updating has not moved since the last run.
    t.onStatefulSet('MODIFIED', sts(WS, { gen: 2, current: 'ws-0000-bbb' }));
    t.onPod('MODIFIED', pod(`${WS}-0`, 'p1', true, 'ws-0000-bbb'), 3);
    assert.match(t.missing(serving) ?? '', /Updating False CutoverComplete/);
    // A transition within this run (missed by the watch) counts by its time.
    t.onWorkspace(ws('CutoverComplete', 'False', '2026-01-01T00:05:00Z'), 4);
    assert.equal(t.missing(serving), undefined);
  });
  it('KAITO: done when the StatefulSet rolled out a new revision, its pod is Ready at it and serves', () => {
    const t = new UpdateTracker(WS, false);
    t.onStatefulSet('ADDED', sts(WS));
    t.onPod('ADDED', pod(`${WS}-0`, 'p1', true), 1);
    t.begin(10_000);
    assert.match(t.missing(serving) ?? '', /no new revision yet/);
    t.onStatefulSet('MODIFIED', sts(WS, { gen: 2, observed: 1, update: 'ws-0000-aaa' }));
    assert.match(t.missing(serving) ?? '', /no new revision yet/);
    t.onStatefulSet('MODIFIED', sts(WS, { gen: 2, observed: 2, current: 'ws-0000-aaa', update: 'ws-0000-bbb', ready: 0, updated: 0 }));
    assert.match(t.missing([]) ?? '', /rolling out \(ws-0000-aaa → ws-0000-bbb\)/);
    t.onPod('DELETED', pod(`${WS}-0`, 'p1', true), 10_100);
    t.onPod('ADDED', pod(`${WS}-0`, 'p2', false, 'ws-0000-bbb'), 10_200);
    t.onStatefulSet('MODIFIED', sts(WS, { gen: 2, current: 'ws-0000-bbb' }));
    assert.match(t.missing([]) ?? '', /pod ws-0000-0 not Ready/);
    t.onPod('MODIFIED', pod(`${WS}-0`, 'p2', true, 'ws-0000-bbb'), 131_000);
    assert.match(t.missing([]) ?? '', /serving: nothing/);
    assert.equal(t.missing(serving), undefined);
    assert.deepEqual(t.events().reasons, []);
  });
  it('a pod replayed by a restarted watch is not Ready twice', () => {
    const t = new UpdateTracker(WS, false);
    t.begin(0);
    t.onPod('ADDED', pod(`${WS}-0`, 'p1', true), 5);
    t.onPod('ADDED', pod(`${WS}-0`, 'p1', true), 9);
    assert.deepEqual(
      t.events().podsReady.map((e) => e.atMs),
      [5],
    );
  });
});

const s = (atMs: number, ...pods: string[]): ReadySample => ({ atMs, pods });
const base = (o: Partial<UpdateObservation>): UpdateObservation => ({
  run: 1,
  change: 'add adapter',
  workspace: WS,
  surges: true,
  startMs: 10_000,
  doneAtMs: 152_000,
  endMs: 157_000,
  samples: [],
  podsReady: [],
  reasons: [],
  ...o,
});

describe('measureUpdate', () => {
  it('kaito-ts with a spare node: no gap, the cut-over from the surge pod Ready, the way back', () => {
    const r = measureUpdate(
      base({
        samples: [s(1_000, `${WS}-0`), s(130_050, SURGE_POD), s(151_300, `${WS}-0`)],
        podsReady: [
          { pod: SURGE_POD, uid: 's1', atMs: 130_000 },
          { pod: `${WS}-0`, uid: 'p2', revision: 'b', atMs: 151_000 },
        ],
        reasons: [
          { status: 'True', reason: 'SurgeStarting', atMs: 10_200 },
          { status: 'False', reason: 'CutoverComplete', atMs: 151_900 },
        ],
      }),
    );
    assert.deepEqual(r, {
      run: 1,
      change: 'add adapter',
      unavailableMs: 0,
      gaps: [],
      totalSeconds: 142,
      primaryServingMs: 300,
      servedBy: [`${WS}-0`, SURGE_POD, `${WS}-0`],
      cutoverMs: 50,
      path: 'surge',
      steps: [
        { reason: 'SurgeStarting', atSeconds: 0.2 },
        { reason: 'CutoverComplete', atSeconds: 141.9 },
      ],
    });
  });
  it('kaito-ts without a spare node: one warm gap, a restart in place, no cut-over', () => {
    const r = measureUpdate(
      base({
        doneAtMs: 36_000,
        endMs: 41_000,
        samples: [s(1_000, `${WS}-0`), s(14_000), s(35_200, `${WS}-0`)],
        podsReady: [{ pod: `${WS}-0`, uid: 'p2', atMs: 35_000 }],
        reasons: [{ status: 'True', reason: 'FellBackToRecreate', atMs: 11_000 }],
      }),
    );
    assert.deepEqual(r.gaps, [{ fromSeconds: 4, ms: 21_200 }]);
    assert.equal(r.unavailableMs, 21_200);
    assert.equal(r.path, 'restart in place');
    assert.equal(r.cutoverMs, null);
    assert.equal(r.primaryServingMs, 200);
    assert.deepEqual(r.servedBy, [`${WS}-0`, 'none', `${WS}-0`]);
  });
  it('KAITO: a whole cold load without a serving endpoint; no surge figures', () => {
    const r = measureUpdate(
      base({
        surges: false,
        doneAtMs: 132_000,
        endMs: 137_000,
        samples: [s(1_000, `${WS}-0`), s(10_400), s(131_100, `${WS}-0`)],
        podsReady: [{ pod: `${WS}-0`, uid: 'p2', atMs: 131_150 }],
      }),
    );
    assert.deepEqual(r, {
      run: 1,
      change: 'add adapter',
      unavailableMs: 120_700,
      gaps: [{ fromSeconds: 0.4, ms: 120_700 }],
      totalSeconds: 122,
      primaryServingMs: 0,
      servedBy: [`${WS}-0`, 'none', `${WS}-0`],
    });
  });
  it('an update not done within the timeout: no total, the open gap cut at the end', () => {
    const r = measureUpdate(base({ surges: false, doneAtMs: undefined, endMs: 70_000, samples: [s(1_000, `${WS}-0`), s(20_000)] }));
    assert.equal(r.totalSeconds, null);
    assert.deepEqual(r.gaps, [{ fromSeconds: 10, ms: 50_000, open: true }]);
    assert.equal(r.primaryServingMs, null);
  });
  it('a drop after done, within the settle window, still counts', () => {
    const r = measureUpdate(base({ surges: false, doneAtMs: 30_000, endMs: 35_000, samples: [s(1_000, `${WS}-0`), s(31_000), s(32_000, `${WS}-0`)] }));
    assert.deepEqual(r.gaps, [{ fromSeconds: 21, ms: 1_000 }]);
  });
});

const run = (n: number, unavailableMs: number, totalSeconds: number | null, cutoverMs?: number | null): UpdateRun => ({
  run: n,
  change: n % 2 ? 'add adapter' : 'remove adapter',
  unavailableMs,
  gaps: unavailableMs > 0 ? [{ fromSeconds: 1, ms: unavailableMs }] : [],
  totalSeconds,
  primaryServingMs: 100 * n,
  servedBy: [],
  ...(cutoverMs !== undefined ? { cutoverMs, path: cutoverMs === null ? ('restart in place' as const) : ('surge' as const) } : {}),
});

describe('summarizeUpdates', () => {
  it('min / median / max, runs with zero gap, completed runs', () => {
    assert.deepEqual(summarizeUpdates([run(1, 0, 142, 50), run(2, 0, 146, 210), run(3, 1200, 150, null), run(4, 0, null, 30)]), {
      runs: 4,
      completed: 3,
      zeroGapRuns: 3,
      unavailableMs: { min: 0, median: 0, max: 1200 },
      gapCount: { min: 0, median: 0, max: 1 },
      totalSeconds: { min: 142, median: 146, max: 150 },
      cutoverMs: { min: 30, median: 50, max: 210 },
      primaryServingMs: { min: 100, median: 250, max: 400 },
    });
  });
  it('KAITO runs carry no cut-over; no runs, no figures', () => {
    const k = summarizeUpdates([run(1, 121_000, 122), run(2, 119_000, 121)]);
    assert.equal('cutoverMs' in k, false);
    assert.deepEqual(k.unavailableMs, { min: 119_000, median: 120_000, max: 121_000 });
    assert.equal(k.zeroGapRuns, 0);
    assert.deepEqual(summarizeUpdates([]), {
      runs: 0,
      completed: 0,
      zeroGapRuns: 0,
      unavailableMs: null,
      gapCount: null,
      totalSeconds: null,
      primaryServingMs: null,
    });
  });
});

describe('the update report', () => {
  const settings: UpdateScenarioOptions = { coldLoadSeconds: 120, warmLoadSeconds: 20, spareNode: true, repeat: 2, kaitoRepeat: 1 };
  const result = (controller: ControllerResult['controller'], runs: UpdateRun[]): ControllerResult => ({
    controller,
    allStatefulSetsSeconds: 0.1,
    allReadySeconds: 121.5,
    peakRssMiB: 60,
    cpuSeconds: 2,
    requestsByVerb: { patch: 12 },
    writesPerIdleMinute: 0,
    correct: true,
    update: updateFigures(runs),
    ...(controller === 'kaito-ts' ? { codeCommit: 'abc123' } : {}),
  });
  const doc = benchDocument(
    1,
    [result('kaito-ts', [run(1, 0, 142, 50), run(2, 0, 146, 210)]), result('kaito-v0.8.0', [run(1, 121_000, 122)])],
    undefined,
    undefined,
    settings,
  );
  it('the document names the scenario, keeps the runs and the code commit, and reads back', () => {
    assert.deepEqual(Object.keys(doc), ['n', 'scenario', 'update', 'results']);
    assert.deepEqual(Object.keys(doc.results[0] ?? {}).slice(-2), ['update', 'codeCommit']);
    assert.deepEqual(parseBenchDocument(JSON.stringify(doc)), doc);
  });
  it('the printed table has a summary line and a line per run', () => {
    const text = formatTable(doc);
    assert.match(text, /^update scenario: phi-4-mini-instruct on a100, cold load 120s, warm load 20s, a spare node, 2 \(KAITO 1\) update\(s\) per controller/);
    assert.match(
      text,
      /kaito-ts: runs with zero gap: 2 of 2; unavailable ms min\/median\/max 0 \/ 0 \/ 0 \(gaps 0 \/ 0 \/ 0\); total update s 142 \/ 144 \/ 146; cut-over ms 50 \/ 130 \/ 210/,
    );
    assert.match(text, /kaito-v0.8.0: runs with zero gap: 0 of 1; unavailable ms min\/median\/max 121000 \/ 121000 \/ 121000/);
    assert.match(text, /\n {2}run 2 \(remove adapter\): unavailable 0 ms in 0 gap\(s\), total 146s, surge, cut-over 210 ms/);
  });
  it('Markdown: a summary row per controller and a row per run; nothing for create documents', () => {
    const md = updateMarkdown([doc]);
    assert.match(
      md,
      /\| kaito-ts \| yes \| 120 \/ 20 \| 2 of 2 \| 0 \/ 0 \/ 0 \| 0 \/ 0 \/ 0 \| 142 \/ 144 \/ 146 \| 50 \/ 130 \/ 210 \| 100 \/ 150 \/ 200 \|/,
    );
    assert.match(
      md,
      /\| kaito-v0.8.0 \| yes \| 120 \/ 20 \| 0 of 1 \| 121000 \/ 121000 \/ 121000 \| 1 \/ 1 \/ 1 \| 122 \/ 122 \/ 122 \| - \| 100 \/ 100 \/ 100 \|/,
    );
    assert.match(md, /\| kaito-v0.8.0 \| 1 \| add adapter \| 121000 \| 1 \| 122 \| rolling update \| - \|/);
    assert.equal(updateMarkdown([benchDocument(5, [])]), '');
  });
});
